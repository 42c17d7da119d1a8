import type { Client, Transport } from "@modelcontextprotocol/client"
import type { Redaction } from "@svir/core"
import * as Effect from "effect/Effect"
import { makeConnectionState } from "./connection.js"
import { connectWithVerdict, type EraVerdict } from "./eraVerdict.js"
import { connectTookTooLong, toSvirError } from "./failure.js"
import type { Connector } from "./session.js"

/** What connecting over a transport the caller brings takes. */
export interface TransportSettings {
  /** A new, unconnected transport, for each connection. */
  readonly open: () => Transport | Promise<Transport>
  /** How long opening, connecting and initializing may take together. */
  readonly connectTimeoutMillis: number
  readonly redaction: Redaction.Redaction
  /** A new, unconnected Client for the connection. */
  readonly newClient: () => Client
  /** The era of the server's last connection, kept for the next (D48). */
  readonly verdict: EraVerdict
}

/**
 * Connects a new Client over a transport from `open` (D44). Closing the Client, when the Scope
 * closes, closes the transport. What the transport does with a request is its own, so a request
 * that failed is never taken for one that did not reach the server, and is never sent again.
 */
export const connectTransport = (settings: TransportSettings): Connector =>
  Effect.gen(function* () {
    const doing = "connecting to the MCP server over the given transport"
    const client = yield* Effect.acquireRelease(Effect.sync(settings.newClient), (client) =>
      Effect.promise(() => client.close().catch(() => undefined)),
    )
    yield* Effect.tryPromise({
      try: async (signal) => {
        const transport = await settings.open()
        await connectWithVerdict(settings.verdict, client, transport, {
          signal,
          timeout: settings.connectTimeoutMillis,
        })
      },
      catch: (error) => settings.redaction.error(toSvirError(doing, error)),
    }).pipe(
      Effect.timeoutOrElse({
        duration: settings.connectTimeoutMillis,
        orElse: () => Effect.fail(connectTookTooLong(doing, settings.connectTimeoutMillis)),
      }),
    )
    return {
      client,
      state: makeConnectionState(() => "the transport closed"),
      pid: undefined,
      network: undefined,
      unreached: () => undefined,
    }
  })
