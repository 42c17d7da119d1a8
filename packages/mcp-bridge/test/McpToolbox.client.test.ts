import { assert, describe, it } from "@effect/vitest"
import { Client, InMemoryTransport } from "@modelcontextprotocol/client"
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
} from "@modelcontextprotocol/sdk/types.js"
import { ToolCall } from "@svir/core"
import { Effect } from "effect"
import { McpToolbox } from "../src/index.js"
import { captureLogs } from "./servers.js"

/**
 * A server written message by message over the SDK's in-memory transport, to send what no SDK
 * server would: answers that break the protocol, or none at all. `answer` gives the result of a
 * request, `undefined` for no answer, or a whole message to send instead.
 */
const scripted = (
  answer: (
    request: JSONRPCRequest,
  ) => { readonly result: unknown } | { readonly raw: unknown } | undefined,
  capabilities: object = { tools: { listChanged: true } },
) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      // Answers of the client to the server's own pings, by id.
      const pings = new Map<string, () => void>()
      serverSide.onmessage = (message: JSONRPCMessage) => {
        if (!("method" in message) && "id" in message) pings.get(String(message.id))?.()
        if (!("method" in message) || !("id" in message)) return
        const reply =
          message.method === "initialize"
            ? {
                result: {
                  protocolVersion: LATEST_PROTOCOL_VERSION,
                  capabilities,
                  serverInfo: { name: "scripted", version: "1.0.0" },
                },
              }
            : message.method === "ping"
              ? { result: {} }
              : answer(message)
        if (reply === undefined) return
        const sent =
          "raw" in reply ? reply.raw : { jsonrpc: "2.0", id: message.id, result: reply.result }
        void serverSide.send(sent as JSONRPCMessage)
      }
      await serverSide.start()
      const client = new Client({ name: "test", version: "1.0.0" })
      await client.connect(clientSide)
      // The client handles a notification asynchronously, and the messages that come after it in
      // order: once it has answered a ping sent next, the notification has landed.
      const notifyToolsChanged = Effect.promise(async () => {
        await serverSide.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
        const id = `ping-${crypto.randomUUID()}`
        const answered = new Promise<void>((resolve) => pings.set(id, resolve))
        await serverSide.send({ jsonrpc: "2.0", id, method: "ping" })
        await answered
      })
      return Object.assign(client, { notifyToolsChanged })
    }),
    (client) => Effect.promise(() => client.close()),
  )

const oneTool = {
  result: { tools: [{ name: "lookup", inputSchema: { type: "object" } }] },
}

describe("McpToolbox.fromClient, with a scripted server", () => {
  it.live("gives a failed result for an answer that breaks the protocol", () =>
    Effect.gen(function* () {
      const client = yield* scripted((request) =>
        request.method === "tools/list" ? oneTool : { result: { content: "not a list" } },
      )
      const toolbox = yield* McpToolbox.fromClient(client)
      const result = yield* toolbox.call(ToolCall.make("c1", "lookup"))
      assert.isTrue(result.isError)
      assert.match(result.content, /^tool lookup failed: /)
    }),
  )

  it.live("gives a failed result for an error answer", () =>
    Effect.gen(function* () {
      const client = yield* scripted((request) =>
        request.method === "tools/list"
          ? oneTool
          : {
              raw: {
                jsonrpc: "2.0",
                id: request.id,
                error: { code: -32602, message: "no such order" },
              },
            },
      )
      const toolbox = yield* McpToolbox.fromClient(client)
      const result = yield* toolbox.call(ToolCall.make("c1", "lookup", '{"id": 7}'))
      assert.isTrue(result.isError)
      assert.include(result.content, "no such order")
    }),
  )

  it.live("times out a server that never answers a call", () =>
    Effect.gen(function* () {
      const client = yield* scripted((request) =>
        request.method === "tools/list" ? oneTool : undefined,
      )
      const toolbox = yield* McpToolbox.fromClient(client, { timeoutMillis: 200 })
      const result = yield* toolbox.call(ToolCall.make("c1", "lookup"))
      assert.isTrue(result.isError)
      assert.match(result.content, /did not answer in time/)
    }),
  )

  it.live("fails with typed errors when the listing breaks the protocol or never comes", () =>
    Effect.gen(function* () {
      const malformed = yield* scripted(() => ({ result: { tools: "none" } }))
      const broken = yield* Effect.flip(McpToolbox.fromClient(malformed))
      assert.strictEqual(broken.reason._tag, "Protocol")
      const silent = yield* scripted(() => undefined)
      const late = yield* Effect.flip(McpToolbox.fromClient(silent, { listTimeoutMillis: 200 }))
      assert.strictEqual(late.reason._tag, "Timeout")
    }),
  )

  it.live("reads an error answer with the code of the SDK's timeout as the server's error", () =>
    Effect.gen(function* () {
      const client = yield* scripted((request) => ({
        raw: {
          jsonrpc: "2.0",
          id: request.id,
          error: { code: -32001, message: "the upstream service timed out" },
        },
      }))
      const error = yield* Effect.flip(McpToolbox.fromClient(client))
      assert.strictEqual(error.reason._tag, "Server")
      assert.strictEqual(
        error.message,
        "listing tools (page 1) failed: the server answered with error -32001",
      )
    }),
  )

  it.live("leaves the Client's own handlers as they were when the Scope closes", () =>
    Effect.gen(function* () {
      const client = yield* scripted(() => oneTool)
      const onerror = (_: Error) => undefined
      client.onerror = onerror
      yield* Effect.scoped(McpToolbox.fromClient(client))
      assert.strictEqual(client.onerror, onerror)
      assert.isUndefined(client.onclose)
    }),
  )

  it.live("keeps the first of two tools that come out under the same name", () =>
    Effect.gen(function* () {
      const client = yield* scripted((request) =>
        request.method === "tools/list"
          ? {
              result: {
                tools: [
                  { name: "lookup", inputSchema: { type: "object" } },
                  { name: "lookup", description: "again", inputSchema: { type: "object" } },
                ],
              },
            }
          : { result: { content: [{ type: "text", text: "found" }] } },
      )
      const logs = captureLogs()
      const toolbox = yield* McpToolbox.fromClient(client).pipe(Effect.provide(logs.layer))
      const tools = yield* toolbox.tools
      assert.deepStrictEqual(
        tools.map((tool) => [tool.name, tool.description]),
        [["lookup", ""]],
      )
      assert.strictEqual(logs.logged.length, 1)
      assert.include(
        logs.logged[0],
        'the tool \\"lookup\\" and the bridge leaves it out: an earlier tool of the server has the same name',
      )
    }),
  )

  it.live("keeps the earlier tools when listing them again fails, until the next change", () =>
    Effect.gen(function* () {
      let listing = 0
      const client = yield* scripted((request) => {
        if (request.method !== "tools/list") return undefined
        listing++
        if (listing === 2) {
          return {
            raw: { jsonrpc: "2.0", id: request.id, error: { code: -32603, message: "busy" } },
          }
        }
        return {
          result: { tools: [{ name: `lookup_v${listing}`, inputSchema: { type: "object" } }] },
        }
      })
      const logs = captureLogs()
      const toolbox = yield* McpToolbox.fromClient(client)
      const names = toolbox.tools.pipe(
        Effect.map((tools) => tools.map((tool) => tool.name)),
        Effect.provide(logs.layer),
      )
      assert.deepStrictEqual(yield* names, ["lookup_v1"])
      yield* client.notifyToolsChanged
      assert.deepStrictEqual(yield* names, ["lookup_v1"])
      assert.deepStrictEqual(yield* names, ["lookup_v1"])
      assert.strictEqual(listing, 2)
      yield* client.notifyToolsChanged
      assert.deepStrictEqual(yield* names, ["lookup_v3"])
      assert.strictEqual(listing, 3)
      assert.strictEqual(logs.logged.length, 1)
      assert.include(logs.logged[0], "could not be listed again; keeping the earlier list")
    }),
  )

  it.live("fails with a Config error for a Client that was never connected", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        McpToolbox.fromClient(new Client({ name: "test", version: "1.0.0" })),
      )
      assert.strictEqual(error.reason._tag, "Config")
      assert.match(error.message, /not connected/)
    }),
  )

  it.live("offers no tools for a server that has none, without asking it", () =>
    Effect.gen(function* () {
      let asked = false
      const client = yield* scripted(() => {
        asked = true
        return undefined
      }, {})
      const toolbox = yield* McpToolbox.fromClient(client)
      assert.deepStrictEqual(yield* toolbox.tools, [])
      assert.isFalse(asked)
      const result = yield* toolbox.call(ToolCall.make("c1", "lookup"))
      assert.strictEqual(result.content, "no tool named lookup; there are no tools")
    }),
  )
})
