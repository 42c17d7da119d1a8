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
        // server-everything is on SDK 1.x: the revision of its initialize (D48).
        "mcp.protocol.version": "2025-11-25",
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

  it.live(
    "with propagateTraceContext, the server gets the tools/call span's traceparent in _meta",
    () => {
      const { exporter, layer } = otel()
      return Effect.gen(function* () {
        const seen: Array<unknown> = []
        const serve = () =>
          serveHttp(() => {
            const server = new McpServer({ name: "traced", version: "1.0.0" })
            server.registerTool("whoami", { description: "Says hello." }, (extra) => {
              seen.push(extra._meta?.traceparent)
              return { content: [{ type: "text", text: "hello" }] }
            })
            return server
          })
        const first = yield* serve()
        const second = yield* serve()
        const propagating = yield* McpToolbox.http(
          { url: first.url },
          { propagateTraceContext: true },
        )
        const quiet = yield* McpToolbox.http({ url: second.url })
        yield* propagating.call(ToolCall.make("c1", "whoami", "{}"))
        yield* quiet.call(ToolCall.make("c2", "whoami", "{}"))
        const spans = exporter
          .getFinishedSpans()
          .filter((span) => span.name === "tools/call whoami")
        assert.strictEqual(spans.length, 2)
        const { traceId, spanId } = spans[0]!.spanContext()
        assert.deepStrictEqual(seen, [`00-${traceId}-${spanId}-01`, undefined])
      }).pipe(Effect.scoped, Effect.provide(layer))
    },
  )
})
