/**
 * Typed structured output: the answer's form is an Effect Schema, sent as a strict JSON Schema
 * response format; the answer comes back as the schema's type, or as an `OutputError` that says
 * why not (refused, cut by the output limit, not JSON, not fitting). While it streams, the object
 * so far is shown, as a UI would.
 *
 * Run it with `npx tsx --conditions=@svir/source examples/src/typed-output.ts`. It plays a
 * scripted server on 127.0.0.1 and says so; set OPENAI_BASE_URL (and OPENAI_API_KEY, SVIR_MODEL)
 * to ask a real OpenAI-compatible server that supports structured outputs.
 */
import { fileURLToPath } from "node:url"
import { Client } from "@svir/client"
import { type Completion, type Event, PartialJson, Request, SvirError } from "@svir/core"
import { StructuredOutput } from "@svir/registry"
import { Answer, ScriptedServer } from "@svir/testing"
import { Console, Effect, Exit, Schema, Stream } from "effect"
import { FetchHttpClient } from "effect/http"

/** The answer's form: a city, its country, and its districts, the population when known. */
export const City = Schema.Struct({
  name: Schema.String,
  country: Schema.String.annotate({ description: "ISO 3166-1 alpha-2 code" }),
  population: Schema.optional(Schema.Int),
  districts: Schema.Array(Schema.Struct({ name: Schema.String })),
})

/** The question, with the answer's form set. */
export const question = (
  city: StructuredOutput.StructuredOutput<typeof City.Type>,
  model: string,
): Request.Request =>
  Request.make(model).pipe(
    Request.system("Answer with facts about the city the user names."),
    Request.responseFormat(city.responseFormat),
    Request.user("Tell me about Kyoto."),
  )

/** Asks once, and gives the city, or why the answer could not be read. */
export const ask = (client: Client.Service, model: string) =>
  Effect.gen(function* () {
    const city = yield* StructuredOutput.make("city", City)
    const completion = yield* client.complete(question(city, model))
    return yield* StructuredOutput.decode(city, completion)
  })

/**
 * Streams the answer, calls `show` with the object so far each time it grows, and gives the
 * city once the answer is whole. The reader reads each piece once, and the object it gives grows
 * in place: show it then, and copy what must stay as it was.
 */
export const streamed = (client: Client.Service, model: string, show: (soFar: unknown) => void) =>
  Effect.gen(function* () {
    const city = yield* StructuredOutput.make("city", City)
    const reader = PartialJson.reader()
    let completion: Completion.Completion | undefined
    yield* client.stream(question(city, model)).pipe(
      Stream.runForEach((event: Event.Event) =>
        Effect.sync(() => {
          if (event._tag === "Completed") completion = event.completion
          if (event._tag !== "TextDelta") return
          const soFar = reader.push(event.text)
          if (soFar !== undefined && reader.changed) show(soFar)
        }),
      ),
    )
    // The client's stream ends after `Completed`, or fails; this is for the types' sake.
    if (completion === undefined) {
      return yield* SvirError.make("TruncatedStream", "the answer ended before it was whole")
    }
    return yield* StructuredOutput.decode(city, completion)
  })

/** What the scripted server answers: Kyoto, twice (once whole, once streamed). */
export const kyoto = JSON.stringify({
  name: "Kyoto",
  country: "JP",
  population: null,
  districts: [{ name: "Gion" }, { name: "Arashiyama" }],
})

const main = Effect.gen(function* () {
  let baseUrl = process.env.OPENAI_BASE_URL || undefined
  if (baseUrl === undefined) {
    const server = yield* ScriptedServer.start([Answer.text(kyoto), Answer.text(kyoto)])
    baseUrl = server.url
    yield* Console.error(`(no OPENAI_BASE_URL: talking to a scripted server at ${baseUrl})`)
  }
  const model = process.env.SVIR_MODEL ?? "scripted"
  const client = yield* Client.make({ baseUrl })
  const once = yield* ask(client, model)
  yield* Console.log(`${once.name} (${once.country}): ${once.districts.length} districts`)
  const city = yield* streamed(client, model, (soFar) =>
    console.log("so far:", JSON.stringify(soFar)),
  )
  yield* Console.log(`streamed: ${city.districts.map((district) => district.name).join(", ")}`)
}).pipe(
  Effect.catchTag("OutputError", (error) =>
    Console.error(`could not read the answer: ${error.message}`),
  ),
  Effect.provide(FetchHttpClient.layer),
  Effect.scoped,
)

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  Effect.runPromiseExit(main).then((exit) => {
    if (Exit.isFailure(exit)) {
      console.error(exit.cause)
      process.exitCode = 1
    }
  })
}
