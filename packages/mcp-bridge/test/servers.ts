/**
 * Servers the tests start: the reference servers from node_modules over stdio, and SDK servers
 * over Streamable HTTP on 127.0.0.1, in this process or in a child process the test can kill.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { Client, InMemoryTransport } from "@modelcontextprotocol/client"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import type { ToolCall } from "@svir/core"
import { Toolbox } from "@svir/core"
import { Deferred, Effect, Exit, Fiber, Logger } from "effect"
import type { McpToolbox } from "../src/index.js"
import { echoHeaders, hostileServer, rewrite } from "./fixtures/hostile.mjs"

const nodeModules = new URL("../../../node_modules/", import.meta.url)

/** The entry script of a reference server installed in node_modules. */
export const referenceServer = (name: "everything" | "filesystem" | "memory"): string =>
  fileURLToPath(new URL(`@modelcontextprotocol/server-${name}/dist/index.js`, nodeModules))

interface ProcessInfo {
  readonly pid: number
  readonly parent: number
  readonly group: number
  readonly commandLine: string
}

/** The live processes of this machine, read from /proc (zombies left out). */
const processes = (): ReadonlyArray<ProcessInfo> =>
  readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
        // The command name may hold spaces and parentheses: the fields start after the last ")".
        const [state, parent, group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
        if (state === "Z") return []
        const commandLine = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ")
        return [{ pid: Number(entry), parent: Number(parent), group: Number(group), commandLine }]
      } catch {
        return []
      }
    })

/** The ids of this process's live child processes. */
export const childPids = (): ReadonlyArray<number> =>
  processes()
    .filter((info) => info.parent === process.pid)
    .map((info) => info.pid)

/**
 * The processes of a server: those whose command line holds `tag` (an argument the test passed to
 * every process it starts, so that one that left the group or lost its parent is still found),
 * and those in its process `group` when given.
 */
export const serverProcesses = (tag: string, group?: number): ReadonlyArray<number> =>
  processes()
    .filter((info) => info.group === group || info.commandLine.includes(tag))
    .map((info) => info.pid)

/** A fresh tag for {@link serverProcesses}. */
export const makeTag = (): string => `svir-test-${crypto.randomUUID()}`

/**
 * Polls /proc until the server's processes are gone, for at most `millis`; gives those left,
 * after killing them so that a failing test leaves nothing behind either.
 */
export const processesLeft = (tag: string, group?: number, millis = 10_000) =>
  Effect.gen(function* () {
    const giveUpAt = Date.now() + millis
    let left = serverProcesses(tag, group)
    while (left.length > 0 && Date.now() < giveUpAt) {
      yield* Effect.sleep("20 millis")
      left = serverProcesses(tag, group)
    }
    for (const pid of left) killQuietly(pid)
    return left
  })

const killQuietly = (pid: number): void => {
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // Gone already.
  }
}

/** Whether a process with this id exists. */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** An SDK server and a Client connected to it over the SDK's in-memory transport, until the Scope closes. */
export const connectInMemory = (server: McpServer | Server) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      await server.connect(serverSide)
      const client = new Client({ name: "test", version: "1.0.0" })
      await client.connect(clientSide)
      return client
    }),
    (client) => Effect.promise(() => client.close()),
  )

/**
 * Serves an SDK server over Streamable HTTP on 127.0.0.1 for one session, until the Scope
 * closes. Gives the server's URL.
 */
export const serveHttp = (makeServer: () => McpServer | Server) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const server = makeServer()
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
      })
      await server.connect(transport)
      const http = createServer((req, res) => {
        transport.handleRequest(req, res).catch(() => res.destroy())
      })
      await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
      const { port } = http.address() as AddressInfo
      return { url: `http://127.0.0.1:${port}/mcp`, http, server }
    }),
    ({ http, server }) =>
      Effect.promise(async () => {
        http.closeAllConnections()
        await new Promise((resolve) => http.close(resolve))
        await server.close()
      }),
  )

/**
 * Serves the hostile server of `test/fixtures/hostile.mjs` over Streamable HTTP on 127.0.0.1,
 * answering with event streams, or with JSON bodies when `jsonResponse` is set.
 * While `control.status` is not 200, every request is refused with that status and a body that
 * echoes the request's headers. Whatever the SDK sends goes through `rewrite`, which puts in the
 * values nested 100 000 levels deep.
 */
export const serveHostileHttp = (
  options: Parameters<typeof hostileServer>[0] & { readonly jsonResponse?: boolean } = {},
) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const server = hostileServer(options)
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        enableJsonResponse: options.jsonResponse ?? false,
      })
      await server.connect(transport)
      const control = { status: 200 }
      const http = createServer((req, res) => {
        if (control.status !== 200) {
          res
            .writeHead(control.status, { "content-type": "application/json" })
            .end(JSON.stringify({ error: `rejected ${echoHeaders(req.headers)}` }))
          return
        }
        transport.handleRequest(req, rewriting(res)).catch(() => res.destroy())
      })
      await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
      const { port } = http.address() as AddressInfo
      return { url: `http://127.0.0.1:${port}/mcp`, http, server, control }
    }),
    ({ http, server }) =>
      Effect.promise(async () => {
        http.closeAllConnections()
        await new Promise((resolve) => http.close(resolve))
        await server.close()
      }),
  )

/**
 * The response with every text written to it passed through `rewrite`, sent without a
 * Content-Length (the rewritten body is longer).
 */
const rewriting = (res: ServerResponse): ServerResponse => {
  const write = res.write.bind(res) as (chunk: unknown, ...rest: Array<unknown>) => boolean
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: Array<unknown>) => ServerResponse
  const writeHead = res.writeHead.bind(res) as (...args: Array<unknown>) => ServerResponse
  const rewritten = (chunk: unknown) =>
    typeof chunk === "string"
      ? rewrite(chunk)
      : chunk instanceof Uint8Array
        ? rewrite(Buffer.from(chunk).toString("utf8"))
        : chunk
  return Object.assign(res, {
    writeHead: (...args: Array<unknown>) => {
      res.removeHeader("content-length")
      return writeHead(...args.map(withoutContentLength))
    },
    write: (chunk: unknown, ...rest: Array<unknown>) => write(rewritten(chunk), ...rest),
    end: (chunk?: unknown, ...rest: Array<unknown>) => end(rewritten(chunk), ...rest),
  })
}

const withoutContentLength = (headers: unknown): unknown => {
  if (Array.isArray(headers)) {
    return headers.filter((pair) => !/^content-length$/i.test(String(pair?.[0])))
  }
  if (typeof headers !== "object" || headers === null) return headers
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !/^content-length$/i.test(name)),
  )
}

/**
 * Starts `test/fixtures/http-server.mjs` as a child process and gives its URL and the process,
 * which the test may kill. The process is killed when the Scope closes, if it still runs.
 */
export const spawnHttpServer = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly child: ChildProcess }>((resume) => {
    const script = fileURLToPath(new URL("./fixtures/http-server.mjs", import.meta.url))
    const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => {
      output += String(chunk)
      const match = /listening on (\d+)/.exec(output)
      if (match) resume(Effect.succeed({ url: `http://127.0.0.1:${match[1]}/mcp`, child }))
    })
  }),
  ({ child }) =>
    Effect.promise(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGKILL")
      await exited
    }),
)

/** Fails the test when a child process it started is still running after its Scope closed. */
export const assertNoChildLeft = (): void => {
  const left = childPids()
  if (left.length > 0) throw new Error(`child processes outlived the test: ${left.join(", ")}`)
}

/**
 * A progress listener for `McpToolbox.Options.onProgress`, and an effect that waits until each of
 * the calls has reported progress: the server is then working on all of them.
 */
export const progressOf = (callIds: ReadonlyArray<string>) => {
  const waiting = new Set(callIds)
  const reported = Deferred.makeUnsafe<void>()
  return {
    onProgress: (event: McpToolbox.ProgressEvent) => {
      waiting.delete(event.callId)
      if (waiting.size === 0) Deferred.doneUnsafe(reported, Exit.void)
    },
    allReported: Deferred.await(reported),
  }
}

/**
 * Starts the calls together, runs `kill` once `inFlight` says the server is working on them, and
 * gives their results with the time they took to come after the kill.
 */
export const callThenKill = (
  toolbox: Toolbox.Toolbox,
  calls: ReadonlyArray<ToolCall.ToolCall>,
  inFlight: Effect.Effect<void>,
  kill: Effect.Effect<void>,
) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(
      Toolbox.callAll(toolbox, calls, { concurrency: calls.length }),
    )
    yield* inFlight
    const killedAt = Date.now()
    yield* kill
    const results = yield* Fiber.join(fiber)
    return {
      failed: results.map((result) => [result.callId, result.isError] as const),
      contents: results.map((result) => result.content),
      millisAfterKill: Date.now() - killedAt,
    }
  })

/** A logger that keeps every line, for tests that assert on logs (and print none). */
export const captureLogs = () => {
  const logged: Array<string> = []
  const keep = Logger.make((options) => {
    logged.push(Logger.formatSimple.log(options))
  })
  return { logged, layer: Logger.layer([keep]) }
}
