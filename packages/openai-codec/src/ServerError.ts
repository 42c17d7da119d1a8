/**
 * The error bodies of Chat Completions servers, read one way wherever they come: as the body of
 * an HTTP answer that is not a success, as a whole response, or inside a stream. The words are
 * the server's own; the code and the type say what happened (DECISIONS.md D12, D29).
 *
 * @since 0.2.0
 * @module
 */
import { Json } from "@svir/core"

/**
 * What an error body says: the server's words (`undefined` when it names none), its `code` (a
 * string such as `context_length_exceeded`, or a number such as `400`) and its `type`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Reading {
  readonly words: string | undefined
  readonly code: string | number | undefined
  readonly type: string | undefined
}

/**
 * Whether a JSON object is an error body: `{"error": {...}}`, `{"error": "text"}` (mlx-lm), or
 * `{"detail": ...}` with no answer in it (mlx-vlm, FastAPI servers). D12.
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/openai-codec"
 *
 * ServerError.isErrorBody({ error: "model not found" }) // true
 * ServerError.isErrorBody({ detail: "Not Found" }) // true
 * ServerError.isErrorBody({ choices: [] }) // false
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isErrorBody = (body: { readonly [key: string]: unknown }): boolean => {
  const error = body.error
  if (error !== undefined && error !== null && error !== false) return true
  return body.detail !== undefined && body.detail !== null && body.choices === undefined
}

/**
 * Reads an error body. The words are, in this order: a string `error` (mlx-lm),
 * `error.message` (OpenAI, vLLM, llama.cpp), a string `detail`, `detail[0].msg` (FastAPI
 * validation errors), `detail.message`, or a top-level `message`. The code is `error.code`, or a
 * top-level `code` when `error` is not an object; the type is `error.type`.
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/openai-codec"
 *
 * ServerError.read({ error: { message: "bad key", code: "invalid_api_key" } }).words // "bad key"
 * ServerError.read({ detail: [{ msg: "field required" }] }).words // "field required"
 * ServerError.read({ error: { code: 400, type: "exceed_context_size_error" } }).type // "exceed_context_size_error"
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const read = (body: { readonly [key: string]: unknown }): Reading => {
  const error = body.error
  if (Json.isObject(error)) {
    return {
      words: typeof error.message === "string" ? error.message : detailWords(body),
      code: codeOf(error.code),
      type: typeof error.type === "string" ? error.type : undefined,
    }
  }
  return {
    words: typeof error === "string" ? error : detailWords(body),
    code: codeOf(body.code),
    type: undefined,
  }
}

const codeOf = (code: unknown): string | number | undefined =>
  typeof code === "string" || typeof code === "number" ? code : undefined

const detailWords = (body: { readonly [key: string]: unknown }): string | undefined => {
  const detail = body.detail
  if (typeof detail === "string") return detail
  if (Array.isArray(detail)) {
    const first: unknown = detail[0]
    if (Json.isObject(first) && typeof first.msg === "string") return first.msg
  } else if (Json.isObject(detail) && typeof detail.message === "string") {
    return detail.message
  }
  return typeof body.message === "string" ? body.message : undefined
}

/** D29: the codes (or types) servers give a request that does not fit the context window. */
const overflowCodes: ReadonlySet<string | number | undefined> = new Set([
  "context_length_exceeded",
  "context_window_exceeded",
  "exceed_context_size_error",
])

/** D29: the words servers use for it, in any case. */
const overflowWords =
  /context[ _-]?(length|size|window|budget)|compacted context|prompt is too long/i

/**
 * Whether an error says the request does not fit the model's context window: by its code or
 * type (`context_length_exceeded`, `context_window_exceeded`, `exceed_context_size_error`), or
 * by its words ("context length", "context size", "context window", "context budget",
 * "compacted context", "prompt is too long", in any case). A client asks this of a 400, 413 or 422; the codec of every
 * error inside an answer. D29.
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/openai-codec"
 *
 * ServerError.isContextOverflow({ words: "This model's maximum context length is 8192 tokens.", code: undefined, type: undefined }) // true
 * ServerError.isContextOverflow({ words: "try increasing it", code: 400, type: "exceed_context_size_error" }) // true
 * ServerError.isContextOverflow({ words: "bad key", code: "invalid_api_key", type: undefined }) // false
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isContextOverflow = (reading: Reading): boolean =>
  overflowCodes.has(reading.code) ||
  overflowCodes.has(reading.type) ||
  (reading.words !== undefined && overflowWords.test(reading.words))

/**
 * Whether an error says the server's content filter refused: code `content_filter` (or type,
 * when the code is absent). A client asks this of a 400, 413 or 422; the codec of every error
 * inside an answer. D29.
 *
 * @since 0.2.0
 * @category guards
 */
export const isContentFilter = (reading: Reading): boolean =>
  reading.code === "content_filter" ||
  (reading.code === undefined && reading.type === "content_filter")

/**
 * Whether an error body tells of a rate limit: code 429 (OpenRouter and llama.cpp repeat the
 * HTTP status there; OpenRouter sends it inside a stream whose status was 200), or code or type
 * `rate_limit_exceeded` (OpenAI) or type `rate_limit_error` (Anthropic, through gateways). The
 * codec asks this of every error in a body. D62.
 *
 * @example
 * ```ts
 * import { ServerError } from "@svir/openai-codec"
 *
 * ServerError.isRateLimit({ words: "Provider returned error", code: 429, type: undefined }) // true
 * ServerError.isRateLimit({ words: "bad key", code: "invalid_api_key", type: undefined }) // false
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isRateLimit = (reading: Reading): boolean =>
  reading.code === 429 ||
  reading.code === "429" ||
  reading.code === "rate_limit_exceeded" ||
  reading.type === "rate_limit_exceeded" ||
  reading.type === "rate_limit_error"
