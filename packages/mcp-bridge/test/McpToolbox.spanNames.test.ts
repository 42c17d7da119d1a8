import { afterEach, assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { GenAi, ToolCall } from "@svir/core"
import { Effect } from "effect"
import { otel } from "../../../test/otel.js"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, serveHttp } from "./servers.js"

describe("McpToolbox span names", () => {
  afterEach(assertNoChildLeft)

  it.live("a server's tool name of 20,007 characters is cut in the tools/call span", () => {
    const { exporter, layer } = otel()
    const serverName = `${"x".repeat(20_000)}_lookup`
    return Effect.gen(function* () {
      // The low-level server: McpServer would warn of the name on the console.
      const { url } = yield* serveHttp(() => {
        const server = new Server(
          { name: "long", version: "1.0.0" },
          { capabilities: { tools: {} } },
        )
        server.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: [{ name: serverName, description: "Looks up.", inputSchema: { type: "object" } }],
        }))
        server.setRequestHandler(CallToolRequestSchema, () => ({
          content: [{ type: "text", text: "found" }],
        }))
        return server
      })
      const toolbox = yield* McpToolbox.http({ url })
      const [tool] = yield* toolbox.tools
      const result = yield* toolbox.call(ToolCall.make("c1", tool!.name, "{}"))
      assert.isFalse(result.isError)
      const shown = GenAi.spanToolName(serverName)
      assert.strictEqual(shown.length, ToolCall.shownNameLimit + 1)
      const mcp = exporter.getFinishedSpans().find((span) => span.name.startsWith("tools/call"))
      assert.strictEqual(mcp?.name, `tools/call ${shown}`)
      assert.strictEqual(mcp?.attributes["gen_ai.tool.name"], shown)
    }).pipe(Effect.scoped, Effect.provide(layer))
  })
})
