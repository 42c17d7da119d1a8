/**
 * One agent, two wires: the same tool loop (`@svir/loop`) over the same registry's tools, through
 * `@svir/client`, with only the codec changed. On Chat Completions it talks to `@svir/testing`'s
 * scripted server; on Messages to a server on 127.0.0.1 that replays the Messages API's own
 * streams from its documentation (`@svir/conformance`'s `cases/anthropic/recordings/docs`, provenance in its README): a text and a
 * `get_weather` call, then a text answer.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@svir/client"
import { type Codec, Request } from "@svir/core"
import { Loop } from "@svir/loop"
import { Tools } from "@svir/registry"
import { Answer, ScriptedServer } from "@svir/testing"
import { Effect, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { replayServer } from "../../../test/replayServer.js"
import { AnthropicCodec } from "../src/index.js"
import { read } from "./support/recordings.js"

/** The registry's tool the recordings call, and what it was called with. */
const weatherTool = () => {
  const got: Array<{ readonly location: string; readonly unit?: string | undefined }> = []
  const tools = Tools.empty.pipe(
    Tools.add(
      "get_weather",
      "The weather in a place.",
      Schema.Struct({ location: Schema.String, unit: Schema.optionalKey(Schema.String) }),
      (args) => {
        got.push(args)
        return "62°F, sunny"
      },
    ),
  )
  return { tools, got }
}

/** The agent: one question, the registry's tools, the loop to the end. */
const agent = (client: Client.Service, tools: ReturnType<typeof weatherTool>["tools"]) =>
  Effect.gen(function* () {
    const request = yield* Request.make("claude-opus-4-6").pipe(
      Request.user("What is the weather in San Francisco?"),
      Request.maxTokens(1024),
      Request.toolsFrom(tools),
    )
    return yield* Loop.run({ send: client.stream, toolbox: tools, request })
  })

const clientOf = (baseUrl: string, codec?: Codec.Codec) =>
  Client.make({ baseUrl, apiKey: "sk-test", retry: false, codec }).pipe(
    Effect.provide(FetchHttpClient.layer),
  )

describe("one agent on two wires", () => {
  it.live("Messages: the call of the documented stream is run and its result sent back", () =>
    Effect.gen(function* () {
      const { tools, got } = weatherTool()
      const server = yield* replayServer([
        read("docs/streaming-tool-use.sse"),
        read("docs/streaming-basic.sse"),
      ])
      const client = yield* clientOf(server.url, AnthropicCodec.make())
      const result = yield* agent(client, tools)

      assert.strictEqual(result.text, "Hello!")
      assert.deepStrictEqual(result.stop, { _tag: "Answered" })
      assert.strictEqual(result.steps.length, 2)
      assert.deepStrictEqual(got, [{ location: "San Francisco, CA", unit: "fahrenheit" }])

      const [first, second] = server.received
      assert.isDefined(first)
      assert.isDefined(second)
      assert.strictEqual(first?.url, "/v1/messages")
      assert.strictEqual(first?.headers["x-api-key"], "sk-test")
      assert.isUndefined(first?.headers.authorization)
      assert.deepStrictEqual(
        (first.body.tools as ReadonlyArray<{ readonly name: string }>).map((tool) => tool.name),
        ["get_weather"],
      )
      const messages = second?.body.messages as ReadonlyArray<{
        readonly role: string
        readonly content: ReadonlyArray<Record<string, unknown>>
      }>
      assert.deepStrictEqual(
        messages.map((message) => message.role),
        ["user", "assistant", "user"],
      )
      assert.deepStrictEqual(
        messages[1]?.content.map((block) => block.type),
        ["text", "tool_use"],
      )
      assert.deepStrictEqual(messages[2]?.content, [
        {
          type: "tool_result",
          tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
          content: "62°F, sunny",
        },
      ])
    }).pipe(Effect.scoped),
  )

  it.live("Chat Completions: the same agent, the same call, with the default codec", () =>
    Effect.gen(function* () {
      const { tools, got } = weatherTool()
      const server = yield* ScriptedServer.start([
        Answer.reply({
          text: "Okay, let's check the weather for San Francisco, CA:",
          calls: [
            {
              name: "get_weather",
              arguments: { location: "San Francisco, CA", unit: "fahrenheit" },
            },
          ],
        }),
        Answer.text("Hello!"),
      ])
      const client = yield* clientOf(server.url)
      const result = yield* agent(client, tools)

      assert.strictEqual(result.text, "Hello!")
      assert.strictEqual(result.steps.length, 2)
      assert.deepStrictEqual(got, [{ location: "San Francisco, CA", unit: "fahrenheit" }])
      const messages = (server.bodies[1] as { readonly messages: ReadonlyArray<{ role: string }> })
        .messages
      assert.deepStrictEqual(
        messages.map((message) => message.role),
        ["user", "assistant", "tool"],
      )
    }),
  )
})

describe("@svir/testing's scripted server on Messages", () => {
  const script = () => [
    Answer.reply({
      reasoning: "The user wants the weather; I will call the tool.",
      text: "Let me check.",
      calls: [{ name: "get_weather", arguments: { location: "Paris" } }],
    }),
    Answer.text("Sunny in Paris."),
  ]

  it.live("streams thinking, text and a call; the thinking goes back signed", () =>
    Effect.gen(function* () {
      const { tools, got } = weatherTool()
      const server = yield* ScriptedServer.start(script(), { chunkSize: 3 })
      const client = yield* clientOf(server.url, AnthropicCodec.make())
      const result = yield* agent(client, tools)

      assert.strictEqual(result.text, "Sunny in Paris.")
      assert.deepStrictEqual(got, [{ location: "Paris" }])
      assert.strictEqual(
        result.steps[0]?.completion.reasoning,
        "The user wants the weather; I will call the tool.",
      )
      assert.deepStrictEqual(
        server.requests.map((request) => request.path),
        ["/v1/messages", "/v1/messages"],
      )
      const messages = (
        server.bodies[1] as {
          readonly messages: ReadonlyArray<{
            readonly role: string
            readonly content: ReadonlyArray<Record<string, unknown>>
          }>
        }
      ).messages
      assert.deepStrictEqual(
        messages[1]?.content.map((block) => block.type),
        ["thinking", "text", "tool_use"],
      )
      assert.strictEqual(messages[1]?.content[0]?.signature, "scripted-signature")
      assert.deepStrictEqual(messages[2]?.content[0], {
        type: "tool_result",
        tool_use_id: messages[1]?.content[2]?.id,
        content: "62°F, sunny",
      })
    }),
  )

  it.live("answers whole, and lists its models in a body the codec reads", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start(script(), { models: ["claude-opus-4-6"] })
      const client = yield* clientOf(server.url, AnthropicCodec.make())
      const request = yield* Request.make("claude-opus-4-6").pipe(
        Request.user("Weather in Paris?"),
        Request.maxTokens(1024),
        Request.toolsFrom(weatherTool().tools),
      )
      const completion = yield* client.complete(request)
      assert.strictEqual(completion.text, "Let me check.")
      assert.strictEqual(completion.finish, "tool_calls")
      assert.deepStrictEqual(
        completion.calls.map((call) => [call.name, JSON.parse(call.arguments)]),
        [["get_weather", { location: "Paris" }]],
      )
      const models = yield* client.listModels()
      assert.deepStrictEqual(
        models.map((model) => model.id),
        ["scripted", "claude-opus-4-6"],
      )
    }),
  )
})
