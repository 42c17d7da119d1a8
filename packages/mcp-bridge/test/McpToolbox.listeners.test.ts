import { getEventListeners } from "node:events"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Writable } from "node:stream"
import { setImmediate as nextTurn } from "node:timers/promises"
import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { Toolbox, ToolCall } from "@svir/core"
import { Effect } from "effect"
import { McpToolbox } from "../src/index.js"
import { boundedFetch } from "../src/internal/boundedFetch.js"
import { makeDrainWait } from "../src/internal/turnWriter.js"
import { assertNoChildLeft, serveHttp } from "./servers.js"

const edges = fileURLToPath(new URL("./fixtures/edges-stdio.mjs", import.meta.url))

/** Keeps every warning the process emits until the Scope closes. */
const captureWarnings = Effect.acquireRelease(
  Effect.sync(() => {
    const warnings: Array<string> = []
    const keep = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`)
    process.on("warning", keep)
    return { warnings, keep }
  }),
  ({ keep }) => Effect.sync(() => process.off("warning", keep)),
)

/**
 * Puts a fetch in place of the global one until the Scope closes, which keeps the most `abort`
 * listeners a signal it was given already had: those a shared signal piles up, request after
 * request. The bridge's fetch takes the global one when the toolbox is made.
 */
const watchSignals = Effect.acquireRelease(
  Effect.sync(() => {
    const original = globalThis.fetch
    const seen = { mostListeners: 0, requests: 0 }
    globalThis.fetch = (input, init) => {
      seen.requests++
      if (init?.signal != null) {
        const listeners = getEventListeners(init.signal, "abort").length
        seen.mostListeners = Math.max(seen.mostListeners, listeners)
      }
      return original(input, init)
    }
    return { seen, original }
  }),
  ({ original }) => Effect.sync(() => (globalThis.fetch = original)),
)

/** An HTTP server on 127.0.0.1 whose every answer is an event stream that stays open. */
const serveOpenStream = Effect.acquireRelease(
  Effect.promise(async () => {
    const http = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write('event: message\ndata: {"jsonrpc":"2.0","method":"hi"}\n\n')
    })
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
    return { http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/` }
  }),
  ({ http }) =>
    Effect.promise(async () => {
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    }),
)

describe("McpToolbox adds no listener per request", () => {
  afterEach(assertNoChildLeft)

  it.live("1,000 concurrent stdio calls of 64 KB each: every one answered, no warning", () =>
    Effect.gen(function* () {
      const { warnings } = yield* captureWarnings
      const toolbox = yield* McpToolbox.stdio({ command: process.execPath, args: [edges] })
      // 64 KB each is past the pipe's high-water mark: every write waits for `drain`.
      const text = "x".repeat(64 * 1024)
      const calls = Array.from({ length: 1_000 }, (_, i) =>
        ToolCall.make(`c${i}`, "size", JSON.stringify({ text })),
      )
      const results = yield* Toolbox.callAll(toolbox, calls, { concurrency: calls.length })
      assert.strictEqual(results.length, calls.length)
      assert.deepStrictEqual(
        results.filter((result) => result.isError || result.content !== String(text.length)),
        [],
      )
      assert.deepStrictEqual(warnings, [])
    }),
  )

  it("waits for drain with one listener, however many writes wait", async () => {
    const stream = new Writable({
      highWaterMark: 4,
      write: (_chunk, _encoding, done) => setImmediate(done),
    })
    const drained = makeDrainWait(stream)
    stream.write("more than four")
    const waits = Array.from({ length: 100 }, drained)
    assert.strictEqual(stream.listenerCount("drain"), 1)
    await Promise.all(waits)
    assert.strictEqual(stream.listenerCount("drain"), 0)
    stream.write("more than four")
    const next = drained()
    assert.notStrictEqual(next, waits[0])
    await next
    await nextTurn()
    assert.strictEqual(stream.listenerCount("drain"), 0)
  })

  it.live(
    "300 calls over Streamable HTTP: every signal comes to fetch with no listener on it, no warning",
    () =>
      Effect.gen(function* () {
        const { warnings } = yield* captureWarnings
        const { seen } = yield* watchSignals
        const { url } = yield* serveHttp(() => {
          const server = new McpServer({ name: "edges", version: "1.0.0" })
          server.registerTool("ping", {}, () => ({ content: [{ type: "text", text: "pong" }] }))
          return server
        })
        const toolbox = yield* McpToolbox.http({ url })
        const calls = Array.from({ length: 300 }, (_, i) => ToolCall.make(`c${i}`, "ping"))
        const results = yield* Toolbox.callAll(toolbox, calls, { concurrency: 10 })
        assert.deepStrictEqual(
          results.filter((result) => result.isError || result.content !== "pong"),
          [],
        )
        assert.isAbove(seen.requests, calls.length)
        // Node 20's fetch left one listener per request on the SDK's signal, 1,500 before warning.
        assert.strictEqual(seen.mostListeners, 0)
        assert.deepStrictEqual(warnings, [])
      }),
  )

  it.live("a request's signal still ends it, and leaves the shared signal as it found it", () =>
    Effect.gen(function* () {
      const { url } = yield* serveOpenStream
      const shared = new AbortController()
      const fetch = boundedFetch(1_000_000)
      const opened = yield* Effect.promise(() =>
        Promise.all(Array.from({ length: 20 }, () => fetch(url, { signal: shared.signal }))),
      )
      assert.strictEqual(getEventListeners(shared.signal, "abort").length, 1)
      const readers = opened.map((response) => response.body!.getReader())
      for (const reader of readers) yield* Effect.promise(() => reader.read())
      shared.abort()
      const ends = yield* Effect.promise(() =>
        Promise.allSettled(readers.map((reader) => reader.read())),
      )
      assert.deepStrictEqual(
        ends.map((end) => end.status),
        readers.map(() => "rejected"),
      )
      assert.strictEqual(getEventListeners(shared.signal, "abort").length, 0)
    }),
  )
})
