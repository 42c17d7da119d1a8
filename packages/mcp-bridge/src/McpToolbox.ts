/**
 * An MCP server's tools as a svir Toolbox, through the official MCP SDK's Client.
 *
 * @since 0.1.0
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  Json,
  Redaction,
  SvirError,
  type Tool,
  type Toolbox,
  ToolCall,
  ToolResult,
} from "@svir/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import type * as Content from "./Content.js"
import { boundedFetch } from "./internal/boundedFetch.js"
import { hookClient } from "./internal/clientHooks.js"
import { type ConnectionState, makeConnectionState } from "./internal/connection.js"
import { toSvirError } from "./internal/failure.js"
import { listTools } from "./internal/listing.js"
import { makeProbe } from "./internal/probe.js"
import { makeTail } from "./internal/process.js"
import { type CallSender, type CallSettings, makeCallSender } from "./internal/sendCall.js"
import { GroupStdioTransport } from "./internal/stdioTransport.js"
import { makeToolCache, type ToolCache } from "./internal/toolCache.js"
import * as ToolName from "./ToolName.js"

/**
 * A call's progress, as the server reported it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProgressEvent {
  /** The id of the call the progress is about. */
  readonly callId: string
  /** The name the tool was offered under. */
  readonly name: string
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/**
 * How a server's tools are offered and called. Every bound has a default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Offered names become `<prefix>__<name>`, which keeps several servers apart. */
  readonly prefix?: string | undefined
  /** How long a call may go without an answer or a progress report. Default 60 000. */
  readonly timeoutMillis?: number | undefined
  /** How long a call may take however often it reports progress. Default 600 000. */
  readonly maxTotalMillis?: number | undefined
  /** How long one page of `tools/list` may take. Default 30 000. */
  readonly listTimeoutMillis?: number | undefined
  /** The most pages of `tools/list` followed. Default 100. */
  readonly maxPages?: number | undefined
  /** The most tools listed. Default 1 000. */
  readonly maxTools?: number | undefined
  /** What image and audio blocks become in a result. Default `"placeholder"`. */
  readonly media?: Content.Media | undefined
  /** The most characters of a result kept. Default 100 000. */
  readonly maxResultChars?: number | undefined
  /** Called for every progress report of a call. */
  readonly onProgress?: ((event: ProgressEvent) => void) | undefined
}

/**
 * A server started as a child process that speaks MCP on its standard input and output.
 *
 * @since 0.1.0
 * @category models
 */
export interface StdioServer {
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  /** Added to a small safe default environment (PATH, HOME, ...), not to this process's. */
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
  /** How long starting and initializing may take. Default 30 000. */
  readonly connectTimeoutMillis?: number | undefined
  /**
   * The largest message read from the server, in bytes. A larger answer fails its own call and
   * is never held in memory whole. Default 10 485 760 (10 MiB).
   */
  readonly maxMessageBytes?: number | undefined
  /**
   * How long the server may take to exit once its input ends, and again after SIGTERM, before
   * its process group is sent SIGTERM, then SIGKILL. Default 2 000.
   */
  readonly stopGraceMillis?: number | undefined
}

/**
 * A server reached over Streamable HTTP.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpServer {
  readonly url: string | URL
  /** Sent with every request, for example an `Authorization` header. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** How long initializing may take. Default 30 000. */
  readonly connectTimeoutMillis?: number | undefined
  /**
   * The largest message read from the server, in bytes. A larger answer fails its own call and
   * is never held in memory whole; the body of an HTTP error is cut at this size. Default
   * 10 485 760 (10 MiB).
   */
  readonly maxMessageBytes?: number | undefined
}

/**
 * A toolbox over one MCP server. `tools` is the list last fetched, fetched again after the server
 * says it changed; `call` never fails. `serverNames` maps each offered name to the server's own;
 * `refresh` fetches the list now; `pid` is the server process's id when this package started it.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpToolbox extends Toolbox.Toolbox {
  readonly serverNames: Effect.Effect<ReadonlyMap<string, string>>
  readonly refresh: Effect.Effect<ReadonlyArray<Tool.Tool>, SvirError.SvirError>
  readonly pid: number | undefined
}

const clientInfo = { name: "svir-mcp-bridge", version: "0.1.0" }
const defaultTimeoutMillis = 60_000
const defaultMaxTotalMillis = 600_000
const defaultListTimeoutMillis = 30_000
const defaultConnectTimeoutMillis = 30_000
const closeGraceMillis = 3_000
const defaultStopGraceMillis = 2_000
// The bound of the SDK's own stdio transport (its HTTP transport has none).
const defaultMaxMessageBytes = 10 * 1024 * 1024
const stderrTailChars = 2_000

/**
 * Bridges a Client that is already connected (one that is not is a Config error). The tools are
 * listed at once: a failure to list is a typed error. The toolbox handles `notifications/tools/list_changed` in place of any handler
 * set before, and removes its handler when the Scope closes; closing the Client stays the caller's.
 *
 * @example
 * ```ts
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js"
 * import { Effect } from "effect"
 * import { McpToolbox } from "@svir/mcp-bridge"
 *
 * declare const client: Client
 * const toolbox = McpToolbox.fromClient(client, { prefix: "files" })
 * // Effect<McpToolbox, SvirError, Scope>
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromClient = (
  client: Client,
  options: Options = {},
): Effect.Effect<McpToolbox, SvirError.SvirError, Scope.Scope> =>
  // A Client that never finished initializing has no capabilities, which would read as no tools.
  client.getServerCapabilities() === undefined
    ? Effect.fail(
        SvirError.make("Config", "the MCP Client is not connected: connect it before bridging it"),
      )
    : bridge(client, options, {
        pid: undefined,
        closeReason: () => "the server closed the connection",
        redaction: Redaction.none,
      })

/**
 * Starts a server process in a process group of its own, connects to it over stdio and bridges
 * its tools. When the Scope closes, the whole group is stopped (end of input, then SIGTERM, then
 * SIGKILL) and waited for, so that what the server started (through `sh -c` or `npx`) goes too. A
 * server that cannot be started is a Transport error, one that does not initialize in time a
 * Timeout error; both quote the end of what the server wrote to stderr.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpToolbox } from "@svir/mcp-bridge"
 *
 * const files = McpToolbox.stdio(
 *   { command: "mcp-server-filesystem", args: ["/srv/notes"] },
 *   { prefix: "files" },
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const stdio = (
  server: StdioServer,
  options: Options = {},
): Effect.Effect<McpToolbox, SvirError.SvirError, Scope.Scope> =>
  Effect.gen(function* () {
    // A server that fails often prints its environment, or the token it was given, to stderr.
    const redaction = Redaction.make(Object.values(server.env ?? {}))
    const stderr = makeTail(stderrTailChars)
    const lastWords = () => {
      const text = stderr.text()
      return text === "" ? "" : `; its last words on stderr: ${text}`
    }
    const child = yield* Effect.acquireRelease(
      Effect.sync(
        (): StdioChild => ({
          client: new Client(clientInfo),
          transport: new GroupStdioTransport({
            command: server.command,
            args: server.args ?? [],
            env: server.env,
            cwd: server.cwd,
            maxMessageBytes: server.maxMessageBytes ?? defaultMaxMessageBytes,
            stopGraceMillis: server.stopGraceMillis ?? defaultStopGraceMillis,
            onStderr: stderr.push,
          }),
          pid: undefined,
          connected: false,
        }),
      ),
      closeStdio,
    )
    yield* Effect.tryPromise({
      try: (signal) => {
        const connecting = child.client.connect(child.transport, {
          signal,
          timeout: server.connectTimeoutMillis ?? defaultConnectTimeoutMillis,
        })
        // The process is spawned before connect first waits; a failed connect forgets its id.
        child.pid = child.transport.pid
        return connecting
      },
      catch: (error) => {
        const failure = toSvirError(`starting the MCP server ${server.command}`, error)
        return redaction.error(
          SvirError.make(failure.kind, `${failure.message}${lastWords()}`, { cause: error }),
        )
      },
    })
    child.connected = true
    return yield* bridge(child.client, options, {
      pid: child.pid,
      closeReason: () => `the server process exited${lastWords()}`,
      redaction,
    })
  })

interface StdioChild {
  readonly client: Client
  readonly transport: GroupStdioTransport
  pid: number | undefined
  connected: boolean
}

// A server that never finished initializing is owed no graceful end of input: it is sent
// SIGTERM at once, so that a failed start does not leave it running for a grace period.
const closeStdio = (child: StdioChild): Effect.Effect<void> =>
  Effect.promise(async () => {
    await child.transport.stop(child.connected)
    await child.client.close().catch(() => undefined)
  })

/**
 * Connects to a server over Streamable HTTP and bridges its tools. When the Scope closes, the
 * session is ended (an HTTP DELETE, given up after a short wait) and the Client closed. The values
 * of the configured headers (and the credentials of an `Authorization` header without its scheme)
 * are replaced by `[redacted]` in every error, failed result and log line of the toolbox, in
 * whatever form a server echoes them (see `Redaction` of `@svir/core`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpToolbox } from "@svir/mcp-bridge"
 *
 * const docs = McpToolbox.http(
 *   { url: "http://127.0.0.1:3000/mcp", headers: { Authorization: "Bearer secret" } },
 *   { prefix: "docs" },
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const http = (
  server: HttpServer,
  options: Options = {},
): Effect.Effect<McpToolbox, SvirError.SvirError, Scope.Scope> =>
  Effect.gen(function* () {
    const url = yield* Effect.try({
      try: () => new URL(server.url),
      catch: () => SvirError.make("Config", `${JSON.stringify(String(server.url))} is not a URL`),
    })
    const redaction = Redaction.make(headerSecrets(server.headers ?? {}))
    const { client, transport } = yield* Effect.acquireRelease(
      Effect.sync(() => ({
        client: new Client(clientInfo),
        transport: new StreamableHTTPClientTransport(url, {
          requestInit: { headers: { ...server.headers } },
          fetch: boundedFetch(server.maxMessageBytes ?? defaultMaxMessageBytes),
        }),
      })),
      ({ client, transport }) => closeHttp(client, transport),
    )
    yield* Effect.tryPromise({
      try: (signal) =>
        client.connect(transport, {
          signal,
          timeout: server.connectTimeoutMillis ?? defaultConnectTimeoutMillis,
        }),
      catch: (error) =>
        redaction.error(toSvirError(`connecting to the MCP server at ${url.href}`, error)),
    })
    return yield* bridge(client, options, {
      pid: undefined,
      closeReason: () => "the connection to the server closed",
      redaction,
    })
  })

/**
 * The header values, and the credentials of `Authorization: <scheme> <credentials>` alone, which
 * servers echo without the scheme (DECISIONS.md D3).
 */
const headerSecrets = (headers: Readonly<Record<string, string>>): Array<string> =>
  Object.entries(headers).flatMap(([name, value]) => {
    const credentials = /^\S+\s+(\S.*)$/.exec(value)?.[1]
    return /^(proxy-)?authorization$/i.test(name) && credentials !== undefined
      ? [value, credentials]
      : [value]
  })

const closeHttp = (client: Client, transport: StreamableHTTPClientTransport): Effect.Effect<void> =>
  Effect.tryPromise(() => transport.terminateSession()).pipe(
    Effect.timeout(closeGraceMillis),
    Effect.ignore,
    Effect.andThen(Effect.promise(() => client.close().catch(() => undefined))),
  )

/** How the Client reached its server, as the bridge needs to know it. */
interface ConnectionInfo {
  readonly pid: number | undefined
  /** Why calls can no longer be answered once the transport has closed. */
  readonly closeReason: () => string
  /** Applied to every error, failed result and log line of the toolbox. */
  readonly redaction: Redaction.Redaction
}

const bridge = (
  client: Client,
  options: Options,
  info: ConnectionInfo,
): Effect.Effect<McpToolbox, SvirError.SvirError, Scope.Scope> =>
  Effect.gen(function* () {
    const prefix =
      options.prefix === undefined ? undefined : yield* ToolName.validatePrefix(options.prefix)
    const { redaction } = info
    const connection = makeConnectionState(info.closeReason)
    const listing = listTools(client, {
      prefix,
      redaction,
      maxPages: options.maxPages ?? 100,
      maxTools: options.maxTools ?? 1_000,
      timeoutMillis: options.listTimeoutMillis ?? defaultListTimeoutMillis,
    })
    const cache = makeToolCache(listing, () => connection.closed() !== undefined, redaction)
    yield* hookClient(client, {
      onError: makeProbe(client, connection),
      onClose: connection.markClosed,
      onToolListChanged: cache.listChanged,
    })
    yield* cache.refresh

    const send = makeCallSender(client, connection, {
      timeoutMillis: options.timeoutMillis ?? defaultTimeoutMillis,
      maxTotalMillis: options.maxTotalMillis ?? defaultMaxTotalMillis,
      content: { media: options.media, maxChars: options.maxResultChars },
      redaction,
      onProgress: withProgressListener(options.onProgress),
    })
    return {
      tools: Effect.map(cache.current, (offered) => offered.tools),
      call: answerCall(cache, connection, send, redaction),
      serverNames: Effect.map(cache.current, (offered) => offered.serverNames),
      refresh: Effect.map(cache.refresh, (offered) => offered.tools),
      pid: info.pid,
    }
  })

/** The listener of progress reports as the sender calls it, if there is one. */
const withProgressListener = (
  listener: ((event: ProgressEvent) => void) | undefined,
): CallSettings["onProgress"] =>
  listener === undefined
    ? undefined
    : (call, progress) => listener({ callId: call.id, name: call.name, ...progress })

/**
 * Answers a call through `send`. A name not offered, arguments that are not a JSON object and a
 * connection already closed give a failed result without a word to the server. The text of every
 * failed result may quote what the server or the model echoed of a secret: it is redacted, here
 * and in `send`, on the failure paths only (D3, D8).
 */
const answerCall =
  (
    cache: ToolCache,
    connection: ConnectionState,
    send: CallSender,
    redaction: Redaction.Redaction,
  ) =>
  (call: ToolCall.ToolCall): Effect.Effect<ToolResult.ToolResult> =>
    Effect.flatMap(cache.current, (offered) => {
      const serverName = offered.serverNames.get(call.name)
      if (serverName === undefined) {
        const names = offered.tools.map((tool) => tool.name)
        return failed(call, ToolResult.unknownTool(call.id, call.name, names).content, redaction)
      }
      const args = ToolCall.readJson(call.arguments)
      if (Result.isFailure(args)) return failed(call, args.failure.message, redaction)
      if (!Json.isObject(args.success)) {
        return failed(call, `the arguments of ${call.name} must be a JSON object`, redaction)
      }
      const closed = connection.closed()
      if (closed !== undefined) {
        return failed(call, `tool ${call.name} cannot be called: ${closed}`, redaction)
      }
      return send(call, serverName, args.success)
    })

/** A failed result whose text may quote a secret the server or the model echoed (D3). */
const failed = (call: ToolCall.ToolCall, text: string, redaction: Redaction.Redaction) =>
  Effect.succeed(ToolResult.error(call.id, redaction.text(text)))
