/**
 * A toy line protocol, to test the runner without a real codec. A stream is lines (ending in LF
 * or CRLF): `text <words>`, `think <words>` (reasoning from the source `reasoning`),
 * `think:<source> <words>`, `call <id> <name> <arguments>` (an id of `-` is made up),
 * `usage <input> <output>`, `end <finish>` (the answer is complete), `error <Kind> <server's
 * message>`. A whole response is JSON: `{"text", "finish", "calls", "usage"}` or
 * `{"error": Kind}`. A request is encoded as its fields in JSON, a file given as bytes failing
 * with an Attachment error.
 *
 * Options: `mode`; `maxCalls` (more calls are a ResponseLimit error); `bug`, which breaks the
 * codec on purpose: `"chunk-boundary"` ends a line at every chunk, `"release-then-fail"` gives a
 * Completed event before an error, `"no-completed"` never gives Completed, `"throw"` throws on a
 * call, `"keep-cr"` keeps the CR of a CRLF line ending in the text.
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
import type { Case } from "../../src/index.js"

interface ToyOptions {
  readonly mode: "strict" | "lenient"
  readonly maxCalls: number
  readonly bug: string | undefined
}

/** Reads the options a case gives, as a codec factory must: they come from JSON. */
const readOptions = (options: Case.CaseOptions): ToyOptions => ({
  mode: options.mode,
  maxCalls: typeof options.maxCalls === "number" ? options.maxCalls : Number.POSITIVE_INFINITY,
  bug: typeof options.bug === "string" ? options.bug : undefined,
})

const finishes: ReadonlyArray<string> = [
  "stop",
  "tool_calls",
  "length",
  "content_filter",
  "refusal",
]

const isKind = (word: string): word is SvirError.Kind =>
  (SvirError.kinds as ReadonlyArray<string>).includes(word)

interface Answer {
  text: string
  reasoning: string
  bySource: Map<string, string>
  calls: Array<ToolCall.ToolCall>
  usage: Completion.Usage | undefined
}

const makeDecoder = (options: ToyOptions): Codec.StreamDecoder => {
  const utf8 = new TextDecoder("utf-8", { fatal: true })
  const answer: Answer = {
    text: "",
    reasoning: "",
    bySource: new Map(),
    calls: [],
    usage: undefined,
  }
  let pending = ""
  let ended = false

  const fail = (
    events: Array<Event.Event>,
    kind: SvirError.Kind,
    message: string,
    serverMessage?: string,
  ) => {
    ended = true
    if (options.bug === "release-then-fail") events.push(Event.completed(complete("stop")))
    // Every kind a toy stream names here carries a server message, or takes none.
    const details = (serverMessage === undefined ? {} : { serverMessage }) as SvirError.Details<
      typeof kind
    >
    return { events, error: SvirError.make(kind, message, details) }
  }

  const complete = (finish: Completion.FinishReason): Completion.Completion =>
    Completion.make({
      text: answer.text,
      reasoning: answer.reasoning,
      reasoningBySource: [...answer.bySource].map(([source, text]) => ({ source, text })),
      calls: answer.calls,
      finish,
      usage: answer.usage,
    })

  const readLine = (raw: string, events: Array<Event.Event>): Codec.DecodeStep | undefined => {
    const line = options.bug === "keep-cr" ? raw : raw.replace(/\r$/, "")
    if (line.trim() === "") return undefined
    const [verb = "", ...words] = line.split(" ")
    const rest = words.join(" ")
    if (verb.startsWith("think:")) {
      const source = verb.slice("think:".length)
      answer.reasoning += rest
      answer.bySource.set(source, (answer.bySource.get(source) ?? "") + rest)
      events.push(Event.reasoningDelta(rest, source))
      return undefined
    }
    switch (verb) {
      case "text":
        answer.text += rest
        events.push(Event.textDelta(rest))
        return undefined
      case "think":
        return readLine(`think:reasoning ${rest}`, events)
      case "call": {
        if (options.bug === "throw") throw new Error("toy codec bug: calls are not supported")
        const [given = "", name = "", ...args] = words
        // "-" is a call the server sent without an id: the codec makes one up, as real ones do.
        const id = given === "-" ? `made_${Math.random().toString(36).slice(2, 10)}` : given
        const call = ToolCall.make(id, name, args.join(" "))
        if (answer.calls.length === options.maxCalls) {
          return fail(events, "ResponseLimit", `more than ${options.maxCalls} calls`)
        }
        events.push(Event.toolCallDelta({ index: answer.calls.length, ...call }))
        answer.calls.push(call)
        return undefined
      }
      case "usage": {
        const [input = 0, output = 0] = words.map(Number)
        answer.usage = { input, output, total: input + output }
        return undefined
      }
      case "end": {
        if (!finishes.includes(rest)) return fail(events, "Protocol", `unknown finish ${rest}`)
        ended = true
        if (options.bug !== "no-completed") {
          events.push(Event.completed(complete(rest as Completion.FinishReason)))
        }
        return { events, error: undefined }
      }
      case "error": {
        const [kind = "", ...message] = words
        return fail(
          events,
          isKind(kind) ? kind : "Server",
          `the server said ${rest}`,
          message.length === 0 ? undefined : message.join(" "),
        )
      }
      default:
        if (options.mode === "lenient") return undefined
        return fail(events, "Protocol", `unknown line ${JSON.stringify(line)}`)
    }
  }

  const readLines = (text: string): Codec.DecodeStep => {
    const events: Array<Event.Event> = []
    pending += text
    const lines = pending.split("\n")
    pending = lines.pop() ?? ""
    if (options.bug === "chunk-boundary") {
      lines.push(pending)
      pending = ""
    }
    for (const line of lines) {
      const step = readLine(line, events)
      if (step !== undefined) return step
    }
    return { events, error: undefined }
  }

  const decodeBytes = (bytes: Uint8Array, stream: boolean): string | undefined => {
    try {
      return utf8.decode(bytes, { stream })
    } catch {
      return undefined
    }
  }

  return {
    push: (bytes) => {
      const text = decodeBytes(bytes, true)
      return text === undefined ? fail([], "Protocol", "invalid UTF-8") : readLines(text)
    },
    finish: () => {
      const text = decodeBytes(new Uint8Array(), false)
      if (text === undefined) return fail([], "Protocol", "invalid UTF-8")
      const step = readLines(`${text}\n`)
      if (step.error !== undefined || ended) return step
      return fail([...step.events], "TruncatedStream", "the stream ended before `end`")
    },
    done: () => ended,
  }
}

interface ToyResponse {
  readonly text?: string
  readonly finish?: Completion.FinishReason
  readonly calls?: ReadonlyArray<ToolCall.ToolCall>
  readonly usage?: { readonly input: number; readonly output: number }
  readonly error?: string
}

const decodeResponse = (body: string): Effect.Effect<Completion.Completion, SvirError.SvirError> =>
  Effect.suspend(() => {
    let response: ToyResponse
    try {
      response = JSON.parse(body)
    } catch {
      return Effect.fail(SvirError.make("Protocol", "the body is not JSON"))
    }
    if (response.error !== undefined) {
      return Effect.fail(
        SvirError.make(isKind(response.error) ? response.error : "Server", response.error),
      )
    }
    if (response.finish === undefined) {
      return Effect.fail(SvirError.make("Protocol", "the body has no finish"))
    }
    const usage = response.usage
    return Effect.succeed(
      Completion.make({
        text: response.text ?? "",
        calls: response.calls ?? [],
        finish: response.finish,
        usage: usage && { ...usage, total: usage.input + usage.output },
      }),
    )
  })

const toyPart = (part: Message.Part): Effect.Effect<unknown, SvirError.SvirError> => {
  switch (part._tag) {
    case "Text":
      return Effect.succeed({ text: part.text })
    case "Image":
      return Effect.succeed(
        "url" in part ? { image: part.url } : { image: part.mediaType, bytes: [...part.data] },
      )
    case "File":
      return typeof part.data === "string"
        ? Effect.succeed({ file: part.name, media_type: part.mediaType, text: part.data })
        : Effect.fail(
            SvirError.make("Attachment", `${part.name} is not text`, { attachment: part.name }),
          )
    case "FileAt":
      return Effect.fail(SvirError.make("Unsupported", `${part.path} was not read`))
  }
}

const toyMessage = (
  message: Message.Message,
  sendReasoning: boolean,
): Effect.Effect<unknown, SvirError.SvirError> => {
  switch (message._tag) {
    case "User":
      return Effect.map(Effect.forEach(message.parts, toyPart), (parts) => ({
        role: "user",
        parts,
      }))
    case "Assistant":
      return Effect.succeed({
        role: "assistant",
        text: message.text,
        ...(sendReasoning ? { reasoning: message.reasoningBySource } : {}),
        calls: message.calls.map(({ id, name, arguments: args }) => ({ id, name, args })),
      })
    case "Tool":
      return Effect.succeed({
        role: "tool",
        call_id: message.result.callId,
        content: message.result.content,
        is_error: message.result.isError,
      })
  }
}

/** The request's fields as JSON; `lean` leaves out the sampling fields. */
const encode = (
  request: Request.Request,
  { stream, lean }: Codec.EncodeOptions,
): Effect.Effect<unknown, SvirError.SvirError> =>
  Effect.gen(function* () {
    const valid = yield* Request.validate(request)
    if (valid.contextTokens !== undefined && (valid.maxTokens ?? 0) >= valid.contextTokens) {
      return yield* SvirError.make("ContextOverflow", "no room for the answer")
    }
    const messages = yield* Effect.forEach(valid.messages, (message) =>
      toyMessage(message, valid.sendReasoning === true),
    )
    const sampling =
      lean === true
        ? {}
        : {
            ...(valid.temperature === undefined ? {} : { temperature: valid.temperature }),
            ...(valid.reasoningEffort === undefined ? {} : { effort: valid.reasoningEffort }),
          }
    return {
      model: valid.model,
      stream,
      ...(valid.system === undefined ? {} : { system: valid.system }),
      messages,
      ...(valid.tools.length === 0
        ? {}
        : {
            tools: valid.tools.map(({ name, description, inputSchema }) => ({
              name,
              description,
              schema: inputSchema,
            })),
          }),
      ...(valid.toolChoice._tag === "Auto" ? {} : { tool_choice: valid.toolChoice }),
      ...(valid.responseFormat === undefined ? {} : { format: valid.responseFormat }),
      ...(valid.maxTokens === undefined ? {} : { max_tokens: valid.maxTokens }),
      ...(valid.includeUsage === undefined ? {} : { usage: valid.includeUsage }),
      ...sampling,
    }
  })

/** The toy codec for the given options. */
export const make = (options: Case.CaseOptions): Codec.Codec => ({
  name: "toy-lines",
  path: "/toy",
  encode,
  decodeResponse,
  decoder: () => makeDecoder(readOptions(options)),
})
