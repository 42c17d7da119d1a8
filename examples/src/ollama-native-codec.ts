/**
 * A third-party codec, written against `@svir/core` alone: Ollama's native chat API
 * (`POST /api/chat`), which streams one JSON object per line instead of Server-Sent Events.
 * It is a skeleton to copy for another protocol: encode (validate first, refuse what the wire
 * cannot carry), read a whole answer, and a synchronous stream decoder whose outcome does not
 * depend on how the bytes were chunked. `examples/test/ollama-native-codec.test.ts` proves it
 * with the conformance kit and the cases in `examples/cases/ollama-native/`.
 */
import {
  type Codec,
  Completion,
  Event,
  type Message,
  Request,
  SvirError,
  ToolCall,
} from "@svir/core"
import { Effect } from "effect"

/** The codec's options; the conformance kit passes a case's `options` here. */
export interface Options {
  readonly mode?: "strict" | "lenient" | undefined
}

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64")

const userMessage = (parts: ReadonlyArray<Message.Part>): object | SvirError.SvirError => {
  const text: Array<string> = []
  const images: Array<string> = []
  for (const part of parts) {
    if (part._tag === "Text") text.push(part.text)
    else if (part._tag === "File" && typeof part.data === "string") {
      text.push(`${part.name}:\n${part.data}`)
    } else if (part._tag === "Image" && "data" in part) images.push(base64(part.data))
    // The native API takes images as base64 only, and no binary files: refuse, never drop.
    else return SvirError.make("Unsupported", `Ollama's native API cannot carry this ${part._tag}`)
  }
  return images.length > 0
    ? { role: "user", content: text.join("\n"), images }
    : { role: "user", content: text.join("\n") }
}

const message = (turn: Message.Message): object | SvirError.SvirError => {
  switch (turn._tag) {
    case "User":
      return userMessage(turn.parts)
    case "Assistant":
      return {
        role: "assistant",
        content: turn.text,
        tool_calls: turn.calls.map((call) => ({
          function: { name: call.name, arguments: JSON.parse(call.arguments.trim() || "{}") },
        })),
      }
    case "Tool":
      return {
        role: "tool",
        content: turn.result.isError ? `error: ${turn.result.content}` : turn.result.content,
      }
  }
}

/** The body of `POST /api/chat`, or Unsupported before anything is sent. */
export const encode = (
  request: Request.Request,
  options: { readonly stream: boolean },
): Effect.Effect<unknown, SvirError.SvirError> =>
  Effect.gen(function* () {
    const valid = yield* Request.validate(request)
    // The native API has no tool_choice: a choice is never dropped silently.
    if (valid.toolChoice._tag === "Required" || valid.toolChoice._tag === "Tool") {
      return yield* SvirError.make("Unsupported", "Ollama's native API cannot require a tool call")
    }
    const messages: Array<object> = valid.system ? [{ role: "system", content: valid.system }] : []
    for (const turn of valid.messages) {
      const encoded = message(turn)
      if (encoded instanceof SvirError.SvirError) return yield* encoded
      messages.push(encoded)
    }
    const offersTools = valid.tools.length > 0 && valid.toolChoice._tag !== "None"
    return {
      model: valid.model,
      messages,
      stream: options.stream,
      ...(offersTools && {
        tools: valid.tools.map((tool) => ({
          type: "function",
          function: {
            name: tool.name,
            description: tool.description,
            parameters: tool.inputSchema,
          },
        })),
      }),
      ...(valid.temperature !== undefined && { options: { temperature: valid.temperature } }),
    }
  })

/** One line of the stream, or the whole answer: the fields this codec reads. */
interface Chunk {
  readonly message?: {
    readonly content?: string
    readonly thinking?: string
    readonly tool_calls?: ReadonlyArray<{
      readonly function: { readonly name: string; readonly arguments: unknown }
    }>
  }
  readonly done?: boolean
  readonly done_reason?: string
  readonly prompt_eval_count?: number
  readonly eval_count?: number
  readonly model?: string
  readonly error?: string
}

const parseLine = (line: string): Chunk | SvirError.SvirError => {
  try {
    const chunk: unknown = JSON.parse(line)
    if (typeof chunk === "object" && chunk !== null && !Array.isArray(chunk)) return chunk
  } catch {}
  return SvirError.make(
    "Protocol",
    `a line of the stream is not a JSON object: ${line.slice(0, 80)}`,
  )
}

/** Reads lines into a completion; shared by the stream decoder and the whole answer. */
const makeAssembler = () => {
  let text = ""
  let reasoning = ""
  const calls: Array<ToolCall.ToolCall> = []
  const take = (chunk: Chunk): Array<Event.Event> | SvirError.SvirError => {
    if (chunk.error !== undefined)
      return SvirError.make("Server", chunk.error, { serverMessage: chunk.error })
    const events: Array<Event.Event> = []
    if (chunk.message?.content) {
      text += chunk.message.content
      events.push(Event.textDelta(chunk.message.content))
    }
    if (chunk.message?.thinking) {
      reasoning += chunk.message.thinking
      events.push(Event.reasoningDelta(chunk.message.thinking))
    }
    // Ollama sends each call whole, with its arguments as an object and no id: make one.
    for (const call of chunk.message?.tool_calls ?? []) {
      const args = JSON.stringify(call.function.arguments ?? {})
      const made = ToolCall.make(`call_${calls.length + 1}`, call.function.name, args)
      events.push(
        Event.toolCallDelta({ index: calls.length, id: made.id, name: made.name, arguments: args }),
      )
      calls.push(made)
    }
    if (chunk.done === true) {
      const finish =
        chunk.done_reason === "length" ? "length" : calls.length > 0 ? "tool_calls" : "stop"
      const input = chunk.prompt_eval_count ?? 0
      const output = chunk.eval_count ?? 0
      events.push(
        Event.completed(
          Completion.make({
            model: chunk.model,
            text,
            reasoning,
            // An answer cut off by the output limit has no executable calls.
            calls: finish === "length" ? [] : calls,
            finish,
            usage: { input, output, total: input + output },
          }),
        ),
      )
    }
    return events
  }
  return take
}

/** A decoder of one streamed answer: lines end in LF; each is decoded as UTF-8 whole. */
export const decoder = (options: Options = {}): Codec.StreamDecoder => {
  const take = makeAssembler()
  const utf8 = new TextDecoder("utf-8", { fatal: options.mode !== "lenient" })
  let pending = new Uint8Array(0)
  let done = false

  const line = (bytes: Uint8Array): Array<Event.Event> | SvirError.SvirError => {
    let text: string
    try {
      text = utf8.decode(bytes)
    } catch {
      return SvirError.make("Protocol", "the stream is not valid UTF-8")
    }
    if (text.trim() === "") return []
    const chunk = parseLine(text)
    return chunk instanceof SvirError.SvirError ? chunk : take(chunk)
  }

  const push = (bytes: Uint8Array): Codec.DecodeStep => {
    if (done) return { events: [], error: undefined }
    const all = new Uint8Array(pending.length + bytes.length)
    all.set(pending)
    all.set(bytes, pending.length)
    const events: Array<Event.Event> = []
    let start = 0
    for (let end = all.indexOf(10); end !== -1 && !done; end = all.indexOf(10, start)) {
      const step = line(all.subarray(start, end))
      start = end + 1
      if (step instanceof SvirError.SvirError) {
        done = true
        return { events, error: step }
      }
      events.push(...step)
      done = step[step.length - 1]?._tag === "Completed"
    }
    pending = all.slice(start)
    return { events, error: undefined }
  }

  return {
    push,
    done: () => done,
    finish: () => {
      if (done) return { events: [], error: undefined }
      const last =
        pending.length > 0 ? push(new Uint8Array([10])) : { events: [], error: undefined }
      if (done) return last
      done = true
      return {
        events: last.events,
        error:
          last.error ?? SvirError.make("TruncatedStream", "the stream ended before done: true"),
      }
    },
  }
}

/** The codec, as a client or the conformance kit takes it. */
export const make = (options: Options = {}): Codec.Codec => ({
  name: "ollama-native",
  path: "/api/chat",
  encode,
  decodeResponse: (body) => {
    const events = decoder(options)
    const step = events.push(new TextEncoder().encode(`${body.trim()}\n`))
    const last = step.events[step.events.length - 1]
    if (step.error !== undefined) return Effect.fail(step.error)
    return last?._tag === "Completed"
      ? Effect.succeed(last.completion)
      : Effect.fail(SvirError.make("Protocol", "the answer is not done"))
  },
  decoder: () => decoder(options),
})
