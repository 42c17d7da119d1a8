/**
 * The HTTP facts of Chat Completions (DECISIONS.md D65): the error answers read by `ServerError`,
 * the one reader of error bodies, so a context overflow or a content filter is told by the same
 * rules over HTTP and inside a stream; and the list of models at `/models`.
 */
import type { Codec } from "@svir/core"
import { HttpError, Json, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
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

const listingError = (message: string) =>
  Effect.fail(SvirError.make("Protocol", `the list of models ${message}`))

/** `GET /models`: `{"data": [{"id": ..., "name"?: ..., "owned_by"?: ...}]}`. */
export const decodeModels = (
  text: string,
): Effect.Effect<ReadonlyArray<Codec.Model>, SvirError.SvirError> => {
  const json = Json.parse(text)
  if (Result.isFailure(json)) return listingError(`could not be read: ${json.failure.message}`)
  const data = Json.isObject(json.success) ? json.success.data : undefined
  if (!Array.isArray(data)) return listingError("has no `data` array")
  const models: Array<Codec.Model> = []
  for (const entry of data) {
    const id = Json.isObject(entry) ? entry.id : undefined
    if (!Json.isObject(entry) || typeof id !== "string") {
      return Effect.fail(SvirError.make("Protocol", "a model in the list has no string `id`"))
    }
    const { name, owned_by: owner } = entry
    models.push({
      id,
      name: typeof name === "string" ? name : undefined,
      ownedBy: typeof owner === "string" ? owner : undefined,
    })
  }
  return Effect.succeed(models)
}
