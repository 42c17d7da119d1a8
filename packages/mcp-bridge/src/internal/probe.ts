import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { ConnectionState } from "./connection.js"
import { describe, isTimeout } from "./failure.js"

const probeTimeoutMillis = 3_000

/**
 * Over HTTP a server that dies mid-call only breaks a response stream, and the SDK keeps waiting
 * for the answer. A ping that cannot be delivered tells a dead server from a passing hiccup, and
 * fails the calls in flight; a ping that is merely slow proves nothing (a busy server may answer
 * one request at a time), and the call's own timeout still applies.
 *
 * The function given is called from the SDK's `onerror`: it pings only while calls are in flight,
 * once at a time (`probing` is written from the ping's callbacks, hence a plain field).
 */
export const makeProbe = (client: Client, connection: ConnectionState): (() => void) => {
  let probing = false
  return () => {
    if (probing || connection.closed() !== undefined) return
    if (connection.inFlight() === 0) return
    probing = true
    client.ping({ timeout: probeTimeoutMillis }).then(
      () => {
        probing = false
      },
      (error: unknown) => {
        probing = false
        if (!isTimeout(error)) {
          connection.markLost(`the server can no longer be reached (${describe(error)})`)
        }
      },
    )
  }
}
