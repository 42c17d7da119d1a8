import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { Redaction, ToolCall } from "@svir/core"
import { Effect, Exit, Fiber, Schedule, Scope } from "effect"
import { McpToolbox } from "../src/index.js"
import { makeEraVerdict } from "../src/internal/eraVerdict.js"
import { connectHttp, serverFetch } from "../src/internal/remoteConnection.js"
import { makeGrowingRedaction } from "../src/internal/remoteSecrets.js"
import { makeSession } from "../src/internal/session.js"
import { everythingOverHttp, forgetfulServer } from "./remoteServers.js"
import { assertNoChildLeft, isAlive, progressOf, referenceServer } from "./servers.js"

const restartable = fileURLToPath(new URL("./fixtures/restartable-stdio.mjs", import.meta.url))
// Short waits between tries, so that a test that exhausts them stays quick.
const quickly = { attempts: 3, backoffMillis: 10 }

/** A file for the fixture to count its starts in, removed when the Scope closes. */
const startsFile = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "svir-restart-"))),
  (folder) => Effect.sync(() => rmSync(folder, { recursive: true, force: true })),
).pipe(Effect.map((folder) => join(folder, "starts")))

const starts = (file: string): number => Number(readFileSync(file, "utf8"))

/** Waits until the toolbox has heard that its process exited: `pid` is then undefined. */
const untilExitSeen = (toolbox: McpToolbox.McpToolbox) =>
  Effect.sync(() => toolbox.pid).pipe(
    Effect.repeat({
      until: (pid) => pid === undefined,
      schedule: Schedule.spaced("10 millis"),
      times: 500,
    }),
  )

const names = (toolbox: McpToolbox.McpToolbox) =>
  Effect.map(toolbox.tools, (tools) => tools.map((tool) => tool.name))

describe("McpToolbox.stdio with restart", () => {
  afterEach(assertNoChildLeft)

  it.live("starts server-everything again for the next call after it was killed", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [referenceServer("everything"), "stdio"],
        restart: true,
      }).pipe(Scope.provide(scope))
      const first = toolbox.pid!
      const hello = yield* toolbox.call(ToolCall.make("c1", "echo", '{"message":"hello"}'))
      assert.strictEqual(hello.content, "Echo: hello")
      process.kill(first, "SIGKILL")
      yield* untilExitSeen(toolbox)
      const again = yield* toolbox.call(ToolCall.make("c2", "echo", '{"message":"again"}'))
      assert.deepStrictEqual(again, { callId: "c2", content: "Echo: again", isError: false })
      const second = toolbox.pid
      assert.isDefined(second)
      assert.notStrictEqual(second, first)
      assert.isTrue(isAlive(second!))
      assert.isFalse(isAlive(first))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(isAlive(second!))
    }),
  )

  it.live("fails the calls in flight with the last words, then lists the new process's tools", () =>
    Effect.gen(function* () {
      const file = yield* startsFile
      const progress = progressOf(["c1"])
      const toolbox = yield* McpToolbox.stdio(
        { command: process.execPath, args: [restartable, file], restart: quickly },
        { onProgress: progress.onProgress },
      )
      assert.include(yield* names(toolbox), "generation_1")
      const hanging = yield* Effect.forkChild(toolbox.call(ToolCall.make("c1", "hang")))
      yield* progress.allReported
      const exit = yield* toolbox.call(ToolCall.make("c2", "exit"))
      const hang = yield* Fiber.join(hanging)
      for (const result of [exit, hang]) {
        assert.isTrue(result.isError)
        assert.match(
          result.content,
          /got no answer: the server process exited; the end of the server's own output on stderr: "started 1\\nexiting 1"$/,
        )
      }
      yield* untilExitSeen(toolbox)
      const whoami = yield* toolbox.call(ToolCall.make("c3", "whoami"))
      assert.isFalse(whoami.isError)
      assert.strictEqual(whoami.content, String(toolbox.pid))
      const listed = yield* names(toolbox)
      assert.include(listed, "generation_2")
      assert.notInclude(listed, "generation_1")
      assert.strictEqual(starts(file), 2)
    }),
  )

  it.live("gives up after its tries, saying how many and what the last start wrote", () =>
    Effect.gen(function* () {
      const file = yield* startsFile
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [restartable, file, "2"],
        restart: quickly,
      })
      yield* toolbox.call(ToolCall.make("c1", "exit"))
      yield* untilExitSeen(toolbox)
      const refused = yield* toolbox.call(ToolCall.make("c2", "whoami"))
      assert.isTrue(refused.isError)
      assert.match(
        refused.content,
        /^tool whoami cannot be called: the server process exited; the end of the server's own output on stderr: "started 1\\nexiting 1"; connecting again failed 3 times: starting the MCP server .+ failed: .+; the end of the server's own output on stderr: "refusing start 4"$/s,
      )
      assert.strictEqual(starts(file), 4)
      assert.isUndefined(toolbox.pid)
      // The next call tries again, as many times.
      yield* toolbox.call(ToolCall.make("c3", "whoami"))
      assert.strictEqual(starts(file), 7)
    }),
  )

  it.live("does not start a server that exited again unless asked to", () =>
    Effect.gen(function* () {
      const file = yield* startsFile
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [restartable, file],
      })
      yield* toolbox.call(ToolCall.make("c1", "exit"))
      yield* untilExitSeen(toolbox)
      const after = yield* toolbox.call(ToolCall.make("c2", "whoami"))
      assert.match(after.content, /^tool whoami cannot be called: the server process exited/)
      assert.strictEqual(starts(file), 1)
    }),
  )
})

describe("McpToolbox.http reconnects", () => {
  afterEach(assertNoChildLeft)

  it.live("to server-everything restarted on the same port, and says when it cannot", () =>
    Effect.gen(function* () {
      const server = yield* everythingOverHttp("streamableHttp")
      const toolbox = yield* McpToolbox.http({ url: server.url, reconnect: quickly })
      const echo = (id: string) =>
        toolbox.call(ToolCall.make(id, "echo", JSON.stringify({ message: id })))
      assert.strictEqual((yield* echo("c1")).content, "Echo: c1")
      yield* server.kill
      // Sent on a pooled socket the server had, the first call may fail otherwise; the next one
      // finds the connection lost, and says what its tries gave.
      assert.isTrue((yield* echo("c2")).isError)
      const down = yield* echo("c3")
      assert.isTrue(down.isError)
      assert.match(
        down.content,
        /^tool echo cannot be called: the server can no longer be reached \(fetch failed \(connect ECONNREFUSED [^)]+\)\); connecting again failed 3 times: connecting to the MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp failed: fetch failed \(connect ECONNREFUSED [^)]+\)$/,
      )
      yield* server.start
      assert.deepStrictEqual(yield* echo("c4"), {
        callId: "c4",
        content: "Echo: c4",
        isError: false,
      })
      assert.include(yield* names(toolbox), "echo")
    }),
  )

  it.live("in a new session when the server forgot the old one, and sends the call once more", () =>
    Effect.gen(function* () {
      const { url, seen, forget } = yield* forgetfulServer
      const toolbox = yield* McpToolbox.http({ url })
      assert.strictEqual((yield* toolbox.call(ToolCall.make("c1", "count"))).content, "run 1")
      forget()
      const again = yield* toolbox.call(ToolCall.make("c2", "count"))
      assert.deepStrictEqual(again, { callId: "c2", content: "run 2", isError: false })
      assert.deepStrictEqual(seen, { initializations: 2, runs: 2, callPosts: 3 })
    }),
  )

  it.live(
    "in a new session when the server answers 400 to the old one, as server-everything does",
    () =>
      Effect.gen(function* () {
        const { url, seen, control, forget } = yield* forgetfulServer
        control.unknownSession = 400
        const toolbox = yield* McpToolbox.http({ url })
        forget()
        const again = yield* toolbox.call(ToolCall.make("c1", "count"))
        assert.deepStrictEqual(again, { callId: "c1", content: "run 1", isError: false })
        assert.deepStrictEqual(seen, { initializations: 2, runs: 1, callPosts: 2 })
      }),
  )

  it.live("once only, and then says the server answered 404", () =>
    Effect.gen(function* () {
      const { url, seen, control } = yield* forgetfulServer
      const toolbox = yield* McpToolbox.http({ url })
      control.forgetOnCall = true
      const result = yield* toolbox.call(ToolCall.make("c1", "count"))
      assert.isTrue(result.isError)
      assert.strictEqual(
        result.content,
        "tool count failed: the server answered HTTP 404: it no longer knows the session, on a new connection too",
      )
      assert.deepStrictEqual(seen, { initializations: 2, runs: 0, callPosts: 2 })
    }),
  )

  it.live("never when told not to, and still says what the server answered", () =>
    Effect.gen(function* () {
      const { url, seen, forget } = yield* forgetfulServer
      const toolbox = yield* McpToolbox.http({ url, reconnect: false })
      forget()
      const result = yield* toolbox.call(ToolCall.make("c1", "count"))
      assert.strictEqual(
        result.content,
        "tool count failed: the server answered HTTP 404: it no longer knows the session",
      )
      assert.strictEqual(seen.initializations, 1)
    }),
  )

  it.live("never for a call that may have reached the server", () =>
    Effect.gen(function* () {
      const { url, seen, control } = yield* forgetfulServer
      const toolbox = yield* McpToolbox.http({ url })
      control.failCalls = true
      const result = yield* toolbox.call(ToolCall.make("c1", "count"))
      assert.isTrue(result.isError)
      assert.match(
        result.content,
        /^tool count failed: Error POSTing to endpoint: .*the tool ran, then the server failed/,
      )
      assert.deepStrictEqual(seen, { initializations: 1, runs: 1, callPosts: 1 })
    }),
  )
})

describe("Session.withClient", () => {
  it.live(
    "runs a request on the live Client, and once more in a new session the server knows",
    () =>
      Effect.gen(function* () {
        const { url, seen, forget } = yield* forgetfulServer
        const connected: Array<Client> = []
        const session = yield* makeSession(
          connectHttp(
            {
              url: new URL(url),
              fetch: serverFetch(new URL(url), {}, 1_000_000, makeGrowingRedaction([])),
              authProvider: undefined,
              connectTimeoutMillis: 5_000,
              redaction: Redaction.none,
              newClient: () => new Client({ name: "session-test", version: "1.0.0" }),
              verdict: makeEraVerdict(),
            },
            false,
          ),
          {
            reconnect: quickly,
            redaction: Redaction.none,
            onConnection: (connection) => Effect.sync(() => connected.push(connection.client)),
            afterReconnect: Effect.void,
          },
        )
        const count = (client: Client, signal: AbortSignal) =>
          client.callTool({ name: "count" }, { signal })
        yield* session.withClient("counting", count)
        forget()
        const again = yield* session.withClient("counting", count)
        assert.deepStrictEqual(again.content, [{ type: "text", text: "run 2" }])
        assert.strictEqual(connected.length, 2)
        assert.strictEqual(session.current().client, connected[1])
        assert.strictEqual(seen.initializations, 2)
        // A connection that closed is made again before the request is sent.
        session.current().state.markClosed("closed by the test")
        yield* session.withClient("counting", count)
        assert.strictEqual(connected.length, 3)
      }),
  )
})
