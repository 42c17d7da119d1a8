import { SvirError } from "@svir/core"
import * as ServerError from "../ServerError.js"

/** Where the server reported the error, in the words of the error's message. */
export type Place = "in the stream" | "instead of an answer"

/**
 * D14: the error an error body stands for. The server's words go to `serverMessage` only (they
 * can echo the prompt); the message says the error type and the request id, which support asks
 * for and which hold nothing of the prompt. A type this codec does not know is a Server error
 * with the type as its code.
 */
export const fromBody = (
  body: { readonly [key: string]: unknown },
  place: Place,
): SvirError.SvirError => {
  const reading = ServerError.read(body)
  const kind = ServerError.kindOf(reading) ?? "Server"
  const type = reading.type === undefined ? "" : ` (${reading.type})`
  const request = reading.requestId === undefined ? "" : `, request ${reading.requestId}`
  const message = `the server reported an error${type} ${place}${request}`
  // The body was read by Json.parse, so JSON.stringify can write it.
  const serverMessage = reading.words ?? JSON.stringify(body)
  if (kind === "Server")
    return SvirError.make("Server", message, { serverMessage, code: reading.type })
  if (kind === "ContextOverflow") {
    return SvirError.make("ContextOverflow", message, { serverMessage, code: reading.type })
  }
  return SvirError.make(kind, message, { serverMessage })
}

/** An `event: error` whose data is not a JSON object: its text is the server's words. */
export const fromText = (text: string): SvirError.SvirError =>
  SvirError.make("Server", "the server reported an error in the stream", { serverMessage: text })
