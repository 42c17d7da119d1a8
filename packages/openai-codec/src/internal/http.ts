/**
 * The HTTP facts of Chat Completions (DECISIONS.md D65): the error answers read by `ServerError`,
 * the one reader of error bodies, so a context overflow or a content filter is told by the same
 * rules over HTTP and inside a stream. The list of models is core's `Codec.openAiModels`.
 */
import { HttpError } from "@svir/core"
import * as ServerError from "../ServerError.js"

/** A body that can decide the kind beyond its status: a refused request's (client D11). */
const decidesKind = (status: number): boolean => status === 400 || status === 413 || status === 422

/** The server's words and, for a 400, 413 or 422, an overflow or a filter told by the body. */
export const readError = (response: HttpError.Response): HttpError.Reading => {
  let reading: ServerError.Reading | undefined
  const words = HttpError.wordsOf(response.body, (body) => {
    reading = ServerError.read(body)
    return reading.words
  })
  const kind = HttpError.defaultKind(response.status)
  if (reading === undefined || !decidesKind(response.status)) return { kind, words }
  if (ServerError.isContextOverflow(reading)) return { kind: "ContextOverflow", words }
  if (ServerError.isContentFilter(reading)) return { kind: "ContentFilter", words }
  return { kind, words }
}
