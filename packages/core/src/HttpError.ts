/**
 * How an HTTP answer that is not a success becomes a typed {@link SvirError.SvirError}, for any
 * wire: the status picks the kind, the body gives the server's own words, `Retry-After` gives the
 * wait. A codec reads its own wire's error bodies (its `http.readError`) and may decide the kind
 * differently; {@link read} is the reading every codec gets when it says nothing, with this
 * status table:
 *
 * | status | kind |
 * |---|---|
 * | 401, 403 | Authentication |
 * | 408, 504 | Timeout |
 * | 429 | RateLimited, with `Retry-After` (capped) |
 * | 500, 502, 503 | Transport |
 * | any other | Unsupported |
 *
 * A codec adds what its wire says beyond the status: Chat Completions tells a context overflow
 * and the content filter from the body of a 400; Anthropic's 529 is an overloaded server, and so
 * retryable. DECISIONS.md D31.
 *
 * @since 0.2.0
 * @module
 */
import * as Result from "effect/Result"
import * as Json from "./Json.js"
import * as SvirError from "./SvirError.js"

/**
 * What the mapping needs of an HTTP answer that is not a success. Header names are in lower
 * case; `body` is `undefined` when it could not be read in time.
 *
 * @since 0.2.0
 * @category models
 */
export interface Response {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string | undefined
}

/**
 * What a codec reads in an error answer: the kind of error, and the server's own words
 * (`undefined` when it names none).
 *
 * @since 0.2.0
 * @category models
 */
export interface Reading {
  readonly kind: SvirError.Kind
  readonly words: string | undefined
}

/**
 * The default cap on a `Retry-After` wait: 30 seconds, as the Rust svir crate caps it (its D16).
 *
 * @since 0.2.0
 * @category models
 */
export const defaultMaxRetryAfterMillis = 30_000

/**
 * The kind of error a status says by itself, by the table of the module.
 *
 * @example
 * ```ts
 * import { HttpError } from "@svir/core"
 *
 * HttpError.defaultKind(429) // "RateLimited"
 * HttpError.defaultKind(404) // "Unsupported"
 * ```
 *
 * @since 0.2.0
 * @category mapping
 */
export const defaultKind = (status: number): SvirError.Kind => {
  if (status === 401 || status === 403) return "Authentication"
  if (status === 408 || status === 504) return "Timeout"
  if (status === 429) return "RateLimited"
  if (status === 500 || status === 502 || status === 503) return "Transport"
  return "Unsupported"
}

/**
 * The reading of an error answer when a codec gives none: the kind by {@link defaultKind}, and
 * the words of a JSON body (`error.message`, a string `error`, a top-level `message` or a string
 * `detail`), or the body itself when it is not JSON. No words for JSON nested deeper than
 * `Json.maxDepth`: what cannot be read whole is not the server's words.
 *
 * @example
 * ```ts
 * import { HttpError } from "@svir/core"
 *
 * HttpError.read({ status: 401, headers: {}, body: '{"error":{"message":"bad key"}}' })
 * // { kind: "Authentication", words: "bad key" }
 * ```
 *
 * @since 0.2.0
 * @category mapping
 */
export const read = (response: Response): Reading => ({
  kind: defaultKind(response.status),
  words: wordsOf(response.body, jsonWords),
})

/**
 * The words of an error body: `fromJson` of a JSON object, or the body itself, trimmed, when it is
 * not JSON. None when there is no body, when it is JSON but not an object, or when it nests
 * deeper than `Json.maxDepth`. For codecs that read their own wire's bodies.
 *
 * @example
 * ```ts
 * import { HttpError } from "@svir/core"
 *
 * const words = (body: { readonly [key: string]: unknown }) =>
 *   typeof body.reason === "string" ? body.reason : undefined
 * HttpError.wordsOf('{"reason":"slow down"}', words) // "slow down"
 * HttpError.wordsOf("Bad Gateway\n", words) // "Bad Gateway"
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const wordsOf = (
  body: string | undefined,
  fromJson: (body: { readonly [key: string]: unknown }) => string | undefined,
): string | undefined => {
  const json = objectOf(body)
  if (json === undefined) return undefined
  const words = typeof json === "string" ? json : fromJson(json)
  return words === "" ? undefined : words
}

/**
 * A body read: a JSON object, or the text itself (trimmed) when it is not JSON; none for no body,
 * JSON that is not an object, or JSON too deep to read.
 */
const objectOf = (
  body: string | undefined,
): { readonly [key: string]: unknown } | string | undefined => {
  if (body === undefined) return undefined
  const json = Json.parse(body)
  if (Result.isFailure(json)) return json.failure.reason === "Syntax" ? body.trim() : undefined
  return Json.isObject(json.success) ? json.success : undefined
}

const jsonWords = (body: { readonly [key: string]: unknown }): string | undefined => {
  const { error, message, detail } = body
  if (Json.isObject(error) && typeof error.message === "string") return error.message
  if (typeof error === "string") return error
  if (typeof message === "string") return message
  return typeof detail === "string" ? detail : undefined
}

/**
 * The wait a server asks for, in milliseconds, capped at `maxMillis`: `retry-after-ms`, or
 * `Retry-After` as seconds or as an HTTP date. `undefined` when there is none, or when it cannot
 * be read (a sign, an exponent, `NaN`, a list such as `2, 3`) or is a date not in the future:
 * the client's own backoff is used then, never a wait of 0 ms.
 *
 * @example
 * ```ts
 * import { HttpError } from "@svir/core"
 *
 * HttpError.retryAfterMillis({ "retry-after": "2" }, 30_000) // 2000
 * HttpError.retryAfterMillis({ "retry-after": "3600" }, 30_000) // 30000
 * HttpError.retryAfterMillis({ "retry-after": "-5" }, 30_000) // undefined
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const retryAfterMillis = (
  headers: Readonly<Record<string, string | undefined>>,
  maxMillis: number,
  now: number = Date.now(),
): number | undefined => {
  const wait =
    waitOf(headers["retry-after-ms"], 1) ??
    waitOf(headers["retry-after"], 1000) ??
    untilDate(headers["retry-after"], now)
  return wait === undefined ? undefined : Math.min(Math.ceil(wait), maxMillis)
}

/** Digits, with a fraction, in `unit` milliseconds; not a sign, an exponent, NaN or a list. */
const waitOf = (value: string | undefined, unit: number): number | undefined =>
  value !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) * unit : undefined

/** An HTTP date (IMF-fixdate, what servers send); `Date.parse` alone reads "-5" as a year. */
const httpDate =
  /^\s*(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT\s*$/

/** The wait until an HTTP date; none for a date not after `now`, which says nothing to wait. */
const untilDate = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined || !httpDate.test(value)) return undefined
  const wait = Date.parse(value) - now
  return wait > 0 ? wait : undefined
}

const describe: Record<SvirError.Kind, string> = {
  Authentication: "the server refused the credentials",
  Timeout: "the server timed out",
  RateLimited: "the server is rate limiting this client",
  Transport: "the server failed",
  ContextOverflow: "the request does not fit the model's context window",
  ContentFilter: "the server's content filter refused the request",
  Unsupported: "the server refused the request",
  TruncatedStream: "the answer was cut short",
  Protocol: "the server's answer could not be read",
  Server: "the server reported an error",
  ResponseLimit: "the answer is too large",
  Config: "the client is not configured correctly",
  Attachment: "an attachment could not be read",
}

/**
 * The typed error of an answer that is not a success, as a codec read it: the kind, the server's
 * words as `serverMessage` (never in the message: they can quote the prompt, and messages get
 * logged), and for a retryable kind the wait the server asks for, capped at
 * `maxRetryAfterMillis`.
 *
 * @example
 * ```ts
 * import { HttpError } from "@svir/core"
 *
 * const response = { status: 429, headers: { "retry-after": "2" }, body: '{"error":"slow down"}' }
 * const error = HttpError.toError(response, HttpError.read(response))
 * error.reason._tag // "RateLimited"
 * error.retryAfterMillis // 2000
 * ```
 *
 * @since 0.2.0
 * @category mapping
 */
export const toError = (
  response: Response,
  reading: Reading,
  options: { readonly maxRetryAfterMillis?: number | undefined } = {},
): SvirError.SvirError => {
  const { kind } = reading
  const retryAfter =
    kind === "RateLimited" || kind === "Transport"
      ? retryAfterMillis(
          response.headers,
          options.maxRetryAfterMillis ?? defaultMaxRetryAfterMillis,
        )
      : undefined
  return SvirError.make(kind, `${describe[kind]} (HTTP ${response.status})`, {
    status: response.status,
    serverMessage: reading.words,
    retryAfterMillis: retryAfter,
  })
}
