/**
 * A third party's codec, as the README shows one: a small decoder of an Anthropic-Messages-like
 * stream, written against `@svir/core` alone and tested with the kit (`Messages.test.ts` and the
 * cases in `test/cases/messages`). Strict mode fails on an event type it does not know; lenient
 * mode skips it.
 */
import { type Codec, Completion, Event, Request, SvirError, ToolCall } from "@svir/core"
import { Effect } from "effect"
import type { Case } from "../../src/index.js"

interface Block {
  readonly type: string
  readonly id: string
  readonly name: string
  text: string
}

const stopReasons: Record<string, Completion.FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  refusal: "refusal",
}

const errorKinds: Record<string, SvirError.Kind> = {
  overloaded_error: "Server",
  api_error: "Server",
  rate_limit_error: "RateLimited",
  invalid_request_error: "Unsupported",
}

// biome-ignore lint/suspicious/noExplicitAny: a wire event is read field by field
type Wire = any

const makeDecoder = (lenient: boolean): Codec.StreamDecoder => {
  const utf8 = new TextDecoder()
  const blocks: Array<Block> = []
  let pending = ""
  let data: Array<string> = []
  let input = 0
  let output = 0
  let finish: Completion.FinishReason = "stop"
  let ended = false

  const complete = (): Completion.Completion =>
    Completion.make({
      text: blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(""),
      reasoning: blocks.flatMap((b) => (b.type === "thinking" ? [b.text] : [])).join(""),
      calls: blocks.flatMap((b) =>
        b.type === "tool_use" ? [ToolCall.make(b.id, b.name, b.text)] : [],
      ),
      finish,
      usage: { input, output, total: input + output },
    })

  const fail = (kind: SvirError.Kind, message: string): SvirError.SvirError => {
    ended = true
    return SvirError.make(kind, message)
  }

  /** Reads one event; gives an error that ends the answer, if it is one. */
  const readEvent = (event: Wire, events: Array<Event.Event>): SvirError.SvirError | undefined => {
    switch (event?.type) {
      case "message_start":
        input = event.message?.usage?.input_tokens ?? 0
        return undefined
      case "content_block_start": {
        const block = event.content_block ?? {}
        blocks[event.index] = {
          type: block.type,
          id: block.id ?? "",
          name: block.name ?? "",
          text: "",
        }
        if (block.type === "tool_use") {
          events.push(
            Event.toolCallDelta({
              index: event.index,
              id: block.id,
              name: block.name,
              arguments: "",
            }),
          )
        }
        return undefined
      }
      case "content_block_delta": {
        const block = blocks[event.index]
        const delta = event.delta ?? {}
        if (block === undefined)
          return fail("Protocol", `a delta for block ${event.index}, never started`)
        const piece: string = delta.text ?? delta.thinking ?? delta.partial_json ?? ""
        block.text += piece
        if (delta.type === "text_delta") events.push(Event.textDelta(piece))
        if (delta.type === "thinking_delta") events.push(Event.reasoningDelta(piece))
        if (delta.type === "input_json_delta") {
          events.push(Event.toolCallDelta({ index: event.index, arguments: piece }))
        }
        return undefined
      }
      case "content_block_stop":
      case "ping":
        return undefined
      case "message_delta":
        finish = stopReasons[event.delta?.stop_reason] ?? "stop"
        output = event.usage?.output_tokens ?? output
        return undefined
      case "message_stop":
        ended = true
        events.push(Event.completed(complete()))
        return undefined
      case "error":
        return fail(errorKinds[event.error?.type] ?? "Server", event.error?.message ?? "error")
      default:
        return lenient
          ? undefined
          : fail("Protocol", `unknown event ${JSON.stringify(event?.type)}`)
    }
  }

  const readLines = (text: string): Codec.DecodeStep => {
    const events: Array<Event.Event> = []
    pending += text
    const lines = pending.split("\n")
    pending = lines.pop() ?? ""
    for (const raw of lines) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
      if (line.startsWith("data:")) data.push(line.slice(5).trimStart())
      if (line !== "" || data.length === 0) continue
      let event: Wire
      try {
        event = JSON.parse(data.join("\n"))
      } catch {
        return { events, error: fail("Protocol", "an event's data is not JSON") }
      }
      data = []
      const error = readEvent(event, events)
      if (error !== undefined || ended) return { events, error }
    }
    return { events, error: undefined }
  }

  return {
    push: (bytes) => readLines(utf8.decode(bytes, { stream: true })),
    finish: () => {
      const step = readLines(`${utf8.decode()}\n\n`)
      if (step.error !== undefined || ended) return step
      return {
        events: step.events,
        error: fail("TruncatedStream", "the stream ended before message_stop"),
      }
    },
    done: () => ended,
  }
}

const decodeResponse = (body: string): Effect.Effect<Completion.Completion, SvirError.SvirError> =>
  Effect.suspend(() => {
    let message: Wire
    try {
      message = JSON.parse(body)
    } catch {
      return Effect.fail(SvirError.make("Protocol", "the body is not JSON"))
    }
    if (message?.type === "error") {
      return Effect.fail(SvirError.make(errorKinds[message.error?.type] ?? "Server", "error"))
    }
    const content: ReadonlyArray<Wire> = message?.content ?? []
    const input = message?.usage?.input_tokens ?? 0
    const output = message?.usage?.output_tokens ?? 0
    return Effect.succeed(
      Completion.make({
        text: content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join(""),
        calls: content.flatMap((c) =>
          c.type === "tool_use" ? [ToolCall.make(c.id, c.name, JSON.stringify(c.input))] : [],
        ),
        finish: stopReasons[message?.stop_reason] ?? "stop",
        usage: { input, output, total: input + output },
      }),
    )
  })

/** The codec for a case's options. */
export const make = (options: Case.CaseOptions): Codec.Codec => ({
  name: "messages-toy",
  path: "/v1/messages",
  encode: (request) =>
    Effect.map(Request.validate(request), (valid) => ({
      model: valid.model,
      max_tokens: valid.maxTokens ?? 1024,
    })),
  decodeResponse,
  decoder: () => makeDecoder(options.mode === "lenient"),
})
