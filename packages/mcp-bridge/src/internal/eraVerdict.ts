import type { Client, PriorDiscovery, Transport } from "@modelcontextprotocol/client"

/**
 * The protocol era a toolbox's server spoke at its last connection, given to the SDK when the
 * toolbox connects again, so that a reconnection makes no new `server/discover` probe (D48): a
 * stdio server silent on it would cost 3 s at every restart.
 */
export interface EraVerdict {
  /** The verdict of the last connection made; none before the first or after a failed one. */
  readonly prior: () => PriorDiscovery | undefined
  /** Keeps the era that `client`, just connected, speaks. */
  readonly keep: (client: Client) => void
  /** Forgets the verdict: the next connection negotiates again. */
  readonly forget: () => void
}

/** An empty verdict, one per toolbox: the first connection negotiates. */
export const makeEraVerdict = (): EraVerdict => {
  let prior: PriorDiscovery | undefined
  return {
    prior: () => prior,
    keep: (client) => {
      const discover = client.getDiscoverResult()
      prior =
        client.getProtocolEra() === "modern" && discover !== undefined
          ? { kind: "modern", discover }
          : { kind: "legacy" }
    },
    forget: () => {
      prior = undefined
    },
  }
}

/**
 * Connects `client` over `transport` with the verdict of the toolbox's last connection, and
 * keeps the era it then speaks. A connect that fails forgets the verdict, so that a server
 * upgraded or downgraded between two connections is negotiated with again by the next try.
 * A modern verdict makes no round trip in the SDK, which neither checks it nor opens the
 * `subscriptions/listen` stream then: one request checks it, the stream where the server
 * announces list changes, `server/discover` otherwise. Both fail on a server that no longer
 * speaks 2026-07-28, where the SDK's answer to a stale verdict would be every later request failing.
 * The SDK spawns a stdio server before its first wait, and so before this function's.
 */
export const connectWithVerdict = async (
  verdict: EraVerdict,
  client: Client,
  transport: Transport,
  options: { readonly signal: AbortSignal; readonly timeout: number },
): Promise<void> => {
  const prior = verdict.prior()
  try {
    await client.connect(transport, prior === undefined ? options : { ...options, prior })
    if (prior?.kind === "modern") {
      if (client.getServerCapabilities()?.tools?.listChanged === true) {
        await client.listen({ toolsListChanged: true }, options)
      } else {
        await client.discover(options)
      }
    }
  } catch (error) {
    verdict.forget()
    throw error
  }
  verdict.keep(client)
}
