import { assert, describe, it } from "@effect/vitest"
import { Client } from "@svir/client"
import { type Completion, Request, type SvirError } from "@svir/core"
import { StructuredOutput } from "@svir/registry"
import { Answer, ScriptedServer } from "@svir/testing"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { zodResponseFormat } from "openai/helpers/zod"
import * as z from "zod"
import * as TypedOutput from "../src/typed-output.js"

const withServer = (script: ReadonlyArray<Answer.Answer>) =>
  Effect.gen(function* () {
    const server = yield* ScriptedServer.start(script, { chunkSize: 3 })
    const client = yield* Client.make({ baseUrl: server.url }).pipe(
      Effect.provide(FetchHttpClient.layer),
    )
    return { server, client }
  })

/** Why an answer was not read: the OutputError's reason, or the SvirError's. */
const whyNot = (
  completion: Effect.Effect<Completion.Completion, SvirError.SvirError>,
  output: StructuredOutput.StructuredOutput<unknown>,
) =>
  Effect.flatMap(completion, (done) => StructuredOutput.decode(output, done)).pipe(
    Effect.match({
      onSuccess: () => "read",
      onFailure: (error) => error.reason._tag,
    }),
  )

// A refusal as OpenAI streams it: `refusal` in the delta (null content, then its pieces), finish
// `stop` (the codec's cases `json-refusal` and `refusal-null-alongside-content` hold the same).
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-r", object: "chat.completion.chunk", model: "gpt-4o-2024-08-06", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
const streamedRefusal = Answer.raw([
  chunk({ role: "assistant", content: null, refusal: "" }),
  chunk({ refusal: "I'm sorry, I can't " }),
  chunk({ refusal: "help with that." }),
  chunk({}, "stop"),
  "data: [DONE]\n\n",
])

// The same, whole (the codec's case `json-refusal`): `content: null`, the words in `refusal`.
const wholeRefusal = Answer.raw(
  JSON.stringify({
    id: "chatcmpl-r",
    object: "chat.completion",
    model: "gpt-4o-2024-08-06",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          refusal: "I'm sorry, I can't help with that.",
        },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
  }),
  { headers: { "content-type": "application/json" } },
)

describe("typed structured output against the scripted server", () => {
  it.live("sends the strict schema and reads the whole answer as a City", () =>
    Effect.gen(function* () {
      const { server, client } = yield* withServer([Answer.text(TypedOutput.kyoto)])
      const city = yield* TypedOutput.ask(client, "scripted")
      assert.deepStrictEqual(city, {
        name: "Kyoto",
        country: "JP",
        population: undefined,
        districts: [{ name: "Gion" }, { name: "Arashiyama" }],
      })
      const sent = server.bodies[0] as { readonly response_format: unknown }
      assert.deepStrictEqual(sent.response_format, {
        type: "json_schema",
        json_schema: {
          name: "city",
          strict: true,
          schema: {
            type: "object",
            properties: {
              name: { type: "string" },
              country: { type: "string", description: "ISO 3166-1 alpha-2 code" },
              population: { anyOf: [{ type: "integer" }, { type: "null" }] },
              districts: {
                type: "array",
                items: {
                  type: "object",
                  properties: { name: { type: "string" } },
                  required: ["name"],
                  additionalProperties: false,
                },
              },
            },
            required: ["name", "country", "population", "districts"],
            additionalProperties: false,
          },
        },
      })
    }),
  )

  it.live("streams: the object so far grows, and the end is the City", () =>
    Effect.gen(function* () {
      const { client } = yield* withServer([Answer.text(TypedOutput.kyoto)])
      const shown: Array<unknown> = []
      const city = yield* TypedOutput.streamed(client, "scripted", (soFar) =>
        shown.push(structuredClone(soFar)),
      )
      assert.strictEqual(city.districts[1]?.name, "Arashiyama")
      assert.isAbove(shown.length, 5)
      assert.deepStrictEqual(shown.at(-1), JSON.parse(TypedOutput.kyoto))
      // Each object shown holds what the one before it held: a UI never sees a field go back.
      for (let i = 1; i < shown.length; i++) {
        const before = JSON.stringify(shown[i - 1]).replace(/["\]}]+$/, "")
        assert.isTrue(JSON.stringify(shown[i]).startsWith(before), JSON.stringify(shown[i]))
      }
    }),
  )

  it.live("a refusal, an answer cut by the output limit, prose and a wrong field are typed", () =>
    Effect.gen(function* () {
      const cut = TypedOutput.kyoto.slice(0, 30)
      const { client } = yield* withServer([
        wholeRefusal,
        Answer.text(cut, { finish: "length" }),
        Answer.text("Kyoto is a city in Japan."),
        Answer.text(TypedOutput.kyoto.replace('"JP"', "81")),
      ])
      const city = yield* StructuredOutput.make("city", TypedOutput.City)
      const request = TypedOutput.question(city, "scripted")
      assert.strictEqual(yield* whyNot(client.complete(request), city), "Refused")
      assert.strictEqual(yield* whyNot(client.complete(request), city), "Truncated")
      assert.strictEqual(yield* whyNot(client.complete(request), city), "NotJson")
      assert.strictEqual(yield* whyNot(client.complete(request), city), "Mismatch")
    }),
  )

  it.live("a streamed refusal is a Refused reason with the model's words", () =>
    Effect.gen(function* () {
      const { client } = yield* withServer([streamedRefusal])
      const error = yield* Effect.flip(TypedOutput.streamed(client, "scripted", () => {}))
      assert.deepStrictEqual(
        error._tag === "OutputError" ? error.reason : error,
        new StructuredOutput.Refused({ refusal: "I'm sorry, I can't help with that." }),
      )
    }),
  )

  it.live("sends for a zod schema what the OpenAI SDK's zodResponseFormat sends", () =>
    Effect.gen(function* () {
      const Weather = z.object({
        city: z.string().describe("The city asked about."),
        celsius: z.number(),
        sky: z.enum(["clear", "cloudy", "rain"]),
        wind: z.object({ speed: z.number(), gusts: z.number().nullable() }),
        alerts: z.array(
          z.discriminatedUnion("kind", [
            z.object({ kind: z.literal("storm"), until: z.string() }),
            z.object({ kind: z.literal("heat"), peak: z.number() }),
          ]),
        ),
      })
      const answer: z.infer<typeof Weather> = {
        city: "Oslo",
        celsius: -3,
        sky: "clear",
        wind: { speed: 4, gusts: null },
        alerts: [],
      }
      const { server, client } = yield* withServer([Answer.text(JSON.stringify(answer))])
      const weather = yield* StructuredOutput.make("weather", Weather)
      const completion = yield* client.complete(
        Request.make("scripted").pipe(
          Request.responseFormat(weather.responseFormat),
          Request.user("Oslo?"),
        ),
      )
      assert.deepStrictEqual(yield* StructuredOutput.decode(weather, completion), answer)
      const { $schema: _dialect, ...expected } = zodResponseFormat(Weather, "weather").json_schema
        .schema as Record<string, unknown>
      const sent = server.bodies[0] as {
        readonly response_format: { readonly json_schema: unknown }
      }
      assert.deepStrictEqual(sent.response_format.json_schema, {
        name: "weather",
        schema: expected,
        strict: true,
      })
    }),
  )
})
