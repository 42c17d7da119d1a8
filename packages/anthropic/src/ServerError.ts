/**
 * Anthropic's error bodies, read one way wherever they come: as the body of an HTTP answer that
 * is not a success, as a whole response, or as an `error` event inside a stream that began with
 * 200. The body is `{"type": "error", "error": {"type": ..., "message": ...}, "request_id": ...}`
 * (the API's "Errors" page); the error's type says what happened (DECISIONS.md D14).
 *
 * @since 0.2.0
 */
import type { SvirError } from "@svir/core"
import { HttpError, Json } from "@svir/core"

/**
 * What an error body says: its error type (`overloaded_error`, ...), the server's words and the
 * request's id, each `undefined` when the body does not give it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Reading {
  readonly type: string | undefined
  readonly words: string | undefined
  readonly requestId: string | undefined
}

/**
 * Whether a JSON object is an error body: `{"type": "error", ...}` or one with an `error` object.
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/anthropic"
 *
 * ServerError.isErrorBody({ type: "error", error: { type: "api_error", message: "Internal server error" } }) // true
 * ServerError.isErrorBody({ type: "message", content: [] }) // false
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isErrorBody = (body: { readonly [key: string]: unknown }): boolean =>
  body.type === "error" || Json.isObject(body.error)

/**
 * Reads an error body: `error.type`, `error.message` (or a top-level `message`) and `request_id`.
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/anthropic"
 *
 * ServerError.read({
 *   type: "error",
 *   error: { type: "not_found_error", message: "The requested resource could not be found." },
 *   request_id: "req_011CSHoEeqs5C35K2UUqR7Fy",
 * })
 * // { type: "not_found_error", words: "The requested resource could not be found.", requestId: "req_011CSHoEeqs5C35K2UUqR7Fy" }
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const read = (body: { readonly [key: string]: unknown }): Reading => {
  const error = Json.isObject(body.error) ? body.error : undefined
  const message = error?.message ?? body.message
  return {
    type: typeof error?.type === "string" ? error.type : undefined,
    words: typeof message === "string" && message !== "" ? message : undefined,
    requestId: typeof body.request_id === "string" ? body.request_id : undefined,
  }
}

/**
 * The words of a context overflow: "prompt is too long: 208656 tokens > 200000 maximum", and
 * "input length and `max_tokens` exceed context limit: 188059 + 20000 > 200000" (D14).
 */
const overflow = /prompt is too long|exceed context limit/i

/**
 * Whether an error says the request does not fit the model's context window: an
 * `invalid_request_error` in the words of D14.
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/anthropic"
 *
 * ServerError.isContextOverflow({ type: "invalid_request_error", words: "prompt is too long: 208656 tokens > 200000 maximum", requestId: undefined }) // true
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isContextOverflow = (reading: Reading): boolean =>
  reading.type === "invalid_request_error" &&
  reading.words !== undefined &&
  overflow.test(reading.words)

/**
 * The kind of error an error type stands for, by the table of D14, or `undefined` for a type this
 * codec does not know (the API says the types "will grow over time").
 *
 * | type | kind |
 * |---|---|
 * | `invalid_request_error` | Unsupported, or ContextOverflow (see {@link isContextOverflow}) |
 * | `authentication_error`, `permission_error`, `billing_error` | Authentication |
 * | `not_found_error`, `request_too_large` | Unsupported |
 * | `rate_limit_error` | RateLimited |
 * | `api_error`, `overloaded_error` | Transport (retryable) |
 * | `timeout_error` | Timeout |
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/anthropic"
 *
 * ServerError.kindOf({ type: "overloaded_error", words: "Overloaded", requestId: undefined }) // "Transport"
 * ```
 *
 * @since 0.2.0
 * @category mapping
 */
export const kindOf = (reading: Reading): SvirError.Kind | undefined => {
  switch (reading.type) {
    case "invalid_request_error":
      return isContextOverflow(reading) ? "ContextOverflow" : "Unsupported"
    case "authentication_error":
    case "permission_error":
    case "billing_error":
      return "Authentication"
    case "not_found_error":
    case "request_too_large":
      return "Unsupported"
    case "rate_limit_error":
      return "RateLimited"
    case "api_error":
    case "overloaded_error":
      return "Transport"
    case "timeout_error":
      return "Timeout"
    default:
      return undefined
  }
}

/**
 * Reads an HTTP answer that is not a success: the kind from the body's error type (the table of
 * {@link kindOf}), else from the status, with 529 (overloaded) retryable as a Transport error; the
 * words are the body's `error.message`, or the body itself when it is not JSON. This is the
 * codec's `http.readError`.
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/anthropic"
 *
 * ServerError.readError({
 *   status: 529,
 *   headers: {},
 *   body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
 * })
 * // { kind: "Transport", words: "Overloaded" }
 * ```
 *
 * @since 0.2.0
 * @category mapping
 */
export const readError = (response: HttpError.Response): HttpError.Reading => {
  let reading: Reading | undefined
  const words = HttpError.wordsOf(response.body, (body) => {
    reading = read(body)
    return reading.words
  })
  const kind =
    (reading === undefined ? undefined : kindOf(reading)) ??
    (response.status === 529 ? "Transport" : HttpError.defaultKind(response.status))
  return { kind, words }
}
