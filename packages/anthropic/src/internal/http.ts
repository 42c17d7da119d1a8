/**
 * The HTTP facts of the Messages API that are not error bodies (those are `ServerError`'s): the
 * headers, and the list of models at `GET /v1/models` (DECISIONS.md D19).
 */
import type { Codec } from "@svir/core"
import { Json, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"

/** The API version every request names (the API's "Versions" page: `2023-06-01`, the current). */
const apiVersion = "2023-06-01"

/** D19: the key goes as `x-api-key`; every request names the API version. */
export const headers = (apiKey: string | undefined): Readonly<Record<string, string>> =>
  apiKey === undefined
    ? { "anthropic-version": apiVersion }
    : { "x-api-key": apiKey, "anthropic-version": apiVersion }

/** D19: the largest page the listing gives (its `limit`: "Defaults to 20. Ranges from 1 to 1000"). */
export const modelsPageSize = 1000

const listingError = (message: string) =>
  Effect.fail(SvirError.make("Protocol", `the list of models ${message}`))

/**
 * `GET /v1/models?limit=1000`: `{"data": [{"id", "display_name", ...}], "has_more": ...}`. D19:
 * one page is read; a list that says it has more (more than 1000 models) is a ResponseLimit error
 * rather than part of the list given as the whole.
 */
export const decodeModels = (
  text: string,
): Effect.Effect<ReadonlyArray<Codec.Model>, SvirError.SvirError> => {
  const json = Json.parse(text)
  if (Result.isFailure(json)) return listingError(`could not be read: ${json.failure.message}`)
  const body = json.success
  const data = Json.isObject(body) ? body.data : undefined
  if (!Array.isArray(data)) return listingError("has no `data` array")
  if (Json.isObject(body) && body.has_more === true) {
    return Effect.fail(
      SvirError.make(
        "ResponseLimit",
        `the list of models has more than one page of ${modelsPageSize}; pages after the first are not read`,
        { limit: "maxPages", max: 1 },
      ),
    )
  }
  const models: Array<Codec.Model> = []
  for (const entry of data) {
    const id = Json.isObject(entry) ? entry.id : undefined
    if (!Json.isObject(entry) || typeof id !== "string") {
      return Effect.fail(SvirError.make("Protocol", "a model in the list has no string `id`"))
    }
    const name = entry.display_name
    models.push({ id, name: typeof name === "string" ? name : undefined, ownedBy: undefined })
  }
  return Effect.succeed(models)
}
