import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { ToolCall } from "@svir/core"
import { Effect } from "effect"
import { McpToolbox } from "../src/index.js"
import { everythingOverHttp } from "./remoteServers.js"
import { assertNoChildLeft, callThenKill, progressOf } from "./servers.js"

const echo = (toolbox: McpToolbox.McpToolbox, id: string) =>
  toolbox.call(ToolCall.make(id, "echo", JSON.stringify({ message: id })))

describe("McpToolbox over the legacy SSE transport, with server-everything", () => {
  afterEach(assertNoChildLeft)

  it.live("sse lists the tools and calls them", () =>
    Effect.gen(function* () {
      const server = yield* everythingOverHttp("sse")
      const toolbox = yield* McpToolbox.sse({ url: server.url }, { prefix: "old" })
      const names = (yield* toolbox.tools).map((tool) => tool.name)
      assert.include(names, "old__echo")
      assert.include(names, "old__get-sum")
      const sum = yield* toolbox.call(ToolCall.make("c1", "old__get-sum", '{"a": 2, "b": 40}'))
      assert.deepStrictEqual(sum, {
        callId: "c1",
        content: "The sum of 2 and 40 is 42.",
        isError: false,
      })
    }),
  )

  it.live("http falls back to SSE for a server without Streamable HTTP, unless told not to", () =>
    Effect.gen(function* () {
      const server = yield* everythingOverHttp("sse")
      const toolbox = yield* McpToolbox.http({ url: server.url })
      assert.strictEqual((yield* echo(toolbox, "c1")).content, "Echo: c1")
      const refused = yield* Effect.flip(McpToolbox.http({ url: server.url, sseFallback: false }))
      assert.strictEqual(refused.reason._tag, "Transport")
      assert.strictEqual(refused.status, 404)
      assert.match(
        refused.message,
        /^connecting to the MCP server at .+ failed: the server answered HTTP 404$/,
      )
    }),
  )

  it.live("http says what both transports answered when neither is there", () =>
    Effect.gen(function* () {
      const nothing = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const server = createServer((_, res) => res.writeHead(404).end("no such page"))
          await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
          return server
        }),
        (server) => Effect.promise(() => new Promise((resolve) => server.close(resolve))),
      )
      const { port } = nothing.address() as AddressInfo
      const error = yield* Effect.flip(McpToolbox.http({ url: `http://127.0.0.1:${port}/mcp` }))
      assert.strictEqual(error.reason._tag, "Transport")
      assert.strictEqual(error.status, 404)
      assert.match(
        error.message,
        /^connecting to the MCP server at \S+ failed: the server answered HTTP 404; connecting to the MCP server at \S+ over the legacy SSE transport failed: the server answered HTTP 404$/,
      )
    }),
  )

  it.live("fails the calls in flight when the server dies, and connects again for the next", () =>
    Effect.gen(function* () {
      const server = yield* everythingOverHttp("sse")
      const progress = progressOf(["c1", "c2"])
      const toolbox = yield* McpToolbox.sse(
        { url: server.url, reconnect: { backoffMillis: 10 } },
        { timeoutMillis: 30_000, onProgress: progress.onProgress },
      )
      const slow = ToolCall.make(
        "c1",
        "trigger-long-running-operation",
        '{"duration": 15, "steps": 1000}',
      )
      const { failed, contents, millisAfterKill } = yield* callThenKill(
        toolbox,
        [slow, { ...slow, id: "c2" }],
        progress.allReported,
        server.kill,
      )
      assert.isBelow(millisAfterKill, 5_000)
      assert.deepStrictEqual(failed, [
        ["c1", true],
        ["c2", true],
      ])
      for (const content of contents) {
        assert.strictEqual(
          content,
          "tool trigger-long-running-operation got no answer: the server's event stream ended",
        )
      }
      yield* server.start
      assert.deepStrictEqual(yield* echo(toolbox, "c3"), {
        callId: "c3",
        content: "Echo: c3",
        isError: false,
      })
    }),
  )
})
