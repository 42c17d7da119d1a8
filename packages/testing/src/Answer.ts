/**
 * What a scripted server answers to one request: a reply (text, calls, reasoning), an HTTP error,
 * raw bytes, or nothing at all. Each answer of a script is used by exactly one request.
 *
 * @since 0.2.0
 * @module
 */

/**
 * A call the scripted model makes. `arguments` is the JSON text sent (an object is written as
 * JSON); it defaults to `"{}"`. `id` defaults to a fresh `call_<n>` (`toolu_<n>` on Messages); on
 * Responses it is the item's `call_id`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Call {
  readonly name: string
  readonly arguments?: string | { readonly [key: string]: unknown } | undefined
  readonly id?: string | undefined
}

/**
 * The quirks of real servers and the faults of real networks, on request. Each one is off unless
 * set. Set them on one answer, or on the server for every reply. Those of Chat Completions' chunks
 * (`parallelAtIndexZero`, `missingIds`, `argumentsAsObject`, `wholeCallInOneChunk`, `noDone`,
 * `reasoningField`) are not used on Messages and Responses; `keepAliveComments` is not used on
 * Messages.
 *
 * @since 0.2.0
 * @category models
 */
export interface Quirks {
  /** Parallel calls all at `index: 0`, each whole in one chunk with its own id (Ollama #15457). */
  readonly parallelAtIndexZero?: boolean | undefined
  /** Calls without an `id` (vLLM streaming #18412, some DeepSeek and GLM hosts). */
  readonly missingIds?: boolean | undefined
  /** `function.arguments` as a JSON object, not a string (llama.cpp #20198, Ollama #6155). */
  readonly argumentsAsObject?: boolean | undefined
  /** Each call whole, arguments included, in one chunk instead of fragments (Ollama, vLLM). */
  readonly wholeCallInOneChunk?: boolean | undefined
  /** The stream ends without `data: [DONE]` (llama.cpp). */
  readonly noDone?: boolean | undefined
  /** A `: keep-alive` comment before every event (mlx-lm). */
  readonly keepAliveComments?: boolean | undefined
  /** Lines end in CRLF instead of LF. */
  readonly crlf?: boolean | undefined
  /** The field that carries reasoning: `reasoning_content` (DeepSeek, vLLM; the default) or `reasoning` (Ollama, OpenRouter). */
  readonly reasoningField?: "reasoning_content" | "reasoning" | undefined
  /** A streamed request gets a 200 with the whole answer as `application/json`, not an event stream. */
  readonly notEventStream?: boolean | undefined
  /** Waits this long after the headers before the first event (a slow first token). */
  readonly firstTokenDelayMillis?: number | undefined
  /** Waits this long between events. */
  readonly eventDelayMillis?: number | undefined
  /** Resets the connection after this many events (0: right after the headers). */
  readonly resetAfterEvents?: number | undefined
  /** Stops writing after this many events and holds the connection open until the client leaves. */
  readonly stallAfterEvents?: number | undefined
}

/**
 * How a reply is shaped, beyond its content.
 *
 * @since 0.2.0
 * @category models
 */
export interface ReplyOptions {
  /**
   * The finish reason; `tool_calls` when there are calls, else `stop`. On Responses, `length` and
   * `content_filter` make the response `incomplete` (`max_output_tokens`, `content_filter`).
   */
  readonly finish?: "stop" | "tool_calls" | "length" | "content_filter" | undefined
  /**
   * Token counts; estimated from the lengths of the texts when not given. On Responses, the
   * `reasoning_tokens` within `output` are estimated from the reasoning's length.
   */
  readonly usage?: { readonly input: number; readonly output: number } | undefined
  /** Characters per streamed piece of text, reasoning or arguments (default: the server's, 8). */
  readonly chunkSize?: number | undefined
  /** Quirks and faults of this answer, over those of the server. */
  readonly quirks?: Quirks | undefined
}

/**
 * An answer of the model: text, reasoning and calls. Streamed in the events of the wire the request
 * was posted to (Chat Completions chunks, Messages or Responses events) when the request asks for a
 * stream, else one JSON body.
 *
 * @since 0.2.0
 * @category models
 */
export interface Reply {
  readonly _tag: "Reply"
  readonly text: string
  readonly reasoning: string
  readonly calls: ReadonlyArray<Call>
  readonly options: ReplyOptions
}

/**
 * An HTTP answer with a status, a body and headers, such as a 401 or a 429 with `Retry-After`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Status {
  readonly _tag: "Status"
  readonly status: number
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
  /** Sends the headers and never the body, holding the connection open. */
  readonly stallBody: boolean
}

/**
 * Bytes sent as given, for replaying a recorded answer: the pieces are written one by one.
 *
 * @since 0.2.0
 * @category models
 */
export interface Raw {
  readonly _tag: "Raw"
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly pieces: ReadonlyArray<string>
  readonly delayMillis: number
  /**
   * Sent with `connection: close` and neither `content-length` nor chunked framing: the body ends
   * when the server closes the connection, as HTTP/1.0 servers and some proxies send it.
   */
  readonly closeDelimited: boolean
  /** After the last piece, the connection is held open, silent, until the client leaves. */
  readonly holdOpen: boolean
}

/**
 * No answer at all: the request is read and the connection held open until the client leaves.
 *
 * @since 0.2.0
 * @category models
 */
export interface Hang {
  readonly _tag: "Hang"
}

/**
 * One answer of a script.
 *
 * @since 0.2.0
 * @category models
 */
export type Answer = Reply | Status | Raw | Hang

/**
 * A reply with any of text, reasoning and calls.
 *
 * @example
 * ```ts
 * import { Answer } from "@svir/testing"
 *
 * Answer.reply({
 *   reasoning: "The user wants the time.",
 *   text: "Let me check.",
 *   calls: [{ name: "now" }],
 * })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const reply = (
  content: {
    readonly text?: string | undefined
    readonly reasoning?: string | undefined
    readonly calls?: ReadonlyArray<Call> | undefined
  },
  options: ReplyOptions = {},
): Reply => ({
  _tag: "Reply",
  text: content.text ?? "",
  reasoning: content.reasoning ?? "",
  calls: content.calls ?? [],
  options,
})

/**
 * A reply of text only.
 *
 * @example
 * ```ts
 * import { Answer } from "@svir/testing"
 *
 * Answer.text("Hi")
 * Answer.text("Hi", { quirks: { noDone: true } })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const text = (text: string, options: ReplyOptions = {}): Reply => reply({ text }, options)

/**
 * A reply that calls tools.
 *
 * @example
 * ```ts
 * import { Answer } from "@svir/testing"
 *
 * Answer.toolCalls([{ name: "lookup", arguments: { id: 42 } }, { name: "now" }])
 * Answer.toolCalls([{ name: "lookup", arguments: '{"id":42}' }], { quirks: { missingIds: true } })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const toolCalls = (calls: ReadonlyArray<Call>, options: ReplyOptions = {}): Reply =>
  reply({ calls }, options)

/**
 * An HTTP answer. A body that is not a string is sent as JSON; a string is sent as
 * `text/plain` unless the headers say otherwise.
 *
 * @example
 * ```ts
 * import { Answer } from "@svir/testing"
 *
 * Answer.status(429, { error: { message: "slow down" } }, { headers: { "retry-after": "2" } })
 * Answer.status(401, "no key", { stallBody: true })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const status = (
  code: number,
  body: unknown = "",
  options: {
    readonly headers?: Readonly<Record<string, string>> | undefined
    readonly stallBody?: boolean | undefined
  } = {},
): Status => {
  const isText = typeof body === "string"
  return {
    _tag: "Status",
    status: code,
    body: isText ? body : JSON.stringify(body),
    headers: {
      "content-type": isText ? "text/plain; charset=utf-8" : "application/json",
      ...lowerCaseKeys(options.headers ?? {}),
    },
    stallBody: options.stallBody ?? false,
  }
}

/**
 * An HTTP error in the shape OpenAI uses on Chat Completions and Responses:
 * `{"error": {"message", "type", "code", "param"}}`.
 *
 * @example
 * ```ts
 * import { Answer } from "@svir/testing"
 *
 * Answer.error(400, "This model's maximum context length is 8192 tokens", {
 *   code: "context_length_exceeded",
 * })
 * Answer.error(400, "Invalid type for 'input'", { param: "input" })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const error = (
  code: number,
  message: string,
  options: {
    readonly code?: string | undefined
    readonly type?: string | undefined
    /** The request parameter the error is about (default `null`). */
    readonly param?: string | undefined
    readonly headers?: Readonly<Record<string, string>> | undefined
    readonly stallBody?: boolean | undefined
  } = {},
): Status =>
  status(
    code,
    {
      error: {
        message,
        type: options.type ?? "invalid_request_error",
        code: options.code ?? null,
        param: options.param ?? null,
      },
    },
    { headers: options.headers, stallBody: options.stallBody },
  )

/**
 * Bytes sent as given: a recorded stream, or anything a test needs. The pieces are written one by
 * one, `delayMillis` apart. The default status is 200 and the default content type
 * `text/event-stream`. `closeDelimited` ends the body by closing the connection (no
 * `content-length`, no chunks); `holdOpen` keeps the connection open after the last piece, for a
 * stream that stalls or an error body that never ends.
 *
 * @example
 * ```ts
 * import { Answer } from "@svir/testing"
 *
 * Answer.raw(['data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n', "data: [DONE]\n\n"])
 * // one event, then silence until the client gives up
 * Answer.raw('data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n', { holdOpen: true })
 * // a 401 whose body never comes
 * Answer.raw("", { status: 401, headers: { "content-type": "application/json" }, holdOpen: true })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const raw = (
  pieces: string | ReadonlyArray<string>,
  options: {
    readonly status?: number | undefined
    readonly headers?: Readonly<Record<string, string>> | undefined
    readonly delayMillis?: number | undefined
    /** @since 0.2.0 */
    readonly closeDelimited?: boolean | undefined
    /** @since 0.2.0 */
    readonly holdOpen?: boolean | undefined
  } = {},
): Raw => ({
  _tag: "Raw",
  status: options.status ?? 200,
  headers: {
    "content-type": "text/event-stream",
    ...lowerCaseKeys(options.headers ?? {}),
  },
  pieces: typeof pieces === "string" ? [pieces] : pieces,
  delayMillis: options.delayMillis ?? 0,
  closeDelimited: options.closeDelimited ?? false,
  holdOpen: options.holdOpen ?? false,
})

/**
 * No answer: the connection stays open, silent, until the client gives up. For connect
 * timeouts and interruption.
 *
 * @since 0.2.0
 * @category constructors
 */
export const hang: Hang = { _tag: "Hang" }

const lowerCaseKeys = (
  headers: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> =>
  Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]))
