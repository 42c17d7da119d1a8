/**
 * The Chat Completions codec: writes a request as the JSON body of `POST /chat/completions` and
 * reads the answer, whole or streamed. No I/O: any transport (fetch, undici, a proxy, a test)
 * sends the body and hands the bytes back.
 *
 * @since 0.2.0
 * @module
 */
import type { Codec, Completion, Event, Request } from "@svir/core"
import { Codec as CoreCodec, Request as CoreRequest, type SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Result from "effect/Result"
import type * as Stream from "effect/Stream"
import * as Encoder from "./internal/encode.js"
import * as Http from "./internal/http.js"
import * as DecoderOptions from "./internal/options.js"
import * as OptionChecks from "./internal/requestOptions.js"
import { decodeResponse as decodeBody } from "./internal/response.js"
import { StreamDecoder } from "./internal/streamDecoder.js"
import type * as RequestBody from "./RequestBody.js"

/**
 * Options of the codec. Every one has a default.
 *
 * - `mode`: `"strict"` (the default) fails on any wire shape that is not Chat Completions;
 *   `"lenient"` carries on where it safely can (invalid UTF-8 becomes U+FFFD, arguments sent as a
 *   JSON object are read, a call index sent as digits or as anything odd still places the call,
 *   unknown shapes and finish reasons are skipped or read as `stop`), and never drops a call.
 * - `maxBytes`: the most bytes of one streamed answer (default 64 MiB).
 * - `maxEventBytes`: the most bytes of one Server-Sent Event (default 4 MiB).
 * - `maxCalls`: the most calls in one answer (default 128).
 * - `makeCallId`: makes the id of a call the server sent without one (default: 9 random letters
 *   and digits, the form Mistral templates require).
 * - `think`: `"split"` (the default) reads `<think>...</think>` in the content as reasoning, under
 *   the source `think`, for servers with no reasoning parser; `"keep"` leaves it in the text
 *   (DECISIONS.md D34).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly mode?: "strict" | "lenient" | undefined
  readonly maxBytes?: number | undefined
  readonly maxEventBytes?: number | undefined
  readonly maxCalls?: number | undefined
  readonly makeCallId?: (() => string) | undefined
  readonly think?: "split" | "keep" | undefined
}

/** The options with every default filled in. */
const resolveOptions = (options: Options | undefined): DecoderOptions.Resolved => ({
  lenient: options?.mode === "lenient",
  maxBytes: options?.maxBytes ?? DecoderOptions.defaultMaxBytes,
  maxEventBytes: options?.maxEventBytes ?? DecoderOptions.defaultMaxEventBytes,
  maxCalls: options?.maxCalls ?? DecoderOptions.defaultMaxCalls,
  makeCallId: options?.makeCallId ?? DecoderOptions.randomCallId,
  splitThink: options?.think !== "keep",
})

/**
 * The codec's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "openai-chat"

/**
 * The endpoint below the base URL.
 *
 * @since 0.2.0
 * @category constants
 */
export const path = "/chat/completions"

/**
 * How the server processes the request (`service_tier`): the project's default (`auto`),
 * standard, cheaper and slower (`flex`), or faster (`priority`). The official client's set; a tier
 * of another server's (Groq's `on_demand`) goes in `Request.extra`.
 *
 * @since 0.2.0
 * @category models
 */
export type ServiceTier = "auto" | "default" | "flex" | "scale" | "priority" | "fast"

/**
 * The options of a request that only Chat Completions has, given with {@link options}; each one
 * is sent only when given (D48, D66), and checked before anything is sent:
 *
 * - `logitBias` (`logit_bias`): a bias from -100 (never) to 100 (only that token) added to the
 *   logit of each token, by its id in the model's tokenizer; values near ±1 nudge.
 * - `logprobs` (`logprobs`): asks for the log probability of each token of the answer
 *   (`Completion.logprobs`, and a `LogprobsDelta` event as they stream).
 * - `topLogprobs` (`top_logprobs`): how many likeliest tokens to give at each position, a whole
 *   number from 0 to 20, with `logprobs: true`.
 * - `serviceTier` (`service_tier`): the processing tier, on servers that have tiers.
 * - `prediction` (`prediction`): text most of the answer is expected to repeat (a file to be
 *   edited a little), so that a server with predicted outputs answers faster.
 * - `user` (`user`): a stable id of the end user (a hash of their account, say), which some
 *   servers use to detect abuse and to cache prompts; not blank.
 *
 * Lean encoding leaves out `service_tier`, `user` and `prediction` ({@link optionalFields}).
 *
 * @since 0.2.0
 * @category models
 */
export interface RequestOptions {
  readonly logitBias?: Readonly<Record<number, number>> | undefined
  readonly logprobs?: boolean | undefined
  readonly topLogprobs?: number | undefined
  readonly serviceTier?: ServiceTier | undefined
  readonly prediction?: string | undefined
  readonly user?: string | undefined
}

/**
 * Gives a request options only Chat Completions has (see {@link RequestOptions}), under the
 * codec's name with `Request.codecOptions`: each call merges over the options given before. Another
 * codec ignores them, so the same request can go to another wire.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 * import { OpenAiCodec } from "@svir/openai-codec"
 *
 * const request = Request.make("gpt-4o-mini").pipe(
 *   Request.user("Hi"),
 *   OpenAiCodec.options({ serviceTier: "flex", user: "user-5f2a" }),
 *   // Ids of the model's own tokenizer: never token 50256.
 *   OpenAiCodec.options({ logitBias: { 50256: -100 }, logprobs: true, topLogprobs: 3 }),
 * )
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const options: {
  (options: RequestOptions): (self: Request.Request) => Request.Request
  (self: Request.Request, options: RequestOptions): Request.Request
} = dual(2, (self: Request.Request, options: RequestOptions) =>
  CoreRequest.codecOptions(self, name, { ...options }),
)

/**
 * The request fields the codec handles: every one core has today. Each is sent, or refused when
 * the wire cannot carry its value; `contextTokens` is not sent but checked against the body
 * (D42). A field core adds later is refused (`Request.unclaimed`) until the codec claims it.
 *
 * @since 0.2.0
 * @category constants
 */
export const fields: ReadonlyArray<Request.Field> = [
  "system",
  "tools",
  "toolChoice",
  "maxTokens",
  "temperature",
  "responseFormat",
  "reasoningEffort",
  "includeUsage",
  "sendReasoning",
  "contextTokens",
  "seed",
  "topP",
  "stop",
  "presencePenalty",
  "frequencyPenalty",
  "parallelToolCalls",
  "extra",
]

const claimed: ReadonlySet<Request.Field> = new Set(fields)

/**
 * The HTTP facts of Chat Completions, which `make` gives its codec: the key as
 * `Authorization: Bearer`, OpenAI's base URL and the `OPENAI_API_KEY` and `OPENAI_BASE_URL`
 * variables, the provider `openai` (the OpenTelemetry conventions name any OpenAI-compatible
 * server so), the list of models at `/models`, and error answers read by `ServerError`: a 400,
 * 413 or 422 that says the context window is exceeded is a ContextOverflow, one with code
 * `content_filter` a ContentFilter (DECISIONS.md D65). A codec of your own for an
 * OpenAI-compatible wire can give it as its `http`.
 *
 * @example
 * ```ts
 * import { Codec } from "@svir/core"
 * import { OpenAiCodec } from "@svir/openai-codec"
 *
 * Codec.http(OpenAiCodec.make()).readError({
 *   status: 400,
 *   headers: {},
 *   body: '{"error":{"code":"context_length_exceeded"}}',
 * })
 * // { kind: "ContextOverflow", words: undefined }
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const http: Partial<Codec.Http> = {
  provider: "openai",
  baseUrl: "https://api.openai.com/v1",
  environment: { apiKey: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" },
  readError: Http.readError,
  models: CoreCodec.openAiModels,
}

/**
 * What a failed tool result's content is prefixed with: Chat Completions has no field that marks
 * a failed call. Added by the encoder only (DECISIONS.md D4).
 *
 * @since 0.2.0
 * @category constants
 */
export const errorPrefix: string = Encoder.errorPrefix

/**
 * What a tool result with empty or blank content is sent as (DECISIONS.md D5).
 *
 * @since 0.2.0
 * @category constants
 */
export const emptyResultContent: string = Encoder.emptyResultContent

/**
 * The fields lean encoding leaves out: `reasoning_effort`, `service_tier`, `user`, `prediction`
 * and `stream_options`, which a strict server may refuse and the answer does not depend on,
 * also when they come from `Request.extra`. A tool choice, a response format and the sampling
 * options are requirements and are never left out (DECISIONS.md D40, D48).
 *
 * @since 0.2.0
 * @category constants
 */
export const optionalFields: ReadonlyArray<string> = Encoder.optionalFields

/**
 * Writes a request as the JSON body of `POST /chat/completions`, after `Request.validate`. The
 * body carries what the request sets and nothing implied (D41). Fails before anything is sent:
 *
 * - Unsupported, for what the wire cannot carry: a field the codec does not claim
 *   ({@link fields}, `Request.unclaimed`), `Required` without tools, a named tool that is not
 *   offered, an image in a tool result, a binary file that is not an image, a call without its
 *   result, a file by path that was not read (codecs read no files; `@svir/client` does), an
 *   option out of range (`Request.problem`), codec options (`options`) that are not an
 *   object of the known options, each of its type and in its range, an extra field that is not
 *   JSON;
 * - Attachment, for a text file whose bytes are not UTF-8;
 * - Config, for a `Request.extra` field the encoder writes itself (`temperature` when the request
 *   sets one, `model`, `messages`, `stream`, `stream_options`): set it with its own function (D50);
 * - ContextOverflow, when the request sets `contextTokens` and the body's length in UTF-8 bytes
 *   plus `maxTokens` does not fit in it, or `maxTokens` is 0 (D42).
 *
 * `{ lean: true }` leaves out {@link optionalFields}, for a server that refused them.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Request } from "@svir/core"
 * import { OpenAiCodec } from "@svir/openai-codec"
 *
 * const request = Request.make("gpt-4o-mini").pipe(Request.includeUsage(true), Request.user("Hi"))
 * const body = Effect.runSync(OpenAiCodec.encode(request, { stream: true }))
 * // { model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [...] }
 * const lean = Effect.runSync(OpenAiCodec.encode(request, { stream: true, lean: true }))
 * // { model: "gpt-4o-mini", stream: true, messages: [...] }
 * ```
 *
 * @since 0.2.0
 * @category encoding
 */
export const encode = (
  request: Request.Request,
  options: Codec.EncodeOptions = { stream: false },
): Effect.Effect<RequestBody.RequestBody, SvirError.SvirError> =>
  Effect.suspend(() => {
    // D66: a field the codec does not know is refused, never dropped.
    const unknown = CoreRequest.unclaimed(request, claimed, name)
    if (unknown !== undefined) return Effect.fail(unknown)
    const wire = OptionChecks.read(CoreRequest.codecOptionsOf(request, name))
    // D42: with a context size, max tokens 0 is an overflow, found before the validation that
    // refuses it as Unsupported without one.
    if (request.contextTokens !== undefined && request.maxTokens === 0 && Result.isSuccess(wire)) {
      const otherwise = CoreRequest.problem(CoreRequest.maxTokens(request, 1))
      if (otherwise === undefined) {
        return Effect.fail(Encoder.noRoomForAnswer(request.contextTokens))
      }
    }
    return Effect.flatMap(CoreRequest.validate(request), (valid) =>
      Result.isFailure(wire)
        ? Effect.fail(wire.failure)
        : Effect.fromResult(Encoder.encodeBody(valid, wire.success, options)),
    )
  })

/**
 * Reads a whole (non-streamed) response body into a Completion. An error body (`{"error": ...}`,
 * `{"detail": ...}`) gives a Server, ContextOverflow or ContentFilter error, with the server's
 * words in `serverMessage` (never in `message`, which gets logged).
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
 * calls are released only in the last event, `Completed`, after the finish reason and `[DONE]`.
 *
 * @example
 * ```ts
 * import { OpenAiCodec } from "@svir/openai-codec"
 *
 * const decoder = OpenAiCodec.decoder()
 * const bytes = new TextEncoder().encode(
 *   'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
 * )
 * const step = decoder.push(bytes) // events: TextDelta "Hi", then Completed
 * ```
 *
 * @since 0.2.0
 * @category decoding
 */
export const decoder = (options?: Options): Codec.StreamDecoder =>
  new StreamDecoder(resolveOptions(options))

/**
 * The codec, for any transport that takes a core `Codec`.
 *
 * @example
 * ```ts
 * import { OpenAiCodec } from "@svir/openai-codec"
 *
 * const codec = OpenAiCodec.make({ mode: "lenient", maxCalls: 16 })
 * codec.path // "/chat/completions"
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options?: Options): Codec.Codec => ({
  name,
  path,
  fields,
  encode,
  decodeResponse: (body) => decodeResponse(body, options),
  decoder: () => decoder(options),
  http,
})

/**
 * Decodes a stream of response bytes into events. The stream ends after `Completed` without
 * reading further bytes; an error comes after every event decoded before it.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { OpenAiCodec } from "@svir/openai-codec"
 *
 * declare const body: Stream.Stream<Uint8Array>
 * const events = OpenAiCodec.decodeStream(body) // Stream<Event, SvirError>
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
