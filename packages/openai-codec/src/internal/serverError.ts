import { SvirError } from "@svir/core"
import * as ServerError from "../ServerError.js"

/** Where the server reported the error, in the words of the error's message. */
export type Place = "in the stream" | "instead of an answer"

export const isErrorBody = ServerError.isErrorBody

/**
 * The error a server's error body stands for, with the server's own words in `serverMessage`:
 * the words `ServerError.read` finds, else the body as JSON text. The body was read by
 * `Json.parse`, so it nests at most `Json.maxDepth` levels and `JSON.stringify` can write it.
 */
export const fromBody = (
  body: { readonly [key: string]: unknown },
  place: Place,
): SvirError.SvirError => {
  const reading = ServerError.read(body)
  return fromReading(
    reading.words === undefined ? { ...reading, words: JSON.stringify(body) } : reading,
    place,
  )
}

/** The error of an `event: error` whose data is not a JSON error body. */
export const fromText = (text: string): SvirError.SvirError =>
  fromReading({ words: text, code: undefined, type: undefined }, "in the stream")

/**
 * D26: the server's words go to `serverMessage` only. They can echo the prompt or a key, and an
 * error's message is what gets logged. D29: one reading of overflow and filter, shared with
 * clients.
 */
const fromReading = (reading: ServerError.Reading, place: Place): SvirError.SvirError => {
  // llama.cpp's numeric `code` repeats the HTTP status; its `type` says what happened (D29).
  const code = typeof reading.code === "string" ? reading.code : (reading.type ?? reading.code)
  const details = { serverMessage: reading.words, code }
  if (ServerError.isContextOverflow(reading)) {
    return SvirError.make(
      "ContextOverflow",
      "the request does not fit the model's context window",
      details,
    )
  }
  if (ServerError.isContentFilter(reading)) {
    return SvirError.make("ContentFilter", "the server's content filter stopped the answer", {
      serverMessage: reading.words,
    })
  }
  if (ServerError.isRateLimit(reading)) {
    return SvirError.make("RateLimited", `the server reported a rate limit ${place}`, {
      serverMessage: reading.words,
      ...(typeof reading.code === "number" ? { status: reading.code } : {}),
    })
  }
  return SvirError.make("Server", `the server reported an error ${place}`, details)
}
