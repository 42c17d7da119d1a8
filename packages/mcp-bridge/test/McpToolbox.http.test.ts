import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Tool, Toolbox, ToolCall } from "@svir/core"
import { Deferred, Effect, Fiber, Schedule } from "effect"
import * as z from "zod"
import { McpToolbox } from "../src/index.js"
import {
  assertNoChildLeft,
  callThenKill,
  childPids,
  isAlive,
  progressOf,
  serveHttp,
  spawnHttpServer,
} from "./servers.js"

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] })

/** A low-level server whose `tools/list` answers with `page(cursor)`; a call echoes its name. */
const pagedServer = (
  page: (cursor: string | undefined) => { tools: Array<{ name: string }>; nextCursor?: string },
) => {
  const server = new Server({ name: "paged", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const answer = page(request.params?.cursor)
    return {
      ...answer,
      tools: answer.tools.map((tool) => ({ ...tool, inputSchema: { type: "object" as const } })),
    }
  })
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    text(`called ${request.params.name}`),
  )
  return server
}

describe("McpToolbox over Streamable HTTP, with SDK servers on 127.0.0.1", () => {
  afterEach(assertNoChildLeft)

  it.live("gives isError results and thrown errors as failed results with the server's text", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() => {
        const server = new McpServer({ name: "faulty", version: "1.0.0" })
        server.registerTool("full", { description: "Always fails." }, () => ({
          ...text("disk full"),
          isError: true,
        }))
        server.registerTool("throws", { description: "Throws." }, () => {
          throw new Error("boom at line 3")
        })
        return server
      })
      const toolbox = yield* McpToolbox.http({ url })
      const full = yield* toolbox.call(ToolCall.make("c1", "full"))
      assert.deepStrictEqual(full, {
        callId: "c1",
        content: "disk full",
        isError: true,
        failure: "handler_failed",
      })
      const thrown = yield* toolbox.call(ToolCall.make("c2", "throws"))
      assert.isTrue(thrown.isError)
      assert.strictEqual(thrown.failure, "handler_failed")
      assert.include(thrown.content, "boom at line 3")
    }),
  )

  it.live("checks structured content against the output schema, as the specification says", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() => {
        const server = new Server(
          { name: "shaped", version: "1.0.0" },
          { capabilities: { tools: {} } },
        )
        const outputSchema = {
          type: "object" as const,
          properties: { n: { type: "number" } },
          required: ["n"],
        }
        server.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: ["none", "wrong", "right", "failing"].map((name) => ({
            name,
            inputSchema: { type: "object" as const },
            outputSchema,
          })),
        }))
        server.setRequestHandler(CallToolRequestSchema, (request) => {
          switch (request.params.name) {
            case "none":
              return text("no structure")
            case "wrong":
              return { ...text("n is x"), structuredContent: { n: "x" } }
            case "right":
              return { ...text("n is 1"), structuredContent: { n: 1 } }
            default:
              return { ...text("it broke"), isError: true }
          }
        })
        return server
      })
      const toolbox = yield* McpToolbox.http({ url })
      const [none, wrong, right, failing] = yield* Toolbox.callAll(toolbox, [
        ToolCall.make("c1", "none"),
        ToolCall.make("c2", "wrong"),
        ToolCall.make("c3", "right"),
        ToolCall.make("c4", "failing"),
      ])
      assert.deepStrictEqual(none, {
        callId: "c1",
        content: "tool none has an output schema but answered without structured content",
        isError: true,
        failure: "handler_failed",
      })
      assert.strictEqual(wrong?.failure, "handler_failed")
      assert.match(
        wrong?.content ?? "",
        /^tool wrong answered structured content that does not match its output schema: data\/n must be number/,
      )
      assert.deepStrictEqual(right, { callId: "c3", content: "n is 1", isError: false })
      assert.deepStrictEqual(failing, {
        callId: "c4",
        content: "it broke",
        isError: true,
        failure: "handler_failed",
      })
    }),
  )

  it.live("says invalid_arguments when the SDK's server refuses the arguments by its schema", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() => {
        const server = new McpServer({ name: "typed", version: "1.0.0" })
        server.registerTool("greet", { inputSchema: { who: z.string() } }, ({ who }) =>
          text(`hello ${who}`),
        )
        return server
      })
      const toolbox = yield* McpToolbox.http({ url })
      const refused = yield* toolbox.call(ToolCall.make("c1", "greet", '{"who":7}'))
      assert.isTrue(refused.isError)
      assert.include(refused.content, "Input validation error")
      assert.strictEqual(refused.failure, "invalid_arguments")
      const fine = yield* toolbox.call(ToolCall.make("c2", "greet", '{"who":"Ada"}'))
      assert.deepStrictEqual(fine, { callId: "c2", content: "hello Ada", isError: false })
    }),
  )

  it.live(
    "sends headers, and answers arguments that are not JSON without contacting the server",
    () =>
      Effect.gen(function* () {
        let calls = 0
        let authorization: string | undefined
        const { url } = yield* serveHttp(() => {
          const server = new McpServer({ name: "counting", version: "1.0.0" })
          server.registerTool("greet", { inputSchema: { who: z.string() } }, ({ who }, extra) => {
            calls++
            authorization = extra.requestInfo?.headers.authorization as string | undefined
            return text(`hello ${who}`)
          })
          return server
        })
        const toolbox = yield* McpToolbox.http({ url, headers: { Authorization: "Bearer t0ken" } })
        const broken = yield* toolbox.call(ToolCall.make("c1", "greet", '{"who": "Ada"'))
        assert.isTrue(broken.isError)
        assert.match(broken.content, /arguments are not valid JSON: the text ends/)
        assert.strictEqual(calls, 0)
        const fine = yield* toolbox.call(ToolCall.make("c2", "greet", '{"who": "Ada"}'))
        assert.deepStrictEqual(fine, { callId: "c2", content: "hello Ada", isError: false })
        assert.strictEqual(calls, 1)
        assert.strictEqual(authorization, "Bearer t0ken")
      }),
  )

  it.live("follows nextCursor through every page", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() =>
        pagedServer((cursor) => {
          const page = cursor === undefined ? 0 : Number(cursor)
          const tools = [0, 1, 2].map((i) => ({ name: `tool_${page}_${i}` }))
          return page < 3 ? { tools, nextCursor: String(page + 1) } : { tools }
        }),
      )
      const toolbox = yield* McpToolbox.http({ url })
      const tools = yield* toolbox.tools
      assert.strictEqual(tools.length, 12)
      assert.strictEqual(tools[11]?.name, "tool_3_2")
      const result = yield* toolbox.call(ToolCall.make("c1", "tool_2_1"))
      assert.strictEqual(result.content, "called tool_2_1")
    }),
  )

  it.live("fails with a Protocol error when the cursor does not advance", () =>
    Effect.gen(function* () {
      let pages = 0
      const { url } = yield* serveHttp(() =>
        pagedServer(() => {
          pages++
          return { tools: [{ name: `t${pages}` }], nextCursor: "same" }
        }),
      )
      const error = yield* Effect.flip(McpToolbox.http({ url }))
      assert.strictEqual(error.reason._tag, "Protocol")
      assert.match(error.message, /gave a cursor again on page 2/)
      // The cursor is the server's text (D5).
      assert.strictEqual(error.serverMessage, "same")
      assert.strictEqual(pages, 2)
    }),
  )

  it.live("bounds the pages and the tools of a listing", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() =>
        pagedServer((cursor) => {
          const page = cursor === undefined ? 0 : Number(cursor)
          return {
            tools: [{ name: `t${page}a` }, { name: `t${page}b` }],
            nextCursor: String(page + 1),
          }
        }),
      )
      const pages = yield* Effect.flip(McpToolbox.http({ url }, { maxPages: 5 }))
      assert.strictEqual(pages.reason._tag, "ResponseLimit")
      assert.match(pages.message, /after 5 pages/)
    }),
  )

  it.live("bounds the number of tools", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() =>
        pagedServer(() => ({ tools: Array.from({ length: 30 }, (_, i) => ({ name: `t${i}` })) })),
      )
      const tools = yield* Effect.flip(McpToolbox.http({ url }, { maxTools: 20 }))
      assert.strictEqual(tools.reason._tag, "ResponseLimit")
      assert.match(tools.message, /listing tools stopped at 30: more than the limit of 20/)
      assert.strictEqual(tools.reason._tag === "ResponseLimit" && tools.reason.limit, "maxTools")
    }),
  )

  it.live("a failure to list tools is a typed error", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() =>
        pagedServer(() => {
          throw new Error("the catalogue is on fire")
        }),
      )
      const error = yield* Effect.flip(McpToolbox.http({ url }))
      assert.strictEqual(error._tag, "SvirError")
      assert.strictEqual(error.reason._tag, "Server")
      assert.include(error.serverMessage, "the catalogue is on fire")
      assert.notInclude(error.message, "the catalogue is on fire")
    }),
  )

  it.live("lists the tools again after notifications/tools/list_changed", () =>
    Effect.gen(function* () {
      const server = new McpServer({ name: "growing", version: "1.0.0" })
      const first = server.registerTool("first", {}, () => text("one"))
      const { url } = yield* serveHttp(() => server)
      const toolbox = yield* McpToolbox.http({ url }, { prefix: "grow" })
      assert.deepStrictEqual(
        (yield* toolbox.tools).map((tool) => tool.name),
        ["grow__first"],
      )
      server.registerTool("second", {}, () => text("two"))
      first.remove()
      const names = yield* toolbox.tools.pipe(
        Effect.map((tools) => tools.map((tool) => tool.name)),
        Effect.repeat({
          until: (names) => names.includes("grow__second"),
          schedule: Schedule.spaced("20 millis"),
          times: 100,
        }),
      )
      assert.deepStrictEqual(names, ["grow__second"])
      const second = yield* toolbox.call(ToolCall.make("c1", "grow__second"))
      assert.strictEqual(second.content, "two")
      const gone = yield* toolbox.call(ToolCall.make("c2", "grow__first"))
      assert.isTrue(gone.isError)
      assert.match(gone.content, /no tool named grow__first; the tools are: grow__second/)
    }),
  )

  it.live("times out a tool that never answers and tells the server it was cancelled", () =>
    Effect.gen(function* () {
      const cancelled = Deferred.makeUnsafe<string>()
      const { url } = yield* serveHttp(() => {
        const server = new McpServer({ name: "slow", version: "1.0.0" })
        server.registerTool("never", {}, (extra) => {
          extra.signal.addEventListener("abort", () =>
            Deferred.doneUnsafe(cancelled, Effect.succeed(String(extra.signal.reason))),
          )
          return new Promise(() => {})
        })
        return server
      })
      const toolbox = yield* McpToolbox.http({ url }, { timeoutMillis: 300 })
      const result = yield* toolbox.call(ToolCall.make("c1", "never"))
      assert.isTrue(result.isError)
      assert.match(result.content, /tool never did not answer in time/)
      yield* Deferred.await(cancelled).pipe(Effect.timeout("5 seconds"))
    }),
  )

  it.live("sends notifications/cancelled when the call is interrupted", () =>
    Effect.gen(function* () {
      const started = Deferred.makeUnsafe<void>()
      const cancelled = Deferred.makeUnsafe<void>()
      const { url } = yield* serveHttp(() => {
        const server = new McpServer({ name: "slow", version: "1.0.0" })
        server.registerTool("wait", {}, (extra) => {
          extra.signal.addEventListener("abort", () => Deferred.doneUnsafe(cancelled, Effect.void))
          Deferred.doneUnsafe(started, Effect.void)
          return new Promise(() => {})
        })
        return server
      })
      const toolbox = yield* McpToolbox.http({ url })
      const fiber = yield* Effect.forkChild(toolbox.call(ToolCall.make("c1", "wait")))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      yield* Deferred.await(cancelled).pipe(Effect.timeout("5 seconds"))
    }),
  )

  it.live("cuts a huge output and says how much was left out", () =>
    Effect.gen(function* () {
      const size = 3_000_000
      const { url } = yield* serveHttp(() => {
        const server = new McpServer({ name: "verbose", version: "1.0.0" })
        server.registerTool("dump", {}, () => text("x".repeat(size)))
        return server
      })
      const toolbox = yield* McpToolbox.http({ url }, { maxResultChars: 10_000 })
      const result = yield* toolbox.call(ToolCall.make("c1", "dump"))
      assert.isFalse(result.isError)
      assert.isTrue(result.content.startsWith("x".repeat(10_000)))
      assert.isTrue(result.content.endsWith(`[cut: ${size - 10_000} more characters]`))
    }),
  )

  it.live("offers invalid and long names under valid stable names that map back", () =>
    Effect.gen(function* () {
      const long = `search_${"deep".repeat(20)}`
      const { url } = yield* serveHttp(() =>
        pagedServer(() => ({
          tools: [{ name: "read.file" }, { name: "read/file" }, { name: long }],
        })),
      )
      const toolbox = yield* McpToolbox.http({ url }, { prefix: "files" })
      const tools = yield* toolbox.tools
      const names = tools.map((tool) => tool.name)
      for (const name of names) assert.isUndefined(Tool.nameProblem(name))
      assert.strictEqual(new Set(names).size, 3)
      const serverNames = yield* toolbox.serverNames
      for (const name of names) {
        const result = yield* toolbox.call(ToolCall.make("c", name))
        assert.strictEqual(result.content, `called ${serverNames.get(name)}`)
      }
      assert.deepStrictEqual(
        [...serverNames.values()].sort(),
        ["read.file", "read/file", long].sort(),
      )
      const again = yield* toolbox.refresh
      assert.deepStrictEqual(
        again.map((tool) => tool.name),
        names,
      )
    }),
  )

  it.live("fails every call in flight at once when the server process is killed", () =>
    Effect.gen(function* () {
      const { url, child } = yield* spawnHttpServer
      const progress = progressOf(["c1", "c2"])
      const toolbox = yield* McpToolbox.http(
        { url },
        { timeoutMillis: 30_000, onProgress: progress.onProgress },
      )
      const alive = yield* toolbox.call(ToolCall.make("c0", "echo"))
      assert.strictEqual(alive.content, "still here")
      const calls = [ToolCall.make("c1", "hang"), ToolCall.make("c2", "hang")]
      const { failed, contents, millisAfterKill } = yield* callThenKill(
        toolbox,
        calls,
        progress.allReported,
        Effect.sync(() => child.kill("SIGKILL")),
      )
      assert.isBelow(millisAfterKill, 5_000)
      assert.deepStrictEqual(failed, [
        ["c1", true],
        ["c2", true],
      ])
      for (const content of contents) {
        assert.match(content, /tool hang got no answer: the server can no longer be reached/)
      }
      yield* Effect.promise(() =>
        child.exitCode === null && child.signalCode === null
          ? new Promise((resolve) => child.once("exit", resolve))
          : Promise.resolve(),
      )
      assert.isFalse(isAlive(child.pid!))
      assert.notInclude(childPids(), child.pid)
    }),
  )

  it.live("fails to connect with a typed error", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() => new McpServer({ name: "gone", version: "1.0.0" }))
      const closedPort = yield* Effect.flip(McpToolbox.http({ url: url.replace(/:\d+\//, ":1/") }))
      assert.strictEqual(closedPort.reason._tag, "Transport")
      const notUrl = yield* Effect.flip(McpToolbox.http({ url: "not a url" }))
      assert.strictEqual(notUrl.reason._tag, "Config")
      const badPrefix = yield* Effect.flip(McpToolbox.http({ url }, { prefix: "my files" }))
      assert.strictEqual(badPrefix.reason._tag, "Config")
      const guarded = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const server = createServer((_, res) => res.writeHead(401).end("who are you?"))
          await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
          return server
        }),
        (server) => Effect.promise(() => new Promise((resolve) => server.close(resolve))),
      )
      const port = (guarded.address() as AddressInfo).port
      const refused = yield* Effect.flip(McpToolbox.http({ url: `http://127.0.0.1:${port}/mcp` }))
      assert.strictEqual(refused.reason._tag, "Authentication")
      assert.strictEqual(refused.status, 401)
    }),
  )
})
