import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { otel } from "../../../test/otel.js"
import { GenAi, ToolCall, ToolResult } from "../src/index.js"

describe("execute_tool span names", () => {
  it.effect(
    "a tool name of 20,007 characters is cut in the span's name and gen_ai.tool.name",
    () => {
      const { exporter, layer } = otel()
      const name = `${"x".repeat(20_000)}_lookup`
      const call = ToolCall.make("call_1", name, "{}")
      return Effect.gen(function* () {
        const result = yield* GenAi.executeTool(
          call,
          Effect.succeed(ToolResult.make(call.id, "ok")),
        )
        assert.strictEqual(result.content, "ok")
        const [span] = exporter.getFinishedSpans()
        const shown = ToolCall.shownName(name)
        assert.strictEqual(shown.length, ToolCall.shownNameLimit + 1)
        assert.strictEqual(span?.name, `execute_tool ${shown}`)
        assert.strictEqual(span?.attributes["gen_ai.tool.name"], shown)
      }).pipe(Effect.provide(layer))
    },
  )

  it.effect("a name within the limit is kept whole", () => {
    const { exporter, layer } = otel()
    const name = "x".repeat(ToolCall.shownNameLimit)
    const call = ToolCall.make("call_1", name, "{}")
    return Effect.gen(function* () {
      yield* GenAi.executeTool(call, Effect.succeed(ToolResult.make(call.id, "ok")))
      const [span] = exporter.getFinishedSpans()
      assert.strictEqual(span?.name, `execute_tool ${name}`)
      assert.strictEqual(span?.attributes["gen_ai.tool.name"], name)
      assert.strictEqual(GenAi.spanToolName(name), name)
    }).pipe(Effect.provide(layer))
  })
})
