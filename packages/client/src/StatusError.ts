/**
 * How an HTTP response that is not a success becomes a typed {@link SvirError.SvirError}: the status
 * picks the kind, the body gives the server's own words, `Retry-After` gives the wait.
 *
 * | status | kind |
 * |---|---|
 * | 401, 403 | Authentication |
 * | 408, 504 | Timeout |
 * | 429 | RateLimited, with `Retry-After` (capped) |
 * | 400, 413, 422 naming the context window | ContextOverflow |
 * | 400, 413, 422 with code `content_filter` | ContentFilter |
 * | 500, 502, 503 | Transport |
 * | any other | Unsupported |
 *
 * The body is read by `@svir/openai-codec`'s `ServerError`, the one reader of error bodies, so
 * a context overflow or a content filter is told by the same rules here and inside a stream
 * (DECISIONS.md D11).
 *
 * @since 0.1.0
 */
import { Json, SvirError } from "@svir/core"
import { ServerError } from "@svir/openai-codec"
import * as Result from "effect/Result"

/**
 * What the mapping needs of an HTTP response that is not a success. Header names are in lower
 * case; `body` is `undefined` when it could not be read in time.
 *
 * @since 0.1.0
 * @category models
 */
export interface Response {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string | undefined
}

/**
 * The default cap on a `Retry-After` wait: 30 seconds, as the Rust svir crate caps it (its D16).
 *
 * @since 0.1.0
 * @category models
 */
export const defaultMaxRetryAfterMillis = 30_000

/**
 * The server's own message in an error body, as `ServerError.read` of `@svir/openai-codec` finds
 * it (`error.message`, a string `error`, a string `detail`, `detail[0].msg`, `detail.message`, or
 * `message`); else the body itself when it is not JSON. None for JSON nested deeper than
 * `Json.maxDepth`. Cut at {@link SvirError.serverMessageLimit} characters.
 *
 * @example
 * ```ts
 * import { StatusError } from "@svir/client"
 *
 * StatusError.serverMessage('{"error":{"message":"bad key"}}') // "bad key"
 * StatusError.serverMessage('{"detail":[{"msg":"field required"}]}') // "field required"
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const serverMessage = (body: string | undefined): string | undefined =>
  cut(readBody(body)?.words)

/**
 * An error body read: a JSON object by `ServerError.read`, plain text as the words. None when
 * there is no body, or it is JSON but not an object, or it nests too deep to read (D2).
 */
const readBody = (body: string | undefined): ServerError.Reading | undefined => {
  if (body === undefined) return undefined
  const json = Json.parse(body)
  if (Result.isFailure(json)) {
    // JSON too deep to read is not the server's words; plain text is.
    return json.failure.reason === "Syntax"
      ? { words: body.trim(), code: undefined, type: undefined }
      : undefined
  }
  return Json.isObject(json.success) ? ServerError.read(json.success) : undefined
}

/** The words, cut at the limit; none when empty. */
const cut = (text: string | undefined): string | undefined => {
  if (text === undefined || text === "") return undefined
  return text.length > SvirError.serverMessageLimit
    ? `${text.slice(0, SvirError.serverMessageLimit)}…`
    : text
}

/**
 * The error code in a body such as `{"error": {"code": "content_filter"}}`, if there is one.
 *
 * @since 0.1.0
 * @category parsing
 */
export const serverCode = (body: string | undefined): string | undefined => {
  const code = readBody(body)?.code
  return typeof code === "string" ? code : undefined
}

/**
 * The wait a server asks for, in milliseconds, capped at `maxMillis`: `retry-after-ms`, or
 * `Retry-After` as seconds or as an HTTP date. `undefined` when there is none, or when it cannot
 * be read (a sign, an exponent, `NaN`, a list such as `2, 3`) or is a date not in the future:
 * the client's own backoff is used then, never a wait of 0 ms.
 *
 * @example
 * ```ts
 * import { StatusError } from "@svir/client"
 *
 * StatusError.retryAfterMillis({ "retry-after": "2" }, 30_000) // 2000
 * StatusError.retryAfterMillis({ "retry-after": "3600" }, 30_000) // 30000
 * StatusError.retryAfterMillis({ "retry-after": "-5" }, 30_000) // undefined
 * ```
 *
 * @since 0.1.0
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

/** Digits, with a fraction, in `unit` milliseconds; not a sign, an exponent, NaN or a list (D4). */
const waitOf = (value: string | undefined, unit: number): number | undefined =>
  value !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) * unit : undefined

/** An HTTP date (IMF-fixdate, what servers send); `Date.parse` alone reads "-5" as a year. */
const httpDate =
  /^\s*(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT\s*$/

/** The wait until an HTTP date; none for a date not after `now`, which says nothing to wait (D4). */
const untilDate = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined || !httpDate.test(value)) return undefined
  const wait = Date.parse(value) - now
  return wait > 0 ? wait : undefined
}

/**
 * The kind of error for a status and a body.
 *
 * @since 0.1.0
 * @category mapping
 */
export const kindOf = (status: number, body: string | undefined): SvirError.Kind => {
  if (status === 401 || status === 403) return "Authentication"
  if (status === 408 || status === 504) return "Timeout"
  if (status === 429) return "RateLimited"
  if (status === 500 || status === 502 || status === 503) return "Transport"
  if (status === 400 || status === 413 || status === 422) {
    // D11: the codec's one reading of overflow and filter (its D29).
    const reading = readBody(body)
    if (reading !== undefined && ServerError.isContextOverflow(reading)) return "ContextOverflow"
    if (reading !== undefined && ServerError.isContentFilter(reading)) return "ContentFilter"
  }
  return "Unsupported"
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
 * The typed error for an HTTP response that is not a success, with the server's own words and,
 * for a 429, the wait it asks for (capped at `maxRetryAfterMillis`).
 *
 * @example
 * ```ts
 * import { StatusError } from "@svir/client"
 *
 * const error = StatusError.fromResponse({
 *   status: 429,
 *   headers: { "retry-after": "2" },
 *   body: '{"error":{"message":"slow down"}}',
 * })
 * error.reason._tag // "RateLimited"
 * error.retryAfterMillis // 2000
 * ```
 *
 * @since 0.1.0
 * @category mapping
 */
export const fromResponse = (
  response: Response,
  options: { readonly maxRetryAfterMillis?: number | undefined } = {},
): SvirError.SvirError => {
  const kind = kindOf(response.status, response.body)
  const words = serverMessage(response.body)
  const retryAfter =
    kind === "RateLimited" || kind === "Transport"
      ? retryAfterMillis(
          response.headers,
          options.maxRetryAfterMillis ?? defaultMaxRetryAfterMillis,
        )
      : undefined
  // The server's words stay out of the message: they can quote the prompt, and messages get
  // logged (D2).
  return SvirError.make(kind, `${describe[kind]} (HTTP ${response.status})`, {
    status: response.status,
    serverMessage: words,
    retryAfterMillis: retryAfter,
  })
}
