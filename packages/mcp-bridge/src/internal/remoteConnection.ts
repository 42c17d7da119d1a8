import type {
  Client,
  FetchLike,
  OAuthClientProvider,
  Transport,
} from "@modelcontextprotocol/client"
import {
  SdkHttpError,
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client"
import { type Redaction, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { boundedFetch } from "./boundedFetch.js"
import { makeConnectionState } from "./connection.js"
import { connectWithVerdict, type EraVerdict } from "./eraVerdict.js"
import {
  connectTookTooLong,
  httpStatusOf,
  sessionGoneReason,
  toSvirError,
  unreachableReason,
} from "./failure.js"
import { redactedFetch } from "./redactedFetch.js"
import { dpopSecrets, type GrowingRedaction } from "./remoteSecrets.js"
import type { Connection, Connector } from "./session.js"

const closeGraceMillis = 3_000

/** What connecting to a server over HTTP takes. */
export interface RemoteSettings {
  readonly url: URL
  /** The fetch of every request, the OAuth flow's included: see {@link serverFetch}. */
  readonly fetch: FetchLike
  readonly authProvider: OAuthClientProvider | undefined
  /** How long connecting and initializing may take, per transport tried. */
  readonly connectTimeoutMillis: number
  /** Applied to every error of a connection attempt. */
  readonly redaction: Redaction.Redaction
  /** A new, unconnected Client for the connection. */
  readonly newClient: () => Client
  /** The era of the server's last connection, kept for the next (D48). */
  readonly verdict: EraVerdict
}

/**
 * The fetch of one server's transport: answers bounded (D2), refusals redacted before the SDK
 * reads them (D49), and the configured headers added to the requests that go to the server's own
 * origin, and to no other (D17). Given as the SDK's `requestInit`, they would also go to the
 * authorization server of the OAuth flow, whose requests the SDK makes with the same init.
 */
export const serverFetch = (
  url: URL,
  headers: Readonly<Record<string, string>>,
  maxBytes: number,
  redaction: GrowingRedaction,
): FetchLike => {
  const redacted = redactedFetch(redaction, boundedFetch(maxBytes))
  // The SDK signs a DPoP proof into a request above this fetch; it is known before it is sent (D52).
  const bounded: FetchLike = (target, init) => {
    redaction.addRecent(dpopSecrets(new Headers(init?.headers).get("dpop")))
    return redacted(target, init)
  }
  const configured = Object.entries(headers)
  if (configured.length === 0) return bounded
  return (target, init) => {
    if (new URL(target).origin !== url.origin) return bounded(target, init)
    const merged = new Headers(init?.headers)
    for (const [name, value] of configured) merged.set(name, value)
    return bounded(target, { ...init, headers: merged })
  }
}

/**
 * Connects over Streamable HTTP. When the server answers the `initialize` POST with 400, 404 or
 * 405 and `fallbackToSse` is set, tries the legacy SSE transport at the same URL, as the spec's
 * section on backwards compatibility says (D18); when both fail, the error is Streamable HTTP's,
 * and says what SSE gave.
 */
export const connectHttp = (settings: RemoteSettings, fallbackToSse: boolean): Connector =>
  openStreamable(settings).pipe(
    Effect.catch((failure) =>
      fallbackToSse && isLegacyHint(failure.cause)
        ? Effect.catch(connectSse(settings), (legacy) =>
            Effect.fail(
              new SvirError.SvirError({
                reason: failure.reason,
                message: `${failure.message}; ${legacy.message}`,
                cause: failure.cause,
              }),
            ),
          )
        : Effect.fail(failure),
    ),
  )

/** The statuses of a server that has no Streamable HTTP endpoint at the URL. */
const isLegacyHint = (error: unknown): boolean =>
  error instanceof SdkHttpError && [400, 404, 405].includes(error.status)

const openStreamable = (settings: RemoteSettings): Connector =>
  Effect.gen(function* () {
    const { client, transport } = yield* Effect.acquireRelease(
      Effect.sync(() => ({
        client: settings.newClient(),
        transport: new StreamableHTTPClientTransport(settings.url, transportOptions(settings)),
      })),
      ({ client, transport }, exit) =>
        // A session given up for a new one is gone already, or its server cannot be reached.
        Exit.isSuccess(exit)
          ? Effect.tryPromise(() => transport.terminateSession()).pipe(
              Effect.timeout(closeGraceMillis),
              Effect.ignore,
              Effect.andThen(closeClient(client)),
            )
          : closeClient(client),
    )
    yield* connectClient(
      client,
      transport,
      `connecting to the MCP server at ${settings.url.href}`,
      settings,
    )
    return connection(client, "the connection to the server closed", (error) => {
      // A 404 means the session is gone only for a request that carried one (D12).
      const status = transport.sessionId === undefined ? undefined : httpStatusOf(error)
      return sessionGoneReason(status) ?? unreachableReason(error)
    })
  })

/**
 * Connects over the legacy SSE transport (protocol revision 2024-11-05): a GET event stream
 * that first names the URL to POST to. The session lives as long as that stream: when it breaks,
 * the connection is closed, where the SDK's EventSource would open a new stream, and so a new
 * session that was never initialized, and POST to it (D18).
 */
export const connectSse = (settings: RemoteSettings): Connector =>
  Effect.gen(function* () {
    let connected = false
    const { client, transport } = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const client = settings.newClient()
        const transport = new SSEClientTransport(settings.url, transportOptions(settings))
        // Set before connecting: the SDK's Protocol calls it before its own handler.
        transport.onerror = (error) => {
          if (connected && error instanceof SseError) void closeQuietly(client)
        }
        return { client, transport }
      }),
      ({ client }) => closeClient(client),
    )
    // The SDK bounds initializing only; waiting for the stream's first event is bounded here.
    const doing = `connecting to the MCP server at ${settings.url.href} over the legacy SSE transport`
    yield* connectClient(client, transport, doing, settings).pipe(
      Effect.timeoutOrElse({
        duration: settings.connectTimeoutMillis,
        orElse: () => Effect.fail(connectTookTooLong(doing, settings.connectTimeoutMillis)),
      }),
    )
    connected = true
    return connection(client, "the server's event stream ended", (error) => {
      // A legacy session always has an id, in the URL it POSTs to.
      return sessionGoneReason(httpStatusOf(error)) ?? unreachableReason(error)
    })
  })

/** No `requestInit`: the headers are added by the fetch, for the server's origin only (D17). */
const transportOptions = (settings: RemoteSettings) => ({
  fetch: settings.fetch,
  ...(settings.authProvider === undefined ? {} : { authProvider: settings.authProvider }),
})

const connection = (
  client: Client,
  closeReason: string,
  unreached: Connection["unreached"],
): Connection => ({
  client,
  state: makeConnectionState(() => closeReason),
  pid: undefined,
  network: "tcp",
  unreached,
})

const connectClient = (
  client: Client,
  transport: Transport,
  doing: string,
  settings: RemoteSettings,
): Effect.Effect<void, SvirError.SvirError> =>
  Effect.tryPromise({
    try: (signal) =>
      connectWithVerdict(settings.verdict, client, transport, {
        signal,
        timeout: settings.connectTimeoutMillis,
      }),
    catch: (error) => settings.redaction.error(toSvirError(doing, error)),
  })

const closeQuietly = (client: Client): Promise<void> => client.close().catch(() => undefined)

const closeClient = (client: Client): Effect.Effect<void> =>
  Effect.promise(() => closeQuietly(client))
