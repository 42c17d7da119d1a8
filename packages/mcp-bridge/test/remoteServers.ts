/**
 * server-everything over HTTP in a child process that a test can kill and start again on the
 * same port, and an SDK server over Streamable HTTP on 127.0.0.1 that can forget its sessions.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { referenceServer } from "./servers.js"

/** A port nobody listens on now: the kernel's pick for a socket closed at once. */
const freePort = Effect.promise(
  () =>
    new Promise<number>((resolve) => {
      const probe = createServer()
      probe.listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo
        probe.close(() => resolve(port))
      })
    }),
)

/**
 * What server-everything prints to stderr once it listens, per transport (its
 * dist/transports/streamableHttp.js and dist/transports/sse.js).
 */
const listening = {
  streamableHttp: /Streamable HTTP Server listening on port (\d+)/,
  sse: /Server is running on port (\d+)/,
} as const

/** Starts server-everything with `transport` on `port`; done once it says it listens. */
const startEverything = (transport: keyof typeof listening, port: number) =>
  Effect.callback<ChildProcess>((resume) => {
    const child = spawn(process.execPath, [referenceServer("everything"), transport], {
      env: { ...process.env, PORT: String(port) },
      // Its log of every request goes to stdout (Streamable HTTP) or stderr (SSE): stderr is
      // read to the end, so that the pipe never fills.
      stdio: ["ignore", "ignore", "pipe"],
    })
    let output: string | undefined = ""
    const exited = (code: number | null) =>
      resume(Effect.die(new Error(`server-everything exited (${code}): ${output}`)))
    child.once("exit", exited)
    child.stderr.on("data", (chunk: Buffer) => {
      if (output === undefined) return
      output += String(chunk)
      if (listening[transport].test(output)) {
        output = undefined
        child.off("exit", exited)
        resume(Effect.succeed(child))
      }
    })
  })

const stop = (child: ChildProcess) =>
  Effect.promise(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGKILL")
    await exited
  })

/**
 * server-everything over `transport` on a free port, in a child process: `kill` ends it (SIGKILL,
 * waited for), `start` starts it again on the same port. Whatever runs when the Scope closes is
 * killed.
 */
export const everythingOverHttp = (transport: keyof typeof listening) =>
  Effect.gen(function* () {
    const port = yield* freePort
    let child = yield* startEverything(transport, port)
    yield* Effect.addFinalizer(() => Effect.suspend(() => stop(child)))
    const path = transport === "sse" ? "sse" : "mcp"
    return {
      url: `http://127.0.0.1:${port}/${path}`,
      kill: Effect.suspend(() => stop(child)),
      start: Effect.map(startEverything(transport, port), (started) => {
        child = started
      }),
    }
  })

/** Counts of what a {@link forgetfulServer} was sent. */
export interface Seen {
  initializations: number
  /** Each `tools/call` the server ran the tool for. */
  runs: number
  /** Each `tools/call` POST, whatever the server answered. */
  callPosts: number
}

/**
 * An SDK server over Streamable HTTP on 127.0.0.1 with a session per client, as the SDK's own
 * examples keep them, that answers HTTP 404 for a session it does not know (the spec's answer for
 * a session that has ended), or `unknownSession` when set: 400 replays server-everything
 * 2026.8.31 after a restart ("Bad Request: No valid session ID provided", its
 * dist/transports/streamableHttp.js). `forget()` drops every session; while `forgetOnCall` is set, every
 * `tools/call` drops its session and is answered 404 without being run; while `failCalls` is set,
 * every `tools/call` is answered HTTP 500 after the tool ran. Its one tool, `count`, answers with
 * the number of its runs.
 */
export const forgetfulServer = Effect.acquireRelease(
  Effect.promise(async () => {
    const seen: Seen = { initializations: 0, runs: 0, callPosts: 0 }
    const control = { forgetOnCall: false, failCalls: false, unknownSession: 404 }
    const sessions = new Map<string, StreamableHTTPServerTransport>()
    const newSession = async () => {
      const server = new McpServer({ name: "forgetful", version: "1.0.0" })
      server.registerTool("count", { description: "Counts its runs." }, () => {
        seen.runs++
        return { content: [{ type: "text" as const, text: `run ${seen.runs}` }] }
      })
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, transport)
        },
      })
      await server.connect(transport)
      return transport
    }
    const handle = async (req: IncomingMessage, res: ServerResponse) => {
      const body = req.method === "POST" ? await readJson(req) : undefined
      const id = req.headers["mcp-session-id"]
      if (typeof id !== "string") {
        if (!isInitializeRequest(body)) return refuse(res, 400, "no session")
        seen.initializations++
        return (await newSession()).handleRequest(req, res, body)
      }
      if (isToolCall(body)) seen.callPosts++
      const transport = sessions.get(id)
      if (transport === undefined) {
        return refuse(res, control.unknownSession, "Bad Request: No valid session ID provided")
      }
      if (isToolCall(body)) {
        if (control.forgetOnCall) {
          sessions.delete(id)
          return refuse(res, 404, "Session not found")
        }
        if (control.failCalls) {
          seen.runs++
          return refuse(res, 500, "the tool ran, then the server failed")
        }
      }
      return transport.handleRequest(req, res, body)
    }
    const http = createServer((req, res) => {
      handle(req, res).catch(() => res.destroy())
    })
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
    const { port } = http.address() as AddressInfo
    return {
      url: `http://127.0.0.1:${port}/mcp`,
      seen,
      control,
      forget: () => sessions.clear(),
      http,
      sessions,
    }
  }),
  ({ http, sessions }) =>
    Effect.promise(async () => {
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
      await Promise.all([...sessions.values()].map((transport) => transport.close()))
    }),
)

const readJson = async (req: IncomingMessage): Promise<unknown> => {
  let text = ""
  for await (const chunk of req) text += String(chunk)
  return JSON.parse(text)
}

const isToolCall = (body: unknown): boolean =>
  typeof body === "object" &&
  body !== null &&
  (body as { readonly method?: unknown }).method === "tools/call"

const refuse = (res: ServerResponse, status: number, message: string) => {
  res
    .writeHead(status, { "content-type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message }, id: null }))
}
