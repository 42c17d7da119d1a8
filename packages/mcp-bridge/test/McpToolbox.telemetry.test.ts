import { afterEach, assert, describe, it } from "@effect/vitest"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { SpanKind } from "@opentelemetry/api"
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { GenAi, ToolCall } from "@svir/core"
import { Effect } from "effect"
import { otel } from "../../../test/otel.js"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, referenceServer, serveHttp } from "./servers.js"

const byName = (spans: ReadonlyArray<ReadableSpan>, name: string) =>
  spans.find((span) => span.name === name)

/** SpanStatusCode of @opentelemetry/api: 2 ERROR. */
const ERROR = 2

describe("McpToolbox spans", () => {
  afterEach(assertNoChildLeft)

  it.live("an execute_tool span around one tools/call span, over stdio", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      const toolbox = yield* McpToolbox.stdio(
        { command: process.execPath, args: [referenceServer("everything"), "stdio"] },
        { prefix: "every" },
      )
      const result = yield* toolbox.call(
        ToolCall.make("call_1", "every__echo", '{"message":"hello there"}'),
      )
      assert.isFalse(result.isError)
      const spans = exporter.getFinishedSpans()
      const tool = byName(spans, "execute_tool every__echo")
      const mcp = byName(spans, "tools/call echo")
      assert.deepStrictEqual(tool?.attributes, {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "every__echo",
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.type": "function",
      })
      assert.strictEqual(mcp?.kind, SpanKind.CLIENT)
      assert.deepStrictEqual(mcp?.attributes, {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo",
        "network.transport": "pipe",
      })
      assert.strictEqual(mcp?.parentSpanContext?.spanId, tool?.spanContext().spanId)
      assert.notInclude(JSON.stringify(spans.map((span) => span.attributes)), "hello there")
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.live(
    "a failed result marks both spans; the session and tcp over HTTP; content opted in",
    () => {
      const { exporter, layer } = otel()
      return Effect.gen(function* () {
        const { url } = yield* serveHttp(() => {
          const server = new McpServer({ name: "failing", version: "1.0.0" })
          server.registerTool("full", { description: "Fails." }, () => ({
            content: [{ type: "text", text: "disk full" }],
            isError: true,
          }))
          return server
        })
        const toolbox = yield* McpToolbox.http({ url })
        const result = yield* toolbox
          .call(ToolCall.make("c1", "full", "{}"))
          .pipe(Effect.provideService(GenAi.RecordContent, true))
        assert.isTrue(result.isError)
        const spans = exporter.getFinishedSpans()
        const tool = byName(spans, "execute_tool full")
        const mcp = byName(spans, "tools/call full")
        for (const span of [tool, mcp]) {
          assert.strictEqual(span?.attributes["error.type"], "tool_error")
          assert.strictEqual(span?.status.code, ERROR)
        }
        assert.strictEqual(tool?.attributes["gen_ai.tool.call.result"], "disk full")
        assert.strictEqual(mcp?.attributes["network.transport"], "tcp")
        assert.isString(mcp?.attributes["mcp.session.id"])
      }).pipe(Effect.scoped, Effect.provide(layer))
    },
  )
})
