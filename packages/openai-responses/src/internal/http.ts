/**
 * The HTTP facts of the Responses API that are not error bodies (those are `ServerError`'s): the
 * list of models at `GET /v1/models`, the same listing Chat Completions reads.
 */
import type { Codec } from "@svir/core"
import { Json, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"

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
