/**
 * The OpenAI Responses codec: writes a request as the JSON body of `POST /v1/responses` and reads
 * the answer, whole or streamed. No I/O: any transport (fetch, undici, a proxy, a test) sends the
 * body and hands the bytes back. Stateless by default (`store: false`): the whole conversation
 * goes with every request, reasoning items and their `encrypted_content` included. Its `http`
 * says the rest of the wire: the key as a bearer token, the error bodies and in-stream error
 * events, the list of models.
 *
 * @since 0.2.0
 */
import type { Codec, Completion, Event } from "@svir/core"
import { Codec as CoreCodec, Request, type SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import * as Encoder from "./internal/encode.js"
import * as Resolved from "./internal/options.js"
import { decodeResponse as decodeBody } from "./internal/response.js"
import { streamDecoder } from "./internal/streamDecoder.js"
import type * as WireOptionChecks from "./internal/wireOptions.js"
import type * as RequestBody from "./RequestBody.js"
import * as ServerError from "./ServerError.js"

/**
 * Options of the codec. Every one has a default.
 *
 * - `mode`: `"strict"` (the default) refuses what it would otherwise leave out of an answer (an
 *   output item of a built-in tool, a content part it does not know); `"lenient"` leaves it out
 *   with a note in `Completion.notes`, reads bytes that are not UTF-8 as U+FFFD, and never drops
 *   a call.
 * - `maxBytes`: the most bytes of one answer (default 64 MiB).
 * - `maxEventBytes`: the most bytes of one Server-Sent Event (default 4 MiB).
 * - `maxCalls`: the most calls in one answer (default 128).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly mode?: "strict" | "lenient" | undefined
  readonly maxBytes?: number | undefined
  readonly maxEventBytes?: number | undefined
  readonly maxCalls?: number | undefined
}

/** The options with every default filled in. */
const resolveOptions = (options: Options | undefined): Resolved.Resolved => ({
  lenient: options?.mode === "lenient",
  maxBytes: options?.maxBytes ?? Resolved.defaultMaxBytes,
  maxEventBytes: options?.maxEventBytes ?? Resolved.defaultMaxEventBytes,
  maxCalls: options?.maxCalls ?? Resolved.defaultMaxCalls,
})

const defaults = resolveOptions(undefined)

/**
 * The codec's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name: string = Resolved.codecName

/**
 * The endpoint below the base URL (`https://api.openai.com/v1`).
 *
 * @since 0.2.0
 * @category constants
 */
export const path = "/responses"

/**
 * The fields lean encoding leaves out, which a server may refuse and the answer does not depend
 * on, also when they come from `Request.extra`.
 *
 * @since 0.2.0
 * @category constants
 */
export const optionalFields: ReadonlyArray<string> = Encoder.optionalFields

/**
 * The request fields the codec handles. `Request.unclaimed` refuses any other field a request
 * sets with an Unsupported error, before anything is sent.
 *
 * @since 0.2.0
 * @category constants
 */
export const fields: ReadonlyArray<Request.Field> = Encoder.fields

/**
 * The options only the Responses API has, given to this codec on a request with {@link options}.
 *
 * @since 0.2.0
 * @category models
 */
export type WireOptions = WireOptionChecks.Options

/**
 * Gives a request options only the Responses API has (see {@link WireOptions}), under this
 * codec's name (`Request.codecOptions("openai-responses", ...)`); other codecs ignore them. The
 * encoder checks them: a key or a value it does not know is an Unsupported error.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 * import { ResponsesCodec } from "@svir/openai-responses"
 *
 * Request.make("gpt-5").pipe(
 *   ResponsesCodec.options({ previousResponseId: "resp_123" }),
 *   Request.user("And in Celsius?"),
 * )
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const options = (wire: WireOptions): ((self: Request.Request) => Request.Request) =>
  Request.codecOptions(Resolved.codecName, { ...wire })

/**
 * The HTTP facts of the Responses API, which `make` gives its codec: the provider `openai`, the
 * base URL `https://api.openai.com/v1`, the `OPENAI_API_KEY` and `OPENAI_BASE_URL` variables, the
 * key as `Authorization: Bearer`, error answers read by `ServerError.readError`, and the list of
 * models at `/models`.
 *
 * @example
 * ```ts
 * import { ResponsesCodec } from "@svir/openai-responses"
 *
 * ResponsesCodec.http.provider // "openai"
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const http: Partial<Codec.Http> = {
  provider: "openai",
  baseUrl: "https://api.openai.com/v1",
  environment: { apiKey: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" },
  readError: ServerError.readError,
  models: CoreCodec.openAiModels,
}

/**
 * Writes a request as the JSON body of `POST /v1/responses`, after `Request.validate`. Fails
 * before anything is sent, with Unsupported for what the wire cannot carry (a field it does not
 * claim, an option it does not know), never dropping it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Request } from "@svir/core"
 * import { ResponsesCodec } from "@svir/openai-responses"
 *
 * const request = Request.make("gpt-5").pipe(Request.system("Be brief."), Request.user("Hi"))
 * const body = Effect.runSync(ResponsesCodec.encode(request, { stream: true }))
 * body.store // false
 * ```
 *
 * @since 0.2.0
 * @category encoding
 */
export const encode = (
  request: Request.Request,
  encodeOptions: Codec.EncodeOptions = { stream: false },
  options?: Options,
): Effect.Effect<RequestBody.RequestBody, SvirError.SvirError> =>
  Effect.flatMap(Request.validate(request), (valid) =>
    Effect.fromResult(
      Encoder.encodeBody(
        valid,
        encodeOptions,
        options === undefined ? defaults : resolveOptions(options),
      ),
    ),
  )

/**
 * Reads a whole (non-streamed) response body into a Completion, as the stream decoder reads the
 * same answer. A failed response or an error body gives the error its code stands for, with the
 * server's words in `serverMessage`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ResponsesCodec } from "@svir/openai-responses"
 *
 * const body = JSON.stringify({
 *   id: "resp_1",
 *   object: "response",
 *   status: "completed",
 *   model: "gpt-5",
 *   output: [
 *     {
 *       type: "message",
 *       id: "msg_1",
 *       role: "assistant",
 *       status: "completed",
 *       content: [{ type: "output_text", text: "Paris.", annotations: [] }],
 *     },
 *   ],
 *   usage: { input_tokens: 10, output_tokens: 3, total_tokens: 13 },
 * })
 * const completion = Effect.runSync(ResponsesCodec.decodeResponse(body))
 * completion.text // "Paris."
 * ```
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeResponse = (
  body: string,
  options?: Options,
): Effect.Effect<Completion.Completion, SvirError.SvirError> =>
  Effect.suspend(() => Effect.fromResult(decodeBody(body, resolveOptions(options))))

/**
 * A fresh synchronous decoder for one streamed answer: `push(bytes)` gives the events those bytes
 * complete, `finish()` ends the input. The outcome never depends on how the bytes were chunked;
 * calls are released only in the last event, `Completed`, after `response.completed` (or
 * `response.incomplete`).
 *
 * @example
 * ```ts
 * import { ResponsesCodec } from "@svir/openai-responses"
 *
 * const decoder = ResponsesCodec.decoder()
 * const bytes = new TextEncoder().encode(
 *   'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","sequence_number":1}\n\n' +
 *     'event: response.completed\ndata: {"type":"response.completed","sequence_number":2,"response":{"id":"resp_1","object":"response","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Hi","annotations":[]}]}]}}\n\n',
 * )
 * const step = decoder.push(bytes) // events: TextDelta "Hi", then Completed
 * ```
 *
 * @since 0.2.0
 * @category decoding
 */
export const decoder = (options?: Options): Codec.StreamDecoder =>
  streamDecoder(options === undefined ? defaults : resolveOptions(options))

/**
 * The codec, for any transport that takes a core `Codec`.
 *
 * @example
 * ```ts
 * import { ResponsesCodec } from "@svir/openai-responses"
 *
 * const codec = ResponsesCodec.make({ mode: "lenient" })
 * codec.path // "/responses"
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options?: Options): Codec.Codec => {
  const resolved = resolveOptions(options)
  return {
    name,
    path,
    encode: (request, encodeOptions) =>
      Effect.flatMap(Request.validate(request), (valid) =>
        Effect.fromResult(Encoder.encodeBody(valid, encodeOptions, resolved)),
      ),
    decodeResponse: (body) => Effect.suspend(() => Effect.fromResult(decodeBody(body, resolved))),
    decoder: () => streamDecoder(resolved),
    http,
    fields,
  }
}

/**
 * Decodes a stream of response bytes into events. The stream ends after `Completed` without
 * reading further bytes; an error comes after every event decoded before it.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { ResponsesCodec } from "@svir/openai-responses"
 *
 * declare const body: Stream.Stream<Uint8Array>
 * const events = ResponsesCodec.decodeStream(body) // Stream<Event, SvirError>
 * ```
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeStream = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
  options?: Options,
): Stream.Stream<Event.Event, E | SvirError.SvirError, R> =>
  CoreCodec.decodeStream(make(options), bytes)
