/**
 * An MCP server's tools as a svir Toolbox, through the official MCP SDK's Client.
 *
 * @since 0.1.0
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  type Tool as McpTool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js"
import { Json, Redaction, SvirError, Tool, type Toolbox, ToolCall, ToolResult } from "@svir/core"
import { Deferred, Effect, Exit, Result, type Scope, Semaphore } from "effect"
import * as Content from "./Content.js"
import { boundedFetch } from "./internal/boundedFetch.js"
import { cut } from "./internal/cut.js"
import { describe, isConnectionClosed, isTimeout, toSvirError } from "./internal/failure.js"
import { listAll } from "./internal/listing.js"
import { makeTail } from "./internal/process.js"
import { GroupStdioTransport } from "./internal/stdioTransport.js"
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
const probeTimeoutMillis = 3_000
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

/** The tools of one listing, and the way back from offered names to the server's names. */
interface Listing {
  /** The count of list changes this listing reflects. */
  readonly version: number
  readonly tools: ReadonlyArray<Tool.Tool>
  readonly serverNames: ReadonlyMap<string, string>
  /** Offered names given by two of the server's tools: only the first is kept. */
  readonly duplicates: ReadonlyArray<string>
  /** Tools left out because their input schema nests deeper than `Json.maxDepth`. */
  readonly tooDeep: ReadonlyArray<string>
}

const makeListing = (
  version: number,
  mcpTools: ReadonlyArray<McpTool>,
  prefix: string | undefined,
): Listing => {
  const tools: Array<Tool.Tool> = []
  const serverNames = new Map<string, string>()
  const duplicates: Array<string> = []
  const tooDeep: Array<string> = []
  for (const mcpTool of mcpTools) {
    // A tool that requires task-based execution cannot be answered by `tools/call` alone.
    if (mcpTool.execution?.taskSupport === "required") continue
    // A schema this deep could not be written out or walked by a codec without overflowing the
    // stack; the server's other tools stay usable (DECISIONS.md D4).
    if (Json.valueDepth(mcpTool.inputSchema, Json.maxDepth) > Json.maxDepth) {
      tooDeep.push(mcpTool.name)
      continue
    }
    const name = ToolName.offered(mcpTool.name, prefix)
    if (serverNames.has(name)) {
      duplicates.push(name)
      continue
    }
    serverNames.set(name, mcpTool.name)
    tools.push(
      Tool.make(name, mcpTool.description ?? mcpTool.title ?? "", { ...mcpTool.inputSchema }),
    )
  }
  return { version, tools, serverNames, duplicates, tooDeep }
}

interface Connection {
  readonly pid: number | undefined
  /** Why calls can no longer be answered once the transport has closed. */
  readonly closeReason: () => string
  /** Applied to every error, failed result and log line of the toolbox. */
  readonly redaction: Redaction.Redaction
}

// Servers of the 2024-10-07 revision answer with `toolResult` instead of content blocks.
const asCallResult = (result: { readonly [key: string]: unknown }): Content.CallResult =>
  Array.isArray(result.content)
    ? (result as Content.CallResult)
    : { structuredContent: result.toolResult }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const bridge = (
  client: Client,
  options: Options,
  connection: Connection,
): Effect.Effect<McpToolbox, SvirError.SvirError, Scope.Scope> =>
  Effect.gen(function* () {
    const prefix =
      options.prefix === undefined ? undefined : yield* ToolName.validatePrefix(options.prefix)
    const bounds = {
      maxPages: options.maxPages ?? 100,
      maxTools: options.maxTools ?? 1_000,
      timeoutMillis: options.listTimeoutMillis ?? defaultListTimeoutMillis,
    }
    const timeoutMillis = options.timeoutMillis ?? defaultTimeoutMillis
    const maxTotalMillis = options.maxTotalMillis ?? defaultMaxTotalMillis
    const contentOptions = { media: options.media, maxChars: options.maxResultChars }

    // Written from the SDK's callbacks, read by the effects below.
    const state = {
      changes: 0,
      listing: makeListing(0, [], prefix),
      lost: Deferred.makeUnsafe<string>(),
      closed: undefined as string | undefined,
      inFlight: 0,
      probing: false,
    }
    const loseConnection = (reason: string) => {
      const lost = state.lost
      state.lost = Deferred.makeUnsafe<string>()
      Deferred.doneUnsafe(lost, Exit.succeed(reason))
    }
    // Over HTTP a server that dies mid-call only breaks a response stream, and the SDK keeps
    // waiting for the answer. A ping that cannot be delivered tells a dead server from a passing
    // hiccup; a ping that is merely slow proves nothing (a busy server may answer one request at
    // a time), and the call's own timeout still applies.
    const probe = () => {
      if (state.inFlight === 0 || state.probing || state.closed !== undefined) return
      state.probing = true
      client.ping({ timeout: probeTimeoutMillis }).then(
        () => {
          state.probing = false
        },
        (error: unknown) => {
          state.probing = false
          if (!isTimeout(error)) {
            loseConnection(`the server can no longer be reached (${describe(error)})`)
          }
        },
      )
    }

    const previousOnError = client.onerror
    const previousOnClose = client.onclose
    client.onerror = (error) => {
      previousOnError?.(error)
      probe()
    }
    client.onclose = () => {
      previousOnClose?.()
      state.closed = connection.closeReason()
      loseConnection(state.closed)
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      state.changes++
    })
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (previousOnError === undefined) delete client.onerror
        else client.onerror = previousOnError
        if (previousOnClose === undefined) delete client.onclose
        else client.onclose = previousOnClose
        client.removeNotificationHandler(ToolListChangedNotificationSchema.shape.method.value)
      }),
    )

    const { redaction } = connection
    const warn = (message: string) => Effect.logWarning(redaction.text(message))

    const listAt = (version: number): Effect.Effect<Listing, SvirError.SvirError> =>
      client.getServerCapabilities()?.tools === undefined
        ? Effect.succeed(makeListing(version, [], prefix))
        : listAll(client, bounds).pipe(
            Effect.mapError(redaction.error),
            Effect.map((tools) => makeListing(version, tools, prefix)),
            Effect.tap((listing) =>
              listing.duplicates.length === 0
                ? Effect.void
                : warn(
                    `MCP tools offered under a name already taken were left out: ${listing.duplicates.join(", ")}`,
                  ),
            ),
            Effect.tap((listing) =>
              listing.tooDeep.length === 0
                ? Effect.void
                : warn(
                    `MCP tools whose input schema nests deeper than ${Json.maxDepth} levels were left out: ${listing.tooDeep.join(", ")}`,
                  ),
            ),
            Effect.tap((listing) =>
              Effect.sync(() => {
                state.listing = listing
              }),
            ),
          )

    const lock = Semaphore.makeUnsafe(1)
    const isCurrent = () => state.listing.version === state.changes || state.closed !== undefined
    // A refresh that fails keeps the tools listed before, until the server reports a change again.
    const current: Effect.Effect<Listing> = Effect.suspend(() =>
      isCurrent()
        ? Effect.succeed(state.listing)
        : lock.withPermits(1)(
            Effect.suspend(() => {
              if (isCurrent()) return Effect.succeed(state.listing)
              const version = state.changes
              return listAt(version).pipe(
                Effect.catch((error) =>
                  warn(
                    `MCP tools could not be listed again; keeping the earlier list: ${error.message}`,
                  ).pipe(
                    Effect.andThen(
                      Effect.sync(() => {
                        state.listing = { ...state.listing, version }
                        return state.listing
                      }),
                    ),
                  ),
                ),
              )
            }),
          ),
    )

    const describeFailure = (name: string, error: unknown): string => {
      if (isTimeout(error)) return `tool ${name} did not answer in time (${describe(error)})`
      if (isConnectionClosed(error)) {
        return `tool ${name} got no answer: ${state.closed ?? connection.closeReason()}`
      }
      return `tool ${name} failed: ${describe(error)}`
    }

    const send = (
      call: ToolCall.ToolCall,
      serverName: string,
      args: Record<string, unknown>,
    ): Effect.Effect<ToolResult.ToolResult> => {
      const answer = Effect.tryPromise({
        try: (signal) =>
          client.callTool({ name: serverName, arguments: args }, undefined, {
            signal,
            timeout: timeoutMillis,
            resetTimeoutOnProgress: true,
            maxTotalTimeout: maxTotalMillis,
            onprogress: (progress) => {
              // A listener that throws must not break the SDK's handling of the notification.
              try {
                options.onProgress?.({ callId: call.id, name: call.name, ...progress })
              } catch {}
            },
          }),
        // An error's text is as long as the server made it: redacted whole, then cut like a
        // result's content.
        catch: (error) =>
          cut(
            redaction.text(describeFailure(call.name, error)),
            options.maxResultChars ?? Content.defaultMaxChars,
          ),
      }).pipe(
        Effect.map((result) => Content.toToolResult(call.id, asCallResult(result), contentOptions)),
        Effect.catch((message) => Effect.succeed(ToolResult.error(call.id, message))),
      )
      return Effect.suspend(() => {
        const connectionLost = Effect.map(Deferred.await(state.lost), (reason) =>
          ToolResult.error(call.id, `tool ${call.name} got no answer: ${reason}`),
        )
        state.inFlight++
        return Effect.raceFirst(answer, connectionLost).pipe(
          Effect.ensuring(
            Effect.sync(() => {
              state.inFlight--
            }),
          ),
        )
      })
    }

    const answer = (call: ToolCall.ToolCall): Effect.Effect<ToolResult.ToolResult> =>
      Effect.gen(function* () {
        const listing = yield* current
        const serverName = listing.serverNames.get(call.name)
        if (serverName === undefined) {
          return ToolResult.unknownTool(
            call.id,
            call.name,
            listing.tools.map((tool) => tool.name),
          )
        }
        const args = ToolCall.readJson(call.arguments)
        if (Result.isFailure(args)) return ToolResult.error(call.id, args.failure.message)
        if (!isRecord(args.success)) {
          return ToolResult.error(call.id, `the arguments of ${call.name} must be a JSON object`)
        }
        if (state.closed !== undefined) {
          return ToolResult.error(call.id, `tool ${call.name} cannot be called: ${state.closed}`)
        }
        return yield* send(call, serverName, args.success)
      })

    // A failure's text may quote what the server echoed of the request.
    const call = (call: ToolCall.ToolCall): Effect.Effect<ToolResult.ToolResult> =>
      Effect.map(answer(call), (result) =>
        result.isError ? { ...result, content: redaction.text(result.content) } : result,
      )

    yield* listAt(state.changes)

    return {
      tools: Effect.map(current, (listing) => listing.tools),
      call,
      serverNames: Effect.map(current, (listing) => listing.serverNames),
      refresh: lock.withPermits(1)(
        Effect.suspend(() => Effect.map(listAt(state.changes), (listing) => listing.tools)),
      ),
      pid: connection.pid,
    }
  })
