/**
 * An MCP server's tools as a svir Toolbox, through the official MCP SDK's Client.
 *
 * @since 0.2.0
 * @module
 */

import type { Client, OAuthClientProvider, Transport } from "@modelcontextprotocol/client"
import {
  GenAi,
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
import type { CallSettings } from "./internal/callSettings.js"
import { hookClient } from "./internal/clientHooks.js"
import { makeConnectionState } from "./internal/connection.js"
import { makeEraVerdict } from "./internal/eraVerdict.js"
import { type LeftOutNullsByTool, leftOutNullsByTool } from "./internal/leftOutNulls.js"
import { listTools } from "./internal/listing.js"
import { clientFeatures, makeClient } from "./internal/mcpClient.js"
import type { OfferedTools } from "./internal/offeredTools.js"
import { makeProbe } from "./internal/probe.js"
import {
  connectHttp,
  connectSse,
  type RemoteSettings,
  serverFetch,
} from "./internal/remoteConnection.js"
import { headerSecrets, makeGrowingRedaction, watchedProvider } from "./internal/remoteSecrets.js"
import { makeSchemaValidator } from "./internal/schemaValidator.js"
import { type CallSender, makeCallSender } from "./internal/sendCall.js"
import {
  type Connection,
  type Connector,
  makeSession,
  type ReconnectPolicy,
  type Session,
} from "./internal/session.js"
import type { SkippedTool } from "./internal/skippedTool.js"
import { connectStdio } from "./internal/stdioConnection.js"
import { makeToolCache, type ToolCache } from "./internal/toolCache.js"
import { connectTransport } from "./internal/transportConnection.js"
import * as McpPrompts from "./McpPrompts.js"
import * as McpResources from "./McpResources.js"
import * as ToolName from "./ToolName.js"

/**
 * A call's progress, as the server reported it.
 *
 * @since 0.2.0
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
 * @since 0.2.0
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
  /**
   * Called with a call's progress reports, in the order the server sent them, for each report the
   * client reads before the call's answer. The SDK drops a report read after the answer or
   * together with it, so the last one may never come: the result says a call is done (D22).
   */
  readonly onProgress?: ((event: ProgressEvent) => void) | undefined
  /**
   * Whether each `tools/call` carries the caller's trace context, the W3C `traceparent` of its
   * `tools/call` span, in `params._meta` (MCP SEP-414), so that the server's spans join the
   * caller's trace. Off by default, as the client's `propagateTraceContext`: it tells the server
   * about the caller's spans (D43). Only with a tracer that exports: with none there is no span.
   */
  readonly propagateTraceContext?: boolean | undefined
  /**
   * Directories servers may work in, each a `file://` URI, which `roots/list` answers with. The
   * `roots` capability is declared only when this is given; the list is fixed for the toolbox's
   * life. Not used by `fromClient`.
   */
  readonly roots?:
    | ReadonlyArray<{ readonly uri: string; readonly name?: string | undefined }>
    | undefined
  /**
   * How long the `Elicitation` service may take to answer a server before the answer is
   * `cancel`. Default 600 000. Not used by `fromClient`.
   */
  readonly elicitationTimeoutMillis?: number | undefined
}

/**
 * A server started as a child process that speaks MCP on its standard input and output.
 *
 * @since 0.2.0
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
  /**
   * Whether a server that exited is started again by the next call that finds it gone, and how
   * (`true`: 3 tries, 200 ms apart, then doubling). Off by default: what the server held is lost
   * with its process (DECISIONS.md D15).
   */
  readonly restart?: boolean | Reconnect | undefined
}

/**
 * How a lost connection is made again: each call that finds the server gone (a process that
 * exited, a session the server no longer knows, a server that cannot be reached) makes at most
 * `attempts` tries, the second `backoffMillis` after the first and each later one twice as long
 * after the one before. The tools are listed again on the new connection.
 *
 * @since 0.2.0
 * @category models
 */
export interface Reconnect {
  /** The most tries at connecting again. Default 3. */
  readonly attempts?: number | undefined
  /** The wait before the second try, doubled for each try after it. Default 200. */
  readonly backoffMillis?: number | undefined
}

/**
 * A server reached over HTTP, by `sse` (the legacy SSE transport) or `http`.
 *
 * @since 0.2.0
 * @category models
 */
export interface RemoteServer {
  readonly url: string | URL
  /**
   * Sent with every request to the server's origin (never to an authorization server), for
   * example an `Authorization` header.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /**
   * Authorizes with OAuth: a 401 with `WWW-Authenticate` runs the SDK's flow with this provider
   * (discovery, registration, token, refresh). The tokens and the client secret it gives never
   * appear in an error, a failed result or a log line. A flow that needs a person fails with an
   * Authentication error: see the README.
   */
  readonly authProvider?: OAuthClientProvider | undefined
  /** How long connecting and initializing may take, per transport tried. Default 30 000. */
  readonly connectTimeoutMillis?: number | undefined
  /**
   * The largest message read from the server, in bytes. A larger answer fails its own call and
   * is never held in memory whole; the body of an HTTP error is cut at this size. Default
   * 10 485 760 (10 MiB).
   */
  readonly maxMessageBytes?: number | undefined
  /**
   * Whether a lost session is replaced by a new one, and how (`true`: 3 tries, 200 ms apart,
   * then doubling). On by default (DECISIONS.md D12, D14).
   */
  readonly reconnect?: boolean | Reconnect | undefined
}

/**
 * A server reached over Streamable HTTP.
 *
 * @since 0.2.0
 * @category models
 */
export interface HttpServer extends RemoteServer {
  /**
   * Whether a server that answers the first POST with 400, 404 or 405 is tried with the legacy
   * SSE transport at the same URL. Default `true` (DECISIONS.md D18).
   */
  readonly sseFallback?: boolean | undefined
}

/**
 * A tool of the server's list that is not offered, and why (DECISIONS.md D20).
 *
 * @since 0.2.0
 * @category models
 */
export type { SkippedTool } from "./internal/skippedTool.js"

/**
 * A toolbox over one MCP server. `tools` is an Effect that gives the list last fetched, fetched
 * again first after the server says it changed or once the listing's `ttlMs` has run out (held
 * to 1 s at least and 24 h at most), and sorted by offered name, so that the same tools are
 * offered in the same order however the server orders and pages them (D53); `call` never fails.
 * `serverNames`, `skipped` and `refresh` are Effects too; `pid`, `protocolVersion`, `resources`
 * and `prompts` are plain values.
 *
 * @since 0.2.0
 * @category models
 */
export interface McpToolbox extends Toolbox.Toolbox {
  /**
   * An Effect that gives the server's own name of each offered name, for the same list as
   * `tools`. It never fails.
   */
  readonly serverNames: Effect.Effect<ReadonlyMap<string, string>>
  /**
   * An Effect that gives the tools of the server's list that are not offered, and why, for the
   * same list as `tools`. Each is also logged as a warning when the server listed it wrongly. It
   * never fails.
   */
  readonly skipped: Effect.Effect<ReadonlyArray<SkippedTool>>
  /**
   * An Effect that fetches the server's list now and gives the tools offered. A listing that
   * fails leaves the list as it was.
   */
  readonly refresh: Effect.Effect<ReadonlyArray<Tool.Tool>, SvirError.SvirError>
  /**
   * The id of the server process running now, when this package started it. A getter: after a
   * restart it is the new process's, and it is `undefined` while none runs.
   */
  readonly pid: number | undefined
  /**
   * The protocol revision the connection speaks now, as the SDK negotiated it: `"2026-07-28"` with
   * a server of that era, the revision `initialize` agreed on (`"2025-11-25"`, ...) with an older
   * one (D48). A getter: a new connection may speak another, and it is `undefined` while none is
   * open. Spans carry it as `mcp.protocol.version`.
   *
   * @since 0.2.0
   */
  readonly protocolVersion: string | undefined
  /** The server's resources, over the same connection. */
  readonly resources: McpResources.McpResources
  /** The server's prompts, over the same connection. */
  readonly prompts: McpPrompts.McpPrompts
}

const defaultTimeoutMillis = 60_000
const defaultMaxTotalMillis = 600_000
const defaultListTimeoutMillis = 30_000
const defaultConnectTimeoutMillis = 30_000
const defaultStopGraceMillis = 2_000
// The bound of the SDK's own stdio transport (its HTTP transport has none).
const defaultMaxMessageBytes = 10 * 1024 * 1024
const defaultReconnect: ReconnectPolicy = { attempts: 3, backoffMillis: 200 }
/**
 * How long a stdio server may take to answer `server/discover` before it is taken for an older
 * one that ignores requests it does not know (D48): answering takes a server milliseconds once it
 * reads its input.
 */
const stdioProbeTimeoutMillis = 3_000

/**
 * Bridges a Client that is already connected (one that is not is a Config error). The tools are
 * listed at once: a failure to list is a typed error. The toolbox handles `notifications/tools/list_changed` in place of any handler
 * set before, and removes its handler when the Scope closes; closing the Client stays the caller's.
 *
 * @example
 * ```ts
 * import type { Client } from "@modelcontextprotocol/client"
 * import { Effect } from "effect"
 * import { McpToolbox } from "@svir/mcp-bridge"
 *
 * declare const client: Client
 * const toolbox = McpToolbox.fromClient(client, { prefix: "files" })
 * // Effect<McpToolbox, SvirError, Scope>
 * ```
 *
 * @since 0.2.0
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
    : bridge(
        Effect.sync(() => callerConnection(client)),
        undefined,
        options,
        Redaction.none,
      )

/** The caller's Client as the one connection of a toolbox: it is never made again. */
const callerConnection = (client: Client): Connection => ({
  client,
  state: makeConnectionState(() => "the server closed the connection"),
  pid: undefined,
  network: undefined,
  unreached: () => undefined,
})

/**
 * Starts a server process in a process group of its own, connects to it over stdio and bridges
 * its tools. When the Scope closes, the whole group is stopped (end of input, then SIGTERM, then
 * SIGKILL) and waited for, so that what the server started (through `sh -c` or `npx`) goes too. A
 * server that cannot be started is a Transport error, one that does not initialize in time a
 * Timeout error; both quote the end of what the server wrote to stderr. When the server exits,
 * the calls in flight fail at once; with `restart`, the next call starts it again, and the tools
 * are listed again.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpToolbox } from "@svir/mcp-bridge"
 *
 * const files = McpToolbox.stdio(
 *   { command: "mcp-server-filesystem", args: ["/srv/notes"], restart: true },
 *   { prefix: "files" },
 * )
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const stdio = (
  server: StdioServer,
  options: Options = {},
): Effect.Effect<McpToolbox, SvirError.SvirError, Scope.Scope> =>
  Effect.gen(function* () {
    // A server that fails often prints its environment, or the token it was given, to stderr.
    const redaction = Redaction.make(Object.values(server.env ?? {}))
    const features = yield* clientFeatures(options, redaction)
    const restart = yield* reconnectPolicy(server.restart, false)
    const connect = connectStdio({
      parameters: {
        command: server.command,
        args: server.args ?? [],
        env: server.env,
        cwd: server.cwd,
        maxMessageBytes: server.maxMessageBytes ?? defaultMaxMessageBytes,
        stopGraceMillis: server.stopGraceMillis ?? defaultStopGraceMillis,
      },
      connectTimeoutMillis: server.connectTimeoutMillis ?? defaultConnectTimeoutMillis,
      redaction,
      newClient: () => makeClient(features, stdioProbeTimeoutMillis),
      verdict: makeEraVerdict(),
    })
    return yield* bridge(connect, restart, options, redaction)
  })

/**
 * Connects to a server over Streamable HTTP and bridges its tools. When the Scope closes, the
 * session is ended (an HTTP DELETE, given up after a short wait) and the Client closed. The values
 * of the configured headers (and the credentials of an `Authorization` header without its scheme)
 * and the tokens of `authProvider` are replaced by `[redacted]` in every error, failed result and
 * log line of the toolbox, in whatever form a server echoes them (see `Redaction` of
 * `@svir/core`). A session the server no longer knows (HTTP 404) or a server that cannot be
 * reached is connected to again by the next call, and a call that did not reach the server is
 * sent once more (`reconnect`). A server that answers the first POST with 400, 404 or 405 is
 * tried with the legacy SSE transport (`sseFallback`).
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
 * @since 0.2.0
 * @category constructors
 */
export const http = (
  server: HttpServer,
  options: Options = {},
): Effect.Effect<McpToolbox, SvirError.SvirError, Scope.Scope> =>
  remote(server, options, (settings) => connectHttp(settings, server.sseFallback ?? true))

/**
 * Connects to a server over the legacy SSE transport of protocol revision 2024-11-05 (a GET event
 * stream, and POSTs to the URL its first event names) and bridges its tools. Everything `http`
 * does holds, but for the session's end: a legacy session ends with its event stream, which
 * closes when the Scope closes. When that stream breaks, the calls in flight fail at once, and
 * the next call connects again (`reconnect`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpToolbox } from "@svir/mcp-bridge"
 *
 * const legacy = McpToolbox.sse({ url: "http://127.0.0.1:3001/sse" }, { prefix: "old" })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const sse = (
  server: RemoteServer,
  options: Options = {},
): Effect.Effect<McpToolbox, SvirError.SvirError, Scope.Scope> =>
  remote(server, options, connectSse)

/**
 * A server reached over a transport you bring: one of the SDK's (`InMemoryTransport`, a
 * WebSocket transport) or one you wrote to the SDK's `Transport` interface.
 *
 * @since 0.2.0
 * @category models
 */
export interface TransportServer {
  /**
   * Makes a new, unconnected transport: once for the first connection, and again each time a
   * lost connection is made again (`reconnect`). The toolbox's Client connects it, and closes
   * it when the Scope closes.
   */
  readonly open: () => Transport | Promise<Transport>
  /** How long opening, connecting and initializing may take. Default 30 000. */
  readonly connectTimeoutMillis?: number | undefined
  /**
   * Whether a call that finds the connection closed opens a new one first (`true`: the default
   * policy; an object: its bounds). Off by default: the toolbox cannot know whether your
   * transport can be opened again. A call the server may have seen is never sent again.
   */
  readonly reconnect?: boolean | Reconnect | undefined
}

/**
 * Bridges the tools of a server reached over a transport you bring, with everything the other
 * constructors do on top of it: the listing and its bounds, calls and their time limits,
 * reconnection (`reconnect`), spans, elicitation and roots. The size bound of `stdio` and `http`
 * (`maxMessageBytes`) is the transport's to keep, as it reads the messages. A transport that
 * cannot be opened or connected is a typed error: Transport, or Timeout after
 * `connectTimeoutMillis`.
 *
 * @example
 * ```ts
 * import { InMemoryTransport } from "@modelcontextprotocol/client"
 * import { McpServer } from "@modelcontextprotocol/server"
 * import { McpToolbox } from "@svir/mcp-bridge"
 *
 * const server = new McpServer({ name: "local", version: "1.0.0" })
 * const toolbox = McpToolbox.fromTransport({
 *   open: async () => {
 *     const [client, own] = InMemoryTransport.createLinkedPair()
 *     await server.connect(own)
 *     return client
 *   },
 * })
 * // Effect<McpToolbox, SvirError, Scope>
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromTransport = (
  server: TransportServer,
  options: Options = {},
): Effect.Effect<McpToolbox, SvirError.SvirError, Scope.Scope> =>
  Effect.gen(function* () {
    const redaction = Redaction.none
    const features = yield* clientFeatures(options, redaction)
    const reconnect = yield* reconnectPolicy(server.reconnect, false)
    const connect = connectTransport({
      open: server.open,
      connectTimeoutMillis: server.connectTimeoutMillis ?? defaultConnectTimeoutMillis,
      redaction,
      newClient: () => makeClient(features),
      verdict: makeEraVerdict(),
    })
    return yield* bridge(connect, reconnect, options, redaction)
  })

/** Bridges a server over HTTP, connected to by `connectWith`. */
const remote = (
  server: RemoteServer,
  options: Options,
  connectWith: (settings: RemoteSettings) => Connector,
): Effect.Effect<McpToolbox, SvirError.SvirError, Scope.Scope> =>
  Effect.gen(function* () {
    const url = yield* Effect.try({
      try: () => new URL(server.url),
      catch: () => SvirError.make("Config", `${JSON.stringify(String(server.url))} is not a URL`),
    })
    const headers = server.headers ?? {}
    // Grows with the tokens the provider hands out (D17).
    const redaction = makeGrowingRedaction(headerSecrets(headers))
    const features = yield* clientFeatures(options, redaction)
    const reconnect = yield* reconnectPolicy(server.reconnect, true)
    const connect = connectWith({
      url,
      fetch: serverFetch(url, headers, server.maxMessageBytes ?? defaultMaxMessageBytes, redaction),
      authProvider:
        server.authProvider === undefined
          ? undefined
          : watchedProvider(server.authProvider, redaction),
      connectTimeoutMillis: server.connectTimeoutMillis ?? defaultConnectTimeoutMillis,
      redaction,
      newClient: () => makeClient(features),
      verdict: makeEraVerdict(),
    })
    return yield* bridge(connect, reconnect, options, redaction)
  })

/** The policy of a `restart` or `reconnect` option; a Config error for bounds that make none. */
const reconnectPolicy = (
  option: boolean | Reconnect | undefined,
  byDefault: boolean,
): Effect.Effect<ReconnectPolicy | undefined, SvirError.SvirError> => {
  if (option === false || (option === undefined && !byDefault)) return Effect.undefined
  const given = typeof option === "object" ? option : {}
  const attempts = given.attempts ?? defaultReconnect.attempts
  const backoffMillis = given.backoffMillis ?? defaultReconnect.backoffMillis
  return Number.isInteger(attempts) && attempts >= 1 && backoffMillis >= 0
    ? Effect.succeed({ attempts, backoffMillis })
    : Effect.fail(
        SvirError.make(
          "Config",
          `a reconnect policy needs at least 1 attempt and a backoff of 0 ms or more, not ${attempts} and ${backoffMillis}`,
        ),
      )
}

/**
 * Connects with `connect`, lists the tools and answers calls on the connection of the moment,
 * which `reconnect` makes again when it is lost (D12-D16). `redaction` applies to every error,
 * failed result and log line of the toolbox.
 */
const bridge = (
  connect: Connector,
  reconnect: ReconnectPolicy | undefined,
  options: Options,
  redaction: Redaction.Redaction,
): Effect.Effect<McpToolbox, SvirError.SvirError, Scope.Scope> =>
  Effect.gen(function* () {
    const prefix =
      options.prefix === undefined ? undefined : yield* ToolName.validatePrefix(options.prefix)
    // Compiles every listing's output schemas, whatever Client is bridged (D42), each at its
    // tool's first call (D50).
    const validator = makeSchemaValidator()
    // Made from the input schemas per listing, each at its tool's first call (D36, D50).
    const leftOutNulls = new WeakMap<OfferedTools, LeftOutNullsByTool>()
    // Each listing asks the connection of its moment.
    const listing = Effect.suspend(() =>
      listTools(session.current().client, {
        overStdio: session.current().network === "pipe",
        prefix,
        redaction,
        validator,
        maxPages: options.maxPages ?? 100,
        maxTools: options.maxTools ?? 1_000,
        timeoutMillis: options.listTimeoutMillis ?? defaultListTimeoutMillis,
      }),
    ).pipe(
      Effect.map((offered) => {
        leftOutNulls.set(offered, leftOutNullsByTool(offered.tools))
        return offered
      }),
    )
    const cache = makeToolCache(
      listing,
      () => session.current().state.closed() !== undefined,
      redaction,
    )
    const session: Session = yield* makeSession(connect, {
      reconnect,
      redaction,
      onConnection: (connection) =>
        hookClient(connection.client, {
          onError: makeProbe(connection, reconnect !== undefined),
          onClose: connection.state.markClosed,
          onToolListChanged: cache.listChanged,
        }),
      // A restarted server may offer other tools (D16).
      afterReconnect: cache.refresh.pipe(
        Effect.catch((error) =>
          Effect.logWarning(
            redaction.text(
              `MCP tools could not be listed on the new connection; keeping the earlier list: ${error.message}`,
            ),
          ),
        ),
        Effect.asVoid,
      ),
    })
    yield* cache.refresh

    const call = makeAnswerer(cache, session, leftOutNulls, {
      timeoutMillis: options.timeoutMillis ?? defaultTimeoutMillis,
      maxTotalMillis: options.maxTotalMillis ?? defaultMaxTotalMillis,
      content: { media: options.media, maxChars: options.maxResultChars },
      redaction,
      onProgress: withProgressListener(options.onProgress),
      propagateTraceContext: options.propagateTraceContext ?? false,
    })
    const client = () => session.current().client
    return {
      // What is offered honours the listing's ttlMs; a call maps its name with the list as it is
      // (D53).
      tools: Effect.map(cache.fresh, (offered) => offered.tools),
      call,
      serverNames: Effect.map(cache.fresh, (offered) => offered.serverNames),
      skipped: Effect.map(cache.fresh, (offered) => offered.skipped),
      refresh: Effect.flatMap(session.live, () =>
        Effect.map(cache.refresh, (offered) => offered.tools),
      ),
      // The process running now: none between an exit and the restart (D16).
      get pid() {
        const connection = session.current()
        return connection.state.closed() === undefined ? connection.pid : undefined
      },
      get protocolVersion() {
        const connection = session.current()
        return connection.state.closed() === undefined
          ? connection.client.getNegotiatedProtocolVersion()
          : undefined
      },
      resources: McpResources.make(client, redaction, {
        timeoutMillis: options.listTimeoutMillis,
      }),
      prompts: McpPrompts.make(client, redaction, {
        timeoutMillis: options.listTimeoutMillis,
      }),
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
 * Answers calls on the session's connection. A name not offered, arguments that are not a JSON
 * object and a connection already closed give a failed result without a word to the server. A
 * `null` the tool's schema can only read as "left out" is not sent (D36). A
 * closed connection is made again first when the session reconnects, and a call that did not
 * reach the server is sent once more on a new one (D12, D13). The text of every failed result may
 * quote what the server or the model echoed of a secret: it is redacted, here and in the sender,
 * on the failure paths only (D3, D8).
 */
const makeAnswerer = (
  cache: ToolCache,
  session: Session,
  leftOutNulls: WeakMap<OfferedTools, LeftOutNullsByTool>,
  settings: Omit<CallSettings, "resend">,
): ((call: ToolCall.ToolCall) => Effect.Effect<ToolResult.ToolResult>) => {
  const { redaction } = settings
  const reconnectThenAnswer = (
    call: ToolCall.ToolCall,
    stale: Connection,
    why: string,
  ): Effect.Effect<ToolResult.ToolResult> =>
    session.replace(stale, why).pipe(
      Effect.matchEffect({
        onFailure: (error) =>
          failed(
            call,
            `tool ${call.name} cannot be called: ${error.message}`,
            "server_refused",
            redaction,
          ),
        // Once only: what fails on the new connection fails the call.
        onSuccess: () => answer(call, false),
      }),
    )
  const send: CallSender = makeCallSender({
    ...settings,
    resend: session.reconnects ? reconnectThenAnswer : undefined,
  })
  const answer = (
    call: ToolCall.ToolCall,
    mayReconnect: boolean,
  ): Effect.Effect<ToolResult.ToolResult> =>
    Effect.flatMap(cache.current, (offered) => {
      const serverName = offered.serverNames.get(call.name)
      if (serverName === undefined) {
        const names = offered.tools.map((tool) => tool.name)
        const unknown = ToolResult.unknownTool(call.id, call.name, names).content
        return failed(call, unknown, "unknown_tool", redaction)
      }
      const args = ToolCall.readJson(call.arguments)
      if (Result.isFailure(args)) {
        return failed(call, args.failure.message, "invalid_arguments", redaction)
      }
      if (!Json.isObject(args.success)) {
        const message = `the arguments of ${call.name} must be a JSON object`
        return failed(call, message, "invalid_arguments", redaction)
      }
      const removeNulls = leftOutNulls.get(offered)?.get(call.name)
      const sent = removeNulls === undefined ? args.success : removeNulls(args.success)
      const connection = session.current()
      const closed = connection.state.closed()
      if (closed === undefined) {
        const tool = {
          check: offered.outputChecks.get(serverName),
          task: offered.taskTools.has(serverName),
          headers: offered.paramHeaders.get(serverName),
        }
        return send(connection, call, serverName, sent, tool, mayReconnect)
      }
      if (!mayReconnect || !session.reconnects) {
        return failed(
          call,
          `tool ${call.name} cannot be called: ${closed}`,
          "server_refused",
          redaction,
        )
      }
      return reconnectThenAnswer(call, connection, closed)
    })
  // D19: each call is an `execute_tool` span, around the request's `tools/call` span.
  return (call) => GenAi.executeTool(call, answer(call, true))
}

/** A failed result whose text may quote a secret the server or the model echoed (D3). */
const failed = (
  call: ToolCall.ToolCall,
  text: string,
  failure: ToolResult.Failure,
  redaction: Redaction.Redaction,
) => Effect.succeed(ToolResult.error(call.id, redaction.text(text), failure))
