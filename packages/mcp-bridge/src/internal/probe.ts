import { type Client, specTypeSchemas } from "@modelcontextprotocol/client"
import { isTimeout, lossReason } from "./failure.js"
import type { Connection } from "./session.js"

const probeTimeoutMillis = 3_000

/**
 * Over HTTP a server that dies mid-call only breaks a response stream, and the SDK keeps waiting
 * for the answer. A ping that cannot be delivered tells a dead server from a passing hiccup, and
 * fails the calls in flight; a ping that is merely slow proves nothing (a busy server may answer
 * one request at a time), and the call's own timeout still applies. A ping the server refused says
 * what it answered (D12): a session it no longer knows loses the calls in flight all the same.
 *
 * The function given is called from the SDK's `onerror`: it pings only while calls are in flight
 * (a ping may start the OAuth flow of a server that wants one), once at a time (`probing` is
 * written from the ping's callbacks, hence a plain field). When the toolbox connects again
 * (`closeWhenGone`), a ping that shows the connection gone (D13) also closes it: the next call then
 * connects anew before it is sent, rather than being sent to a server that is gone (D14). The
 * 2026-07-28 revision has no `ping`, and the SDK refuses to send one; a connection of that era is
 * asked `server/discover`, which every server of it answers (D51).
 */
export const makeProbe = (connection: Connection, closeWhenGone: boolean): (() => void) => {
  const { client, state } = connection
  let probing = false
  return () => {
    if (probing || state.closed() !== undefined) return
    if (state.inFlight() === 0) return
    probing = true
    stillThere(client).then(
      () => {
        probing = false
      },
      (error: unknown) => {
        probing = false
        if (isTimeout(error)) return
        const reason = lossReason(error)
        if (closeWhenGone && connection.unreached(error) !== undefined) state.markClosed(reason)
        else state.markLost(reason)
      },
    )
  }
}

/** The cheapest request the connection's era has: `ping`, or `server/discover` in 2026-07-28. */
const stillThere = (client: Client): Promise<unknown> =>
  client.getProtocolEra() === "modern"
    ? client.request({ method: "server/discover" }, specTypeSchemas.DiscoverResult, {
        timeout: probeTimeoutMillis,
      })
    : client.ping({ timeout: probeTimeoutMillis })
