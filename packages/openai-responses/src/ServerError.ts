/**
 * The error bodies of the Responses API, read one way wherever they come: as the body of an HTTP
 * answer that is not a success (`{"error": {"message", "type", "code", "param"}}`), as a whole
 * response in its place, as an `error` event inside a stream that began with 200 (its `code`,
 * `message` and `param` at the top, or under `error` as OpenAI sends it), and as the `error` of a
 * failed response (`{"code", "message"}`). The code says what happened (DECISIONS.md D22).
 *
 * @since 0.2.0
 */
import type { SvirError } from "@svir/core"
import { HttpError, Json } from "@svir/core"

/**
 * What an error says: its `code` (a string such as `rate_limit_exceeded`, or a number where a
 * gateway repeats the HTTP status), its `type` (`invalid_request_error`, ...), the server's words
 * and the request parameter it names; each `undefined` when the error does not give it.
 *
 * @example
 * ```ts
 * import type { ServerError } from "@svir/openai-responses"
 *
 * const overflow: ServerError.Reading = {
 *   code: "context_length_exceeded",
 *   type: "invalid_request_error",
 *   words: "Your input exceeds the context window of this model.",
 *   param: "input",
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Reading {
  readonly code: string | number | undefined
  readonly type: string | undefined
  readonly words: string | undefined
  readonly param: string | undefined
}

/**
 * Whether a whole body is an error body rather than a response: it has an `error` object and no
 * `output` list (a response carries `"error": null`, or the error of a failed response beside its
 * `output`).
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/openai-responses"
 *
 * ServerError.isErrorBody({ error: { message: "bad key", type: "invalid_request_error", code: "invalid_api_key" } }) // true
 * ServerError.isErrorBody({ object: "response", status: "failed", error: { code: "server_error", message: "x" }, output: [] }) // false
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isErrorBody = (body: { readonly [key: string]: unknown }): boolean =>
  Json.isObject(body.error) && !Array.isArray(body.output)

const stringOf = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined

const codeOf = (value: unknown): string | number | undefined =>
  typeof value === "number" ? value : stringOf(value)

/**
 * Reads an error: the object under `error` when there is one (an HTTP error body, OpenAI's `error`
 * event), else the fields of the body itself (the Open Responses `error` event, a failed
 * response's `error`).
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/openai-responses"
 *
 * ServerError.read({
 *   error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded", param: null },
 * })
 * // { code: "rate_limit_exceeded", type: "requests", words: "Rate limit reached", param: undefined }
 * ServerError.read({ type: "error", code: "server_error", message: "Something went wrong", param: null })
 * // { code: "server_error", type: undefined, words: "Something went wrong", param: undefined }
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const read = (body: { readonly [key: string]: unknown }): Reading => {
  const error = Json.isObject(body.error) ? body.error : body
  const type = stringOf(error.type)
  return {
    code: codeOf(error.code),
    // The `error` event's own `type` is the event's name, not the error's.
    type: type === "error" ? undefined : type,
    words: stringOf(error.message) ?? stringOf(body.message),
    param: stringOf(error.param),
  }
}

/** D22: the codes and types that say what happened, each with its kind. */
const kinds: ReadonlyMap<string | number, SvirError.Kind> = new Map<
  string | number,
  SvirError.Kind
>([
  ["context_length_exceeded", "ContextOverflow"],
  ["context_window_exceeded", "ContextOverflow"],
  ["content_filter", "ContentFilter"],
  ["content_policy_violation", "ContentFilter"],
  ["image_content_policy_violation", "ContentFilter"],
  ["rate_limit_exceeded", "RateLimited"],
  ["rate_limit_error", "RateLimited"],
  [429, "RateLimited"],
  ["429", "RateLimited"],
  ["server_error", "Transport"],
  ["api_error", "Transport"],
  ["server_is_overloaded", "Transport"],
  ["overloaded", "Transport"],
  ["overloaded_error", "Transport"],
  ["service_unavailable", "Transport"],
  ["vector_store_timeout", "Timeout"],
  ["timeout", "Timeout"],
  ["timeout_error", "Timeout"],
  ["invalid_api_key", "Authentication"],
  ["authentication_error", "Authentication"],
  ["permission_error", "Authentication"],
  ["insufficient_quota", "Authentication"],
  ["invalid_prompt", "Unsupported"],
  ["model_not_found", "Unsupported"],
  ["invalid_image", "Unsupported"],
  ["invalid_image_format", "Unsupported"],
  ["invalid_base64_image", "Unsupported"],
  ["invalid_image_url", "Unsupported"],
  ["image_too_large", "Unsupported"],
  ["image_too_small", "Unsupported"],
  ["image_parse_error", "Unsupported"],
  ["invalid_image_mode", "Unsupported"],
  ["image_file_too_large", "Unsupported"],
  ["unsupported_image_media_type", "Unsupported"],
  ["empty_image_file", "Unsupported"],
  ["failed_to_download_image", "Unsupported"],
  ["image_file_not_found", "Unsupported"],
])

/** D22: the words of a context overflow, when no code says it ("...exceeds the context window..."). */
const overflowWords = /context[ _-]?(length|window)|maximum context|prompt is too long/i

/**
 * The kind of error a reading stands for, by the table of D22, or `undefined` when neither its
 * code, its type nor its words say (a code this codec does not know, or only the generic
 * `invalid_request_error`, which a 401 carries as well as a 400). The code decides first, then
 * the type, then words naming the context length or window.
 *
 * | code or type | kind |
 * |---|---|
 * | `context_length_exceeded`, `context_window_exceeded`, or words naming the context length or window | ContextOverflow |
 * | `content_filter`, `content_policy_violation`, `image_content_policy_violation` | ContentFilter |
 * | `rate_limit_exceeded`, `rate_limit_error`, `429` | RateLimited (retryable) |
 * | `server_error`, `api_error`, `server_is_overloaded`, `overloaded`, `overloaded_error`, `service_unavailable` | Transport (retryable) |
 * | `vector_store_timeout`, `timeout`, `timeout_error` | Timeout (retryable) |
 * | `invalid_api_key`, `authentication_error`, `permission_error`, `insufficient_quota` | Authentication |
 * | `invalid_prompt`, `model_not_found`, the image codes (`invalid_image`, `image_too_large`, ...) | Unsupported |
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/openai-responses"
 *
 * ServerError.kindOf({ code: "server_error", type: undefined, words: "An error occurred", param: undefined }) // "Transport"
 * ServerError.kindOf({ code: "insufficient_quota", type: "insufficient_quota", words: "You exceeded your current quota", param: undefined }) // "Authentication"
 * ServerError.kindOf({ code: undefined, type: "invalid_request_error", words: "Your input exceeds the context window of this model.", param: "input" }) // "ContextOverflow"
 * ```
 *
 * @since 0.2.0
 * @category mapping
 */
export const kindOf = (reading: Reading): SvirError.Kind | undefined => {
  const byCode = reading.code === undefined ? undefined : kinds.get(reading.code)
  if (byCode !== undefined) return byCode
  const byType = reading.type === undefined ? undefined : kinds.get(reading.type)
  if (byType !== undefined) return byType
  return reading.words !== undefined && overflowWords.test(reading.words)
    ? "ContextOverflow"
    : undefined
}

/**
 * Reads an HTTP answer that is not a success: the kind from the body's code or type (the table of
 * {@link kindOf}: a 429 for `insufficient_quota` is not worth a retry, a 400 for
 * `context_length_exceeded` is a ContextOverflow), else from the status by core's table; the
 * words are the body's `error.message`, or the body itself when it is not JSON. This is the
 * codec's `http.readError`.
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/openai-responses"
 *
 * ServerError.readError({
 *   status: 400,
 *   headers: {},
 *   body: '{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}',
 * })
 * // { kind: "ContextOverflow", words: "Your input exceeds the context window of this model." }
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
    (reading === undefined ? undefined : kindOf(reading)) ?? HttpError.defaultKind(response.status)
  return { kind, words }
}
