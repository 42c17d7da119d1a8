/**
 * The Anthropic Messages codec: writes a request as the JSON body of `POST /v1/messages` and
 * reads the answer, whole or streamed. No I/O: any transport (fetch, undici, a proxy, a test)
 * sends the body and hands the bytes back. Its `http` says the rest of the wire: the key as
 * `x-api-key`, the API version header, Anthropic's error bodies (a 529 is retryable), the list of
 * models.
 *
 * @since 0.2.0
 */
import type { Codec, Completion, Event } from "@svir/core"
import { Codec as CoreCodec, Request, type SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import * as Encoder from "./internal/encode.js"
import * as Http from "./internal/http.js"
import * as Resolved from "./internal/options.js"
import { decodeResponse as decodeBody } from "./internal/response.js"
import { streamDecoder } from "./internal/streamDecoder.js"
import type * as WireOptionChecks from "./internal/wireOptions.js"
import type * as RequestBody from "./RequestBody.js"
import * as ServerError from "./ServerError.js"

/**
 * Options of the codec. Every one has a default.
 *
 * - `mode`: `"strict"` (the default) refuses what it would otherwise leave out of an answer
 *   (a server tool's blocks, citations, a delta of a type it does not know, a stream that ends
 *   after the stop reason but before `message_stop`); `"lenient"` leaves it out with a note in
 *   `Completion.notes`, reads bytes that are not UTF-8 as U+FFFD, and never drops a call
 *   (DECISIONS.md D13).
 * - `maxBytes`: the most bytes of one answer (default 64 MiB).
 * - `maxEventBytes`: the most bytes of one Server-Sent Event (default 4 MiB).
 * - `maxCalls`: the most calls in one answer (default 128).
 * - `defaultMaxTokens`: `max_tokens` for a request that sets none, which the API requires
 *   (default 4096; the thinking budget is added to it, D3).
 * - `thinkingBudgets`: the thinking budget of each `Request.reasoningEffort` (default `minimal`
 *   1024, `low` 1024, `medium` 2048, `high` 4096, D4).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly mode?: "strict" | "lenient" | undefined
  readonly maxBytes?: number | undefined
  readonly maxEventBytes?: number | undefined
  readonly maxCalls?: number | undefined
  readonly defaultMaxTokens?: number | undefined
  readonly thinkingBudgets?: Partial<Record<Resolved.ThinkingEffort, number>> | undefined
}

/** The options with every default filled in. */
const resolveOptions = (options: Options | undefined): Resolved.Resolved => ({
  lenient: options?.mode === "lenient",
  maxBytes: options?.maxBytes ?? Resolved.defaultMaxBytes,
  maxEventBytes: options?.maxEventBytes ?? Resolved.defaultMaxEventBytes,
  maxCalls: options?.maxCalls ?? Resolved.defaultMaxCalls,
  defaultMaxTokens: options?.defaultMaxTokens ?? Resolved.defaultMaxTokens,
  thinkingBudgets: { ...Resolved.defaultThinkingBudgets, ...options?.thinkingBudgets },
})

const defaults = resolveOptions(undefined)

/**
 * The codec's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name: string = Encoder.codecName

/**
 * The endpoint below the base URL (`https://api.anthropic.com/v1`).
 *
 * @since 0.2.0
 * @category constants
 */
export const path = "/messages"

/**
 * `max_tokens` for a request that sets none: 4096, the smallest output limit of any Claude model,
 * and what LiteLLM and Vercel's AI SDK (for a model it does not know) send (D3).
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultMaxTokens: number = Resolved.defaultMaxTokens

/**
 * The thinking budget of each reasoning effort, LiteLLM's (D4): `minimal` and `low` 1024 (the
 * API's minimum), `medium` 2048, `high` 4096. `none` turns thinking off.
 *
 * @since 0.2.0
 * @category constants
 */
export const thinkingBudgets: Readonly<Record<Resolved.ThinkingEffort, number>> =
  Resolved.defaultThinkingBudgets

/**
 * The fields lean encoding leaves out: `metadata` (the end user) and `service_tier`, which a
 * server may refuse and the answer does not depend on, also when they come from `Request.extra`
 * (D6).
 *
 * @since 0.2.0
 * @category constants
 */
export const optionalFields: ReadonlyArray<string> = Encoder.optionalFields

/**
 * The request fields the codec handles. `Request.unclaimed` refuses any other field a request
 * sets (a seed, a presence or frequency penalty) with an Unsupported error, before anything is
 * sent (D5). `includeUsage` is claimed: the API reports usage in every answer.
 *
 * @since 0.2.0
 * @category constants
 */
export const fields: ReadonlyArray<Request.Field> = Encoder.fields

/**
 * The options only the Messages API has, given to this codec on a request with {@link options}
 * (D8):
 *
 * - `user`: `metadata.user_id`, an id of the end user (a hash of their account, say) for
 *   Anthropic's abuse detection;
 * - `serviceTier`: `service_tier`, `"auto"` (priority capacity when there is some) or
 *   `"standard_only"`;
 * - `thinkingBudget`: extended thinking on with this `budget_tokens` (1024 or more), in place of
 *   the budget of `Request.reasoningEffort` (set one of the two);
 * - `topK`: `top_k`.
 *
 * @since 0.2.0
 * @category models
 */
export type WireOptions = WireOptionChecks.Options

/**
 * Gives a request options only the Messages API has (see {@link WireOptions}), under this codec's
 * name (`Request.codecOptions("anthropic-messages", ...)`); other codecs ignore them. The encoder
 * checks them: a key or a value it does not know is an Unsupported error.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 * import { AnthropicCodec } from "@svir/anthropic"
 *
 * Request.make("claude-sonnet-4-5").pipe(
 *   AnthropicCodec.options({ user: "user-5f2a", thinkingBudget: 8000 }),
 *   Request.user("Plan the trip."),
 * )
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const options = (wire: WireOptions): ((self: Request.Request) => Request.Request) =>
  Request.codecOptions(Encoder.codecName, { ...wire })

/**
 * The HTTP facts of the Messages API, which `make` gives its codec: the provider `anthropic`,
 * the base URL `https://api.anthropic.com/v1`, the `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL`
 * variables, the key as `x-api-key` with `anthropic-version: 2023-06-01`, error answers read by
 * `ServerError.readError` (a 529 is a retryable Transport error, a 429 RateLimited, a prompt too
 * long a ContextOverflow), and the list of models at `/models?limit=1000` (D19).
 *
 * @example
 * ```ts
 * import { AnthropicCodec } from "@svir/anthropic"
 *
 * AnthropicCodec.http.headers?.("sk-ant-1")
 * // { "x-api-key": "sk-ant-1", "anthropic-version": "2023-06-01" }
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const http: Partial<Codec.Http> = {
  provider: "anthropic",
  baseUrl: "https://api.anthropic.com/v1",
  environment: { apiKey: "ANTHROPIC_API_KEY", baseUrl: "ANTHROPIC_BASE_URL" },
  headers: Http.headers,
  readError: ServerError.readError,
  models: {
    path: "/models",
    query: { limit: String(Http.modelsPageSize) },
    decode: Http.decodeModels,
  },
}

/**
 * Writes a request as the JSON body of `POST /v1/messages`, after `Request.validate`. Fails
 * before anything is sent:
 *
 * - Unsupported, for what the wire cannot carry: a field it does not claim (a seed, a presence
 *   or frequency penalty: see {@link fields}), an option of `options` it does not know, a
 *   temperature above 1, a JSON response format without a schema (or with a description), a call
 *   without its result, arguments that are not a JSON object, a file that is not a PDF, an image
 *   or text, a file by path that was not read, `max_tokens` no larger than the thinking budget,
 *   and `Request.sendReasoning(true)` for reasoning that has no signed thinking blocks (D5, D9);
 * - Attachment, for a text file whose bytes are not UTF-8;
 * - Config, for a `Request.extra` field the encoder writes itself (D7), or both a reasoning
 *   effort and the `thinkingBudget` option;
 * - ContextOverflow, when the request sets `contextTokens` and the body's UTF-8 bytes plus
 *   `max_tokens` do not fit.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Request } from "@svir/core"
 * import { AnthropicCodec } from "@svir/anthropic"
 *
 * const request = Request.make("claude-sonnet-4-5").pipe(Request.system("Be brief."), Request.user("Hi"))
 * const body = Effect.runSync(AnthropicCodec.encode(request, { stream: true }))
 * // { model: "claude-sonnet-4-5", max_tokens: 4096, system: "Be brief.", messages: [...], stream: true }
 * body.max_tokens // 4096
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
 * same answer (D10). An error body (`{"type": "error", ...}`) gives the error its type stands for
 * (`ServerError.kindOf`), with the server's words in `serverMessage`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AnthropicCodec } from "@svir/anthropic"
 *
 * const body = JSON.stringify({
 *   id: "msg_1",
 *   type: "message",
 *   role: "assistant",
 *   model: "claude-sonnet-4-5",
 *   content: [{ type: "text", text: "Paris." }],
 *   stop_reason: "end_turn",
 *   usage: { input_tokens: 10, output_tokens: 3 },
 * })
 * const completion = Effect.runSync(AnthropicCodec.decodeResponse(body))
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
 * calls are released only in the last event, `Completed`, after `message_stop`.
 *
 * @example
 * ```ts
 * import { AnthropicCodec } from "@svir/anthropic"
 *
 * const decoder = AnthropicCodec.decoder()
 * const bytes = new TextEncoder().encode(
 *   'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}\n\n' +
 *     'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
 *     'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n' +
 *     'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
 *     'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n' +
 *     'event: message_stop\ndata: {"type":"message_stop"}\n\n',
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
 * import { AnthropicCodec } from "@svir/anthropic"
 *
 * const codec = AnthropicCodec.make({ mode: "lenient", defaultMaxTokens: 8192 })
 * codec.path // "/messages"
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
 * import { AnthropicCodec } from "@svir/anthropic"
 *
 * declare const body: Stream.Stream<Uint8Array>
 * const events = AnthropicCodec.decodeStream(body) // Stream<Event, SvirError>
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
