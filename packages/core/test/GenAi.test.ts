import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Tracer } from "effect"
import { GenAi, ToolCall, ToolResult } from "../src/index.js"

/** A tracer that keeps its spans, as an exporting tracer would send them. */
const keeping = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    },
  })
  return { spans, tracer }
}

const call = ToolCall.make("call_1", "lookup", '{"id":42}')

describe("GenAi.executeTool", () => {
  it.effect("makes no span without a tracer that exports", () =>
    Effect.gen(function* () {
      assert.isFalse(yield* GenAi.isTracing)
      const result = yield* GenAi.executeTool(
        call,
        Effect.map(Effect.currentParentSpan.pipe(Effect.option), () =>
          ToolResult.make(call.id, "shipped"),
        ),
      )
      assert.strictEqual(result.content, "shipped")
    }),
  )

  it.effect("runs the answer in an execute_tool span with the call's attributes, no content", () =>
    Effect.gen(function* () {
      const { spans, tracer } = keeping()
      const result = yield* GenAi.executeTool(
        call,
        Effect.succeed(ToolResult.make(call.id, "order 42 is shipped")),
      ).pipe(Effect.withTracer(tracer))
      assert.strictEqual(result.content, "order 42 is shipped")
      assert.strictEqual(spans.length, 1)
      const span = spans[0]!
      assert.strictEqual(span.name, "execute_tool lookup")
      assert.deepStrictEqual(Object.fromEntries(span.attributes), {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.type": "function",
      })
      assert.strictEqual(span.status._tag === "Ended" && span.status.exit._tag, "Success")
    }),
  )

  it.effect("marks a failed result with error.type and an error status, and keeps the result", () =>
    Effect.gen(function* () {
      const { spans, tracer } = keeping()
      const failed = ToolResult.error(call.id, "no order 42")
      const result = yield* GenAi.executeTool(call, Effect.succeed(failed)).pipe(
        Effect.withTracer(tracer),
      )
      assert.strictEqual(result, failed)
      const span = spans[0]!
      assert.strictEqual(span.attributes.get("error.type"), "tool_error")
      const exit = span.status._tag === "Ended" ? span.status.exit : undefined
      assert.isTrue(exit !== undefined && Exit.isFailure(exit))
      // The failure carries the type, never the result's text.
      assert.notInclude(String(exit), "no order 42")
      assert.include(String(exit), "tool_error")
    }),
  )

  it.effect("records the arguments and the result with RecordContent", () =>
    Effect.gen(function* () {
      const { spans, tracer } = keeping()
      yield* GenAi.executeTool(call, Effect.succeed(ToolResult.make(call.id, "shipped"))).pipe(
        Effect.withTracer(tracer),
        Effect.provideService(GenAi.RecordContent, true),
      )
      assert.strictEqual(spans[0]!.attributes.get("gen_ai.tool.call.arguments"), '{"id":42}')
      assert.strictEqual(spans[0]!.attributes.get("gen_ai.tool.call.result"), "shipped")
    }),
  )
})
