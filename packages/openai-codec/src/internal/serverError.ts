import { SvirError } from "@svir/core"

const overflowCodes = new Set(["context_length_exceeded", "exceed_context_size_error"])
const overflowWords = /context[ _-]?(length|size|window)/i

/** Where the server reported the error, in the words of the error's message. */
export type Place = "in the stream" | "instead of an answer"

/**
 * Whether a body is an error body: `{"error": {...}}`, `{"error": "text"}` (mlx-lm), or
 * `{"detail": ...}` with no answer in it (mlx-vlm, FastAPI servers). D12.
 */
export const isErrorBody = (body: { readonly [key: string]: unknown }): boolean => {
  const error = body.error
  if (error !== undefined && error !== null && error !== false) return true
  return body.detail !== undefined && body.detail !== null && body.choices === undefined
}

/**
 * The error a server's error body stands for, with the server's own words in `serverMessage`.
 * The body was read by `Json.parse`, so it nests at most `Json.maxDepth` levels and
 * `JSON.stringify` can write it.
 */
export const fromBody = (
  body: { readonly [key: string]: unknown },
  place: Place,
): SvirError.SvirError => {
  const error = body.error
  let message: string | undefined
  let code: unknown
  if (typeof error === "string") {
    message = error
  } else if (typeof error === "object" && error !== null) {
    const fields = error as { readonly [key: string]: unknown }
    if (typeof fields.message === "string") message = fields.message
    code = fields.code ?? fields.type
  } else {
    message = detailMessage(body.detail)
  }
  return fromMessage(message ?? JSON.stringify(body), code, place)
}

/** The error of an `event: error` whose data is not a JSON error body. */
export const fromText = (text: string): SvirError.SvirError =>
  fromMessage(text, undefined, "in the stream")

/**
 * D26: the server's words go to `serverMessage` only. They can echo the prompt or a key, and an
 * error's message is what gets logged.
 */
const fromMessage = (serverMessage: string, code: unknown, place: Place): SvirError.SvirError => {
  const details = {
    serverMessage,
    code: typeof code === "string" || typeof code === "number" ? code : undefined,
  }
  if ((typeof code === "string" && overflowCodes.has(code)) || overflowWords.test(serverMessage)) {
    return SvirError.make(
      "ContextOverflow",
      "the request does not fit the model's context window",
      details,
    )
  }
  if (code === "content_filter") {
    return SvirError.make("ContentFilter", "the server's content filter stopped the answer", {
      serverMessage,
    })
  }
  return SvirError.make("Server", `the server reported an error ${place}`, details)
}

const detailMessage = (detail: unknown): string | undefined => {
  if (typeof detail === "string") return detail
  if (Array.isArray(detail)) {
    const first: unknown = detail[0]
    if (typeof first === "object" && first !== null) {
      const msg = (first as { readonly msg?: unknown }).msg
      if (typeof msg === "string") return msg
    }
    return JSON.stringify(detail)
  }
  if (typeof detail === "object" && detail !== null) {
    const msg = (detail as { readonly message?: unknown }).message
    return typeof msg === "string" ? msg : JSON.stringify(detail)
  }
  return undefined
}
