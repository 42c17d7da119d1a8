import { assert, describe, it } from "@effect/vitest"
import { Loop } from "@svir/loop"
import { Answer } from "@svir/testing"
import { Effect, Stream } from "effect"
import { otel } from "../../../test/otel.js"
import { serverAndClient, tools } from "./helpers.js"

const script = () => [
  Answer.reply(
    { calls: [{ name: "lookup", arguments: { id: 42 } }, { name: "now" }] },
    { usage: { input: 30, output: 10 } },
  ),
  Answer.text("Order 42 is shipped.", { usage: { input: 50, output: 6 } }),
]

describe("the invoke_agent span", () => {
  it.live("holds the loop's model calls and tool calls, with its steps and usage", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      const { client, request } = yield* serverAndClient(script())
      const result = yield* Loop.run({ send: client.stream, toolbox: tools, request })
      assert.strictEqual(result.steps.length, 2)
      const spans = exporter.getFinishedSpans()
      const agent = spans.find((span) => span.name === "invoke_agent")!
      assert.deepStrictEqual(agent.attributes, {
        "gen_ai.operation.name": "invoke_agent",
        "svir.agent.steps": 2,
        "gen_ai.usage.input_tokens": 80,
        "gen_ai.usage.output_tokens": 16,
      })
      const children = spans
        .filter((span) => span.parentSpanContext?.spanId === agent.spanContext().spanId)
        .map((span) => span.name)
      assert.deepStrictEqual(children, [
        "chat scripted",
        "execute_tool lookup",
        "execute_tool now",
        "chat scripted",
      ])
    }).pipe(Effect.provide(layer))
  })

  it.live("is made by Loop.stream too", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      const { client, request } = yield* serverAndClient(script())
      yield* Loop.stream({ send: client.stream, toolbox: tools, request }).pipe(Stream.runDrain)
      const names = exporter.getFinishedSpans().map((span) => span.name)
      assert.include(names, "invoke_agent")
      assert.strictEqual(names.filter((name) => name === "chat scripted").length, 2)
    }).pipe(Effect.provide(layer))
  })
})
