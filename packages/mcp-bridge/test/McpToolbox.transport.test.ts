import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/client"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { ToolCall } from "@svir/core"
import { Effect, Exit, Scope } from "effect"
import * as z from "zod"
import { McpToolbox } from "../src/index.js"

/**
 * A transport factory over the SDK's InMemoryTransport: each `open` makes a linked pair and
 * connects a new McpServer with one `greet` tool to its end. `serverSides` lets a test close
 * the server's end, as a server that goes away would.
 */
const inMemory = () => {
  const serverSides: Array<InMemoryTransport> = []
  const open = async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const server = new McpServer({ name: "in-memory", version: "1.0.0" })
    server.registerTool("greet", { inputSchema: { who: z.string() } }, ({ who }) => ({
      content: [{ type: "text", text: `hello ${who} from connection ${serverSides.length}` }],
    }))
    serverSides.push(serverSide)
    await server.connect(serverSide)
    return clientSide
  }
  return { open, serverSides }
}

const greet = (id: string) => ToolCall.make(id, "greet", '{"who":"Ada"}')

describe("McpToolbox.fromTransport, over the SDK's InMemoryTransport and a real McpServer", () => {
  it.live("lists and calls; closing the Scope closes the transport", () =>
    Effect.gen(function* () {
      const { open, serverSides } = inMemory()
      const scope = yield* Scope.make()
      const toolbox = yield* McpToolbox.fromTransport({ open }, { prefix: "mem" }).pipe(
        Scope.provide(scope),
      )
      assert.deepStrictEqual(
        (yield* toolbox.tools).map((tool) => tool.name),
        ["mem__greet"],
      )
      const answer = yield* toolbox.call(ToolCall.make("c1", "mem__greet", '{"who":"Ada"}'))
      assert.deepStrictEqual(answer, {
        callId: "c1",
        content: "hello Ada from connection 1",
        isError: false,
      })
      let closed = false
      serverSides[0]!.onclose = () => {
        closed = true
      }
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(closed)
    }),
  )

  it.live("with reconnect, a call after the server's end closed opens a new transport", () =>
    Effect.gen(function* () {
      const { open, serverSides } = inMemory()
      const toolbox = yield* McpToolbox.fromTransport({ open, reconnect: true })
      yield* Effect.promise(() => serverSides[0]!.close())
      const answer = yield* toolbox.call(greet("c1"))
      assert.strictEqual(answer.content, "hello Ada from connection 2")
      assert.strictEqual(serverSides.length, 2)
    }).pipe(Effect.scoped),
  )

  it.live("without reconnect, a closed transport fails the call, of kind server_refused", () =>
    Effect.gen(function* () {
      const { open, serverSides } = inMemory()
      const toolbox = yield* McpToolbox.fromTransport({ open })
      yield* Effect.promise(() => serverSides[0]!.close())
      const answer = yield* toolbox.call(greet("c1"))
      assert.deepStrictEqual(answer, {
        callId: "c1",
        content: "tool greet cannot be called: the transport closed",
        isError: true,
        failure: "server_refused",
      })
      assert.strictEqual(serverSides.length, 1)
    }).pipe(Effect.scoped),
  )

  it.live("a transport that cannot be opened is a typed Transport error", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        McpToolbox.fromTransport({
          open: () => Promise.reject(new Error("no socket at /run/mcp.sock")),
        }),
      )
      assert.strictEqual(error.reason._tag, "Transport")
      assert.match(
        error.message,
        /^connecting to the MCP server over the given transport failed: .*no socket at \/run\/mcp\.sock/,
      )
    }).pipe(Effect.scoped),
  )

  it.live("refuses a reconnect policy that makes no try, as the other constructors do", () =>
    Effect.gen(function* () {
      const { open } = inMemory()
      const error = yield* Effect.flip(
        McpToolbox.fromTransport({ open, reconnect: { attempts: 0 } }),
      )
      assert.strictEqual(error.reason._tag, "Config")
    }).pipe(Effect.scoped),
  )
})
