import { SvirError } from "@svir/core"
import * as ServerError from "../ServerError.js"

/** Where the server reported the error, in the words of the error's message. */
export type Place = "in the stream" | "instead of an answer" | "as the response's failure"

/**
 * D22: the error a server's error stands for. The server's words go to `serverMessage` only
 * (they can echo the prompt); the message names the code, which holds nothing of the prompt. A
 * code this codec does not know is a Server error with that code. `body` was read by
 * `Json.parse`, so `JSON.stringify` can write it when it has no words.
 */
export const fromBody = (
  body: { readonly [key: string]: unknown },
  place: Place,
): SvirError.SvirError => {
  const reading = ServerError.read(body)
  const kind = ServerError.kindOf(reading) ?? "Server"
  const code = reading.code ?? reading.type
  const named = code === undefined ? "" : ` (${code})`
  const message = `the server reported an error${named} ${place}`
  const serverMessage = reading.words ?? JSON.stringify(body)
  if (kind === "Server") return SvirError.make("Server", message, { serverMessage, code })
  if (kind === "ContextOverflow") {
    return SvirError.make("ContextOverflow", message, { serverMessage, code })
  }
  return SvirError.make(kind, message, { serverMessage })
}

/** A failed response that says nothing of why (its `error` is null). */
export const unexplainedFailure = (): SvirError.SvirError =>
  SvirError.make("Server", "the server reported that the response failed, without an error")

/** An `event: error` whose data is not a JSON object: its text is the server's words. */
export const fromText = (text: string): SvirError.SvirError =>
  SvirError.make("Server", "the server reported an error in the stream", { serverMessage: text })
