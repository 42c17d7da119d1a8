/**
 * Servers the tests start: the reference servers from node_modules over stdio, and SDK servers
 * over Streamable HTTP on 127.0.0.1, in this process or in a child process the test can kill.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import type { ToolCall } from "@svir/core"
import { Toolbox } from "@svir/core"
import { Effect, Fiber } from "effect"

const nodeModules = new URL("../../../node_modules/", import.meta.url)

/** The entry script of a reference server installed in node_modules. */
export const referenceServer = (name: "everything" | "filesystem" | "memory"): string =>
  fileURLToPath(new URL(`@modelcontextprotocol/server-${name}/dist/index.js`, nodeModules))

/** The ids of this process's live child processes, read from /proc. */
export const childPids = (): ReadonlyArray<number> =>
  readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
        // The command name may hold spaces and parentheses: the fields start after the last ")".
        const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
        return Number(ppid) === process.pid && state !== "Z" ? [Number(entry)] : []
      } catch {
        return []
      }
    })

/** Whether a process with this id exists. */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

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
 * Starts the calls together, runs `kill` once they are in flight, and gives their results with
 * the time they took to come after the kill.
 */
export const callThenKill = (
  toolbox: Toolbox.Toolbox,
  calls: ReadonlyArray<ToolCall.ToolCall>,
  kill: () => void,
) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(
      Toolbox.callAll(toolbox, calls, { concurrency: calls.length }),
    )
    yield* Effect.sleep("300 millis")
    const killedAt = Date.now()
    kill()
    const results = yield* Fiber.join(fiber)
    return {
      failed: results.map((result) => [result.callId, result.isError] as const),
      contents: results.map((result) => result.content),
      millisAfterKill: Date.now() - killedAt,
    }
  })
