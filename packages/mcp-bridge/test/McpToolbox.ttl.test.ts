import { assert, describe, it } from "@effect/vitest"
import {
  InMemoryTransport,
  type JSONRPCMessage,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client"
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server"
import { ToolCall } from "@svir/core"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { McpToolbox } from "../src/index.js"
import { captureLogs } from "./servers.js"

/** The bounds D53 holds a server's `ttlMs` to. */
const minTtl = 1_000
const maxTtl = 86_400_000

/**
 * A server of the v2 SDK, served in protocol 2026-07-28 by `createMcpHandler` and reached
 * in-process through the fetch of a Streamable HTTP transport, whose `tools/list` answers carry
 * `ttlMs` (from `cacheHints`), written as `sentTtl` says. `listed` counts the `tools/list`
 * requests.
 */
const modernServer = (ttlMs: number, sentTtl = String(ttlMs)) => {
  const counts = { listed: 0 }
  const handler = createMcpHandler(() => {
    const server = new McpServer(
      { name: "ttl-modern", version: "1.0.0" },
      { cacheHints: { "tools/list": { ttlMs } } },
    )
    server.registerTool("echo", { description: "Says hi." }, () => ({
      content: [{ type: "text", text: "hi" }],
    }))
    return server
  })
  const open = async () =>
    new StreamableHTTPClientTransport(new URL("http://in-process.test/mcp"), {
      fetch: async (url, init) => {
        const request = new Request(url, init)
        const body = await request.clone().text()
        if (!body.includes('"method":"tools/list"')) return handler.fetch(request)
        counts.listed++
        const answer = await handler.fetch(request)
        const text = (await answer.text()).replace(`"ttlMs":${ttlMs}`, `"ttlMs":${sentTtl}`)
        return new Response(text, { status: answer.status, headers: answer.headers })
      },
    })
  return { open, counts, close: () => handler.close() }
}

/** One page of a listing as the raw server answers it: the tools, and any other field. */
type RawPage = { readonly tools: ReadonlyArray<string> } & Record<string, unknown>

/**
 * A raw JSON-RPC server of the 2025 revisions over the SDK's InMemoryTransport, which refuses
 * `server/discover`: `pages()` gives the pages of each listing (read anew for each one, so that a
 * test can change them between listings), each tool answers a call with its own name, and
 * `changed` sends `notifications/tools/list_changed`. `failListing` makes the next listings fail.
 */
const rawServer = (pages: () => ReadonlyArray<RawPage>) => {
  const state = { listed: 0, failListing: false }
  let serverSide: InMemoryTransport | undefined
  const answer = (id: unknown, result: unknown): JSONRPCMessage =>
    ({ jsonrpc: "2.0", id, result }) as JSONRPCMessage
  const refuse = (id: unknown, code: number, message: string): JSONRPCMessage =>
    ({ jsonrpc: "2.0", id, error: { code, message } }) as JSONRPCMessage
  const reply = (request: { id?: unknown; method?: string; params?: Record<string, unknown> }) => {
    const { id, method, params } = request
    switch (method) {
      case "initialize":
        return answer(id, {
          protocolVersion: params?.protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: "ttl-raw", version: "1.0.0" },
        })
      case "tools/list": {
        state.listed++
        if (state.failListing) return refuse(id, -32603, "listing is down")
        const all = pages()
        const index = params?.cursor === undefined ? 0 : Number(params.cursor)
        const { tools, ...rest } = all[index]!
        return answer(id, {
          ...rest,
          tools: tools.map((name) => ({ name, inputSchema: { type: "object" } })),
          ...(index + 1 < all.length ? { nextCursor: String(index + 1) } : {}),
        })
      }
      case "tools/call":
        return answer(id, { content: [{ type: "text", text: params?.name }] })
      case "ping":
        return answer(id, {})
      default:
        return refuse(id, -32601, "Method not found")
    }
  }
  const open = async () => {
    const [clientSide, server] = InMemoryTransport.createLinkedPair()
    serverSide = server
    server.onmessage = (message) => {
      const request = message as { id?: unknown; method?: string }
      if (request.id === undefined || request.method === undefined) return
      void server.send(reply(request as Parameters<typeof reply>[0]))
    }
    await server.start()
    return clientSide
  }
  const changed = Effect.promise(() =>
    serverSide!.send({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
    } as JSONRPCMessage),
  )
  return { open, state, changed }
}

const names = (toolbox: McpToolbox.McpToolbox) =>
  Effect.map(toolbox.tools, (tools) => tools.map((tool) => tool.name))

describe("McpToolbox honouring the ttlMs of a listing (D53)", () => {
  it.effect("offers a 2026-07-28 listing as it is for its ttlMs, and lists again after", () =>
    Effect.gen(function* () {
      const server = modernServer(5_000)
      yield* Effect.addFinalizer(() => Effect.promise(server.close))
      const toolbox = yield* McpToolbox.fromTransport({ open: server.open })
      assert.strictEqual(toolbox.protocolVersion, "2026-07-28")
      assert.strictEqual(server.counts.listed, 1)
      yield* toolbox.tools
      yield* TestClock.adjust(4_999)
      assert.deepStrictEqual(yield* names(toolbox), ["echo"])
      assert.strictEqual(server.counts.listed, 1)
      yield* TestClock.adjust(1)
      // A call maps its name with the list as it is: an expired ttlMs alone lists nothing.
      const result = yield* toolbox.call(ToolCall.make("c1", "echo"))
      assert.deepStrictEqual([result.isError, result.content], [false, "hi"])
      assert.strictEqual(server.counts.listed, 1)
      assert.deepStrictEqual(yield* names(toolbox), ["echo"])
      assert.strictEqual(server.counts.listed, 2)
      // The new listing is fresh for its own ttlMs, counted from its end.
      yield* TestClock.adjust(4_999)
      yield* toolbox.serverNames
      assert.strictEqual(server.counts.listed, 2)
      yield* TestClock.adjust(1)
      yield* toolbox.skipped
      assert.strictEqual(server.counts.listed, 3)
    }),
  )

  it.effect("fails the listing of a 2026-07-28 server whose ttlMs the SDK refuses", () =>
    Effect.gen(function* () {
      const server = modernServer(5_000, "-5")
      yield* Effect.addFinalizer(() => Effect.promise(server.close))
      const error = yield* Effect.flip(McpToolbox.fromTransport({ open: server.open }))
      // The SDK checks a 2026-07-28 answer against the revision's schema: ttlMs >= 0.
      assert.strictEqual(error.reason._tag, "Protocol")
      assert.match(error.message, /ttlMs/)
      assert.strictEqual(server.counts.listed, 1)
    }),
  )

  it.effect("lists again at once on a change notification, within the ttlMs", () =>
    Effect.gen(function* () {
      let tools = ["a"]
      const server = rawServer(() => [{ tools, ttlMs: 60_000, cacheScope: "private" }])
      const toolbox = yield* McpToolbox.fromTransport({ open: server.open })
      assert.strictEqual(toolbox.protocolVersion, "2025-11-25")
      assert.deepStrictEqual(yield* names(toolbox), ["a"])
      tools = ["a", "b"]
      yield* server.changed
      // The answer to a call comes after the notification, which is read first.
      yield* toolbox.call(ToolCall.make("c1", "a"))
      assert.deepStrictEqual(yield* names(toolbox), ["a", "b"])
      assert.strictEqual(server.state.listed, 2)
    }),
  )

  it.effect("without ttlMs, lists again only on a change notification", () =>
    Effect.gen(function* () {
      const server = rawServer(() => [{ tools: ["a"] }])
      const toolbox = yield* McpToolbox.fromTransport({ open: server.open })
      yield* TestClock.adjust(2 * maxTtl)
      yield* toolbox.tools
      assert.strictEqual(server.state.listed, 1)
    }),
  )

  it.effect("takes the shortest ttlMs of a listing's pages", () =>
    Effect.gen(function* () {
      const server = rawServer(() => [
        { tools: ["a"], ttlMs: 60_000 },
        { tools: ["b"], ttlMs: 2_000 },
        { tools: ["c"] },
      ])
      const toolbox = yield* McpToolbox.fromTransport({ open: server.open })
      assert.strictEqual(server.state.listed, 3)
      yield* TestClock.adjust(1_999)
      yield* toolbox.tools
      assert.strictEqual(server.state.listed, 3)
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* names(toolbox), ["a", "b", "c"])
      assert.strictEqual(server.state.listed, 6)
    }),
  )

  it.effect("keeps the earlier list when listing again fails, for as long again", () =>
    Effect.gen(function* () {
      const server = rawServer(() => [{ tools: ["a"], ttlMs: 5_000 }])
      const logs = captureLogs()
      const toolbox = yield* McpToolbox.fromTransport({ open: server.open }).pipe(
        Effect.provide(logs.layer),
      )
      server.state.failListing = true
      yield* TestClock.adjust(5_000)
      assert.deepStrictEqual(yield* names(toolbox).pipe(Effect.provide(logs.layer)), ["a"])
      assert.strictEqual(server.state.listed, 2)
      assert.strictEqual(logs.logged.length, 1)
      yield* toolbox.tools
      yield* TestClock.adjust(4_999)
      yield* toolbox.tools
      assert.strictEqual(server.state.listed, 2)
      server.state.failListing = false
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* names(toolbox), ["a"])
      assert.strictEqual(server.state.listed, 3)
    }),
  )

  // Each: the ttlMs as sent, and the time to live the bridge takes from it.
  const hostile: ReadonlyArray<readonly [unknown, number]> = [
    [-5, minTtl],
    [0, minTtl],
    [0.5, minTtl],
    [Number.NaN, minTtl],
    ["5000", minTtl],
    [null, minTtl],
    [{ ms: 5_000 }, minTtl],
    [Number.MIN_SAFE_INTEGER, minTtl],
    [1e308, maxTtl],
    [Number.POSITIVE_INFINITY, maxTtl],
    [Number.MAX_SAFE_INTEGER, maxTtl],
  ]
  for (const [ttlMs, heldTo] of hostile) {
    const shown = typeof ttlMs === "number" ? String(ttlMs) : JSON.stringify(ttlMs)
    it.effect(`holds a ttlMs of ${shown} (${typeof ttlMs}) to ${heldTo} ms`, () =>
      Effect.gen(function* () {
        const server = rawServer(() => [{ tools: ["a"], ttlMs }])
        const toolbox = yield* McpToolbox.fromTransport({ open: server.open })
        // Asked for again and again at one moment, the tools are listed once.
        for (let i = 0; i < 20; i++) yield* toolbox.tools
        yield* TestClock.adjust(heldTo - 1)
        yield* toolbox.tools
        assert.strictEqual(server.state.listed, 1)
        yield* TestClock.adjust(1)
        assert.deepStrictEqual(yield* names(toolbox), ["a"])
        assert.strictEqual(server.state.listed, 2)
      }),
    )
  }
})

/**
 * Distinct server names (some rewritten, D23) in two orders, each cut into pages of its own
 * sizes.
 */
const twoListings = fc
  .uniqueArray(
    fc.oneof(
      fc.stringMatching(/^[a-zA-Z0-9_-]{1,12}$/),
      fc.string({ minLength: 1, maxLength: 12, unit: "grapheme" }),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .chain((serverNames) =>
    fc.tuple(
      fc.shuffledSubarray(serverNames, { minLength: serverNames.length }),
      fc.shuffledSubarray(serverNames, { minLength: serverNames.length }),
      fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 12, maxLength: 12 }),
      fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 12, maxLength: 12 }),
    ),
  )

/** `names` cut into pages of the given sizes, the last taking what is left. */
const paged = (names: ReadonlyArray<string>, sizes: ReadonlyArray<number>): Array<RawPage> => {
  const pages: Array<RawPage> = []
  let at = 0
  for (const size of sizes) {
    if (at >= names.length) break
    pages.push({ tools: names.slice(at, at + size) })
    at += size
  }
  if (at < names.length) pages.push({ tools: names.slice(at) })
  return pages
}

describe("McpToolbox offering tools in a stable order (D53)", () => {
  it("offers the same tools in the same order however the server orders and pages them", () =>
    fc.assert(
      fc.asyncProperty(twoListings, ([first, second, firstSizes, secondSizes]) =>
        Effect.runPromise(
          Effect.scoped(
            Effect.gen(function* () {
              let pages = paged(first, firstSizes)
              const server = rawServer(() => pages)
              const toolbox = yield* McpToolbox.fromTransport(
                { open: server.open },
                { prefix: "p" },
              )
              const offered = yield* names(toolbox)
              pages = paged(second, secondSizes)
              const again = (yield* toolbox.refresh).map((tool) => tool.name)
              assert.deepStrictEqual(again, offered)
              // In code unit order of the offered names.
              assert.deepStrictEqual(offered, [...offered].sort())
              assert.strictEqual(offered.length, first.length)
            }),
          ),
        ),
      ),
      { numRuns: 40 },
    ))
})
