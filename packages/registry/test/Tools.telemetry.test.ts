import { assert, describe, it } from "@effect/vitest"
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { GenAi, Toolbox, ToolCall } from "@svir/core"
import { Tools } from "@svir/registry"
import { Data, Effect, Schema } from "effect"
import { otel } from "../../../test/otel.js"

class NoOrder extends Data.TaggedError("NoOrder")<{ readonly message: string }> {}

const tools = Tools.empty.pipe(
  Tools.add("lookup", "Find an order.", Schema.Struct({ id: Schema.Int }), (args) =>
    args.id === 42
      ? Effect.succeed("order 42 is shipped")
      : Effect.fail(new NoOrder({ message: "no order" })),
  ),
)

const lookup = (id: number, callId = `call_${id}`) =>
  ToolCall.make(callId, "lookup", JSON.stringify({ id }))

const named = (spans: ReadonlyArray<ReadableSpan>, name: string) =>
  spans.filter((span) => span.name === name)

/** SpanStatusCode of @opentelemetry/api: 1 OK, 2 ERROR. */
const OK = 1
const ERROR = 2

describe("execute_tool spans", () => {
  it.effect("one per call of the toolbox, with the call's attributes and no content", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      const result = yield* Toolbox.callSafely(tools, lookup(42)).pipe(
        Effect.withSpan("agent"),
        Effect.provide(layer),
      )
      assert.isFalse(result.isError)
      const spans = exporter.getFinishedSpans()
      const [span] = named(spans, "execute_tool lookup")
      assert.isDefined(span)
      assert.deepStrictEqual(span!.attributes, {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.id": "call_42",
        "gen_ai.tool.type": "function",
      })
      assert.strictEqual(span!.status.code, OK)
      const [parent] = named(spans, "agent")
      assert.strictEqual(span!.parentSpanContext?.spanId, parent!.spanContext().spanId)
    })
  })

  it.effect("a failed result sets error.type and an error status, without its text", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      const result = yield* Tools.call(tools, lookup(7)).pipe(Effect.provide(layer))
      assert.isTrue(result.isError)
      const [span] = exporter.getFinishedSpans()
      assert.strictEqual(span!.name, "execute_tool lookup")
      assert.strictEqual(span!.attributes["error.type"], "tool_error")
      assert.strictEqual(span!.status.code, ERROR)
      assert.strictEqual(span!.status.message, "tool_error")
      assert.notInclude(JSON.stringify({ ...span!.attributes, events: span!.events }), "no order")
    })
  })

  it.effect("an unknown tool is a failed call of that name", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      yield* tools.call(ToolCall.make("call_x", "weather", "{}")).pipe(Effect.provide(layer))
      const [span] = exporter.getFinishedSpans()
      assert.strictEqual(span!.name, "execute_tool weather")
      assert.strictEqual(span!.attributes["gen_ai.tool.call.id"], "call_x")
      assert.strictEqual(span!.attributes["error.type"], "tool_error")
    })
  })

  it.effect(
    "callAll makes one span per call, in the calls' order, one at a time or at once",
    () => {
      const { exporter, layer } = otel()
      return Effect.gen(function* () {
        const calls = [lookup(42, "a"), lookup(7, "b"), lookup(42, "c")]
        const inOrder = yield* Tools.callAll(tools, calls).pipe(Effect.provide(layer))
        const atOnce = yield* Tools.callAll(tools, calls, { concurrency: 3 }).pipe(
          Effect.provide(layer),
        )
        assert.deepStrictEqual(
          [...inOrder, ...atOnce].map((result) => result.isError),
          [false, true, false, false, true, false],
        )
        const ids = exporter
          .getFinishedSpans()
          .map((span) => span.attributes["gen_ai.tool.call.id"])
          .sort()
        assert.deepStrictEqual(ids, ["a", "a", "b", "b", "c", "c"])
      })
    },
  )

  it.effect("records the arguments and the result with RecordContent", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      yield* Tools.call(tools, lookup(42)).pipe(
        Effect.provideService(GenAi.RecordContent, true),
        Effect.provide(layer),
      )
      const [span] = exporter.getFinishedSpans()
      assert.strictEqual(span!.attributes["gen_ai.tool.call.arguments"], '{"id":42}')
      assert.strictEqual(span!.attributes["gen_ai.tool.call.result"], "order 42 is shipped")
    })
  })
})
