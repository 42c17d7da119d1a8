/**
 * One agent on the Responses wire: the tool loop (`@svir/loop`) over the registry's tools,
 * through `@svir/client`, with only the codec changed: against a server on 127.0.0.1 that replays
 * OpenAI's own streams (prism-php/prism's recordings, `@svir/conformance`'s
 * `cases/openai-responses/recordings/prism`, provenance in its README), and against
 * `@svir/testing`'s scripted server (which answers in the shape of OpenAI's recorded streams, its
 * DECISIONS.md D1). Every body the client sends is checked against the Open Responses
 * specification.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@svir/client"
import { Request } from "@svir/core"
import { Loop } from "@svir/loop"
import { Tools } from "@svir/registry"
import { Answer, ScriptedServer } from "@svir/testing"
import { Effect, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { replayServer } from "../../../test/replayServer.js"
import { Reasoning, ResponsesCodec } from "../src/index.js"
import { requestErrors } from "./support/openapi.js"
import { read } from "./support/recordings.js"

/** The registry's tool the model calls, and what it was called with. */
const weatherTool = () => {
  const got: Array<{ readonly location: string }> = []
  const tools = Tools.empty.pipe(
    Tools.add(
      "get_weather",
      "The weather in a place.",
      Schema.Struct({ location: Schema.String }),
      (args) => {
        got.push(args)
        return "62°F, sunny"
      },
    ),
  )
  return { tools, got }
}

const clientOf = (baseUrl: string) =>
  Client.make({ baseUrl, apiKey: "sk-test", retry: false, codec: ResponsesCodec.make() }).pipe(
    Effect.provide(FetchHttpClient.layer),
  )

const script = () => [
  Answer.reply({
    reasoning: "The user wants the weather; I will call the tool.",
    text: "Let me check.",
    calls: [{ name: "get_weather", arguments: { location: "Paris" } }],
  }),
  Answer.text("Sunny in Paris."),
]

type Item = { readonly [key: string]: unknown }

/** The bodies a replaying server received, as Responses requests. */
const bodiesOf = (server: { readonly received: ReadonlyArray<{ readonly body: unknown }> }) =>
  server.received.map((request) => request.body as { readonly input: ReadonlyArray<Item> })

describe("one agent on OpenAI's recorded streams", () => {
  it.live("both calls of a recorded answer run, and their results go back in order", () =>
    Effect.gen(function* () {
      const ran: Array<string> = []
      const tools = Tools.empty.pipe(
        Tools.add(
          "search",
          "Searches the web.",
          Schema.Struct({ query: Schema.String }),
          (args) => {
            ran.push(`search ${args.query}`)
            return "The Tigers play at 6:40 PM."
          },
        ),
        Tools.add(
          "weather",
          "The weather in a city.",
          Schema.Struct({ city: Schema.String }),
          (args) => {
            ran.push(`weather ${args.city}`)
            return "75°F, clear"
          },
        ),
      )
      const server = yield* replayServer([
        read("prism/stream-with-tools-responses-1.sse"),
        read("prism/stream-basic-text-responses-1.sse"),
      ])
      const client = yield* clientOf(server.url)
      const request = yield* Request.make("gpt-4o").pipe(
        Request.user("What time is the Tigers game today, and should I wear a coat?"),
        Request.toolsFrom(tools),
      )
      const result = yield* Loop.run({ send: client.stream, toolbox: tools, request })

      assert.deepStrictEqual(ran, [
        "search Detroit Tigers game schedule October 10, 2023",
        "weather Detroit",
      ])
      assert.match(result.text, /^I am OpenAI's language model, known as GPT-3\./)
      assert.strictEqual(result.steps.length, 2)
      for (const body of bodiesOf(server)) assert.deepStrictEqual(requestErrors(body), [])
      const input = bodiesOf(server)[1]?.input ?? []
      assert.deepStrictEqual(
        input.map((item) => [item.type, item.call_id ?? item.role]),
        [
          ["message", "user"],
          ["function_call", "call_okunv0eUNIXE8kqY81fgYvCs"],
          ["function_call", "call_ydtVlYcFLcDX2C7dcHgKZjl3"],
          ["function_call_output", "call_okunv0eUNIXE8kqY81fgYvCs"],
          ["function_call_output", "call_ydtVlYcFLcDX2C7dcHgKZjl3"],
        ],
      )
      assert.deepStrictEqual(
        input.slice(3).map((item) => item.output),
        ["The Tigers play at 6:40 PM.", "75°F, clear"],
      )
    }).pipe(Effect.scoped),
  )
})

describe("one agent on Responses", () => {
  it.live("streams reasoning, text and a call; the reasoning item goes back as it came", () =>
    Effect.gen(function* () {
      const { tools, got } = weatherTool()
      const server = yield* ScriptedServer.start(script(), { chunkSize: 3 })
      const client = yield* clientOf(server.url)
      const request = yield* Request.make("gpt-5").pipe(
        Request.user("What is the weather in Paris?"),
        Request.reasoningEffort("low"),
        Request.toolsFrom(tools),
      )
      const result = yield* Loop.run({ send: client.stream, toolbox: tools, request })

      assert.strictEqual(result.text, "Sunny in Paris.")
      assert.deepStrictEqual(result.stop, { _tag: "Answered" })
      assert.deepStrictEqual(got, [{ location: "Paris" }])
      const first = result.steps[0]?.completion
      assert.strictEqual(first?.reasoning, "The user wants the weather; I will call the tool.")
      const sent = first === undefined ? [] : Reasoning.items(first)
      assert.strictEqual(sent.length, 1)
      assert.strictEqual(sent[0]?.encrypted_content, "scripted-encrypted-reasoning")

      assert.deepStrictEqual(
        server.requests.map((r) => [r.path, r.headers.authorization]),
        [
          ["/v1/responses", "Bearer sk-test"],
          ["/v1/responses", "Bearer sk-test"],
        ],
      )
      for (const body of server.bodies) assert.deepStrictEqual(requestErrors(body), [])
      const [firstBody, secondBody] = server.bodies as ReadonlyArray<{
        readonly store?: boolean
        readonly include?: ReadonlyArray<string>
        readonly input: ReadonlyArray<Item>
      }>
      assert.strictEqual(firstBody?.store, false)
      assert.include(firstBody?.include ?? [], "reasoning.encrypted_content")
      const input = secondBody?.input ?? []
      const reasoning = input.find((item) => item.type === "reasoning")
      assert.deepStrictEqual(reasoning, sent[0] as unknown as Item)
      const call = input.find((item) => item.type === "function_call")
      assert.strictEqual(call?.name, "get_weather")
      assert.deepStrictEqual(JSON.parse(String(call?.arguments)), { location: "Paris" })
      assert.isBelow(input.indexOf(reasoning!), input.indexOf(call!))
      const output = input.find((item) => item.type === "function_call_output")
      assert.strictEqual(output?.call_id, call?.call_id)
      assert.strictEqual(output?.output, "62°F, sunny")
    }),
  )

  it.live("answers whole, and lists its models", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start(script(), { models: ["gpt-5"] })
      const client = yield* clientOf(server.url)
      const request = yield* Request.make("gpt-5").pipe(
        Request.user("Weather in Paris?"),
        Request.toolsFrom(weatherTool().tools),
      )
      const completion = yield* client.complete(request)
      assert.strictEqual(completion.text, "Let me check.")
      assert.strictEqual(completion.finish, "tool_calls")
      assert.deepStrictEqual(
        completion.calls.map((call) => [call.name, JSON.parse(call.arguments)]),
        [["get_weather", { location: "Paris" }]],
      )
      assert.deepStrictEqual(requestErrors(server.bodies[0]), [])
      const models = yield* client.listModels()
      assert.deepStrictEqual(
        models.map((model) => model.id),
        ["scripted", "gpt-5"],
      )
    }),
  )

  it.live(
    "a model that does not reason refuses encrypted reasoning; the lean retry serves it (D11)",
    () =>
      Effect.gen(function* () {
        const server = yield* ScriptedServer.start([
          // OpenAI's answer to `include: ["reasoning.encrypted_content"]` for a model that does not
          // reason (DECISIONS.md D6).
          Answer.error(400, "Encrypted content is not supported with this model.", {
            param: "include",
          }),
          Answer.text("Hi."),
          Answer.text("Hi again."),
        ])
        const client = yield* clientOf(server.url)
        const request = Request.make("gpt-4.1").pipe(Request.user("Hi"))
        const first = yield* client.complete(request)
        const second = yield* client.complete(request)

        assert.deepStrictEqual([first.text, second.text], ["Hi.", "Hi again."])
        const bodies = server.bodies as ReadonlyArray<{ readonly include?: ReadonlyArray<string> }>
        assert.deepStrictEqual(
          bodies.map((body) => body.include),
          [["reasoning.encrypted_content"], undefined, undefined],
        )
        for (const body of bodies) assert.strictEqual((body as { store?: boolean }).store, false)
      }),
  )

  it.live("a rate limit answer is read as RateLimited, with the server's words", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.error(429, "Rate limit reached for gpt-5 on tokens per min.", {
          type: "tokens",
          code: "rate_limit_exceeded",
        }),
      ])
      const client = yield* clientOf(server.url)
      const request = Request.make("gpt-5").pipe(Request.user("Hi"))
      const error = yield* Effect.flip(client.complete(request))
      assert.strictEqual(error.reason._tag, "RateLimited")
      assert.include(error.serverMessage ?? "", "Rate limit reached")
    }),
  )
})
