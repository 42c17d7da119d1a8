/**
 * Whether the server can still answer calls.
 *
 * The SDK reports a closed transport and a failed ping through synchronous callbacks, outside any
 * effect: `markClosed` and `markLost` are called from there and tell the calls waiting at once.
 * Each call waits through a plain listener rather than a fiber of its own (DECISIONS.md D8).
 */
export interface ConnectionState {
  /** Why calls can no longer be answered, once the transport has closed. */
  readonly closed: () => string | undefined
  /** The reason of the close, or the one a close would have now. */
  readonly closeReason: () => string
  /**
   * Calls `listener` with the reason, once, when the connection as it is now is lost: a call
   * waits on the connection as it is when the call is sent, and calls sent after a loss wait on a
   * fresh one. Gives the function that stops waiting, called when the call has its answer.
   */
  readonly whenLost: (listener: (reason: string) => void) => () => void
  /** Fails every call in flight with `reason`; later calls may still be answered. */
  readonly markLost: (reason: string) => void
  /**
   * The transport closed, or the connection was given up for a new one (`reason`, which a later
   * close does not change): every call in flight fails, and no call is sent on it again.
   */
  readonly markClosed: (reason?: string) => void
  /** The count of calls waiting for an answer. */
  readonly inFlight: () => number
}

/** A connection that is open; `closeReason` says why calls fail once it closes. */
export const makeConnectionState = (closeReason: () => string): ConnectionState => {
  let closed: string | undefined
  let waiting = new Set<(reason: string) => void>()
  const markLost = (reason: string) => {
    // Replaced first: a call sent while the listeners run waits on the connection after the loss.
    const lost = waiting
    waiting = new Set()
    for (const listener of lost) listener(reason)
  }
  return {
    closed: () => closed,
    closeReason: () => closed ?? closeReason(),
    whenLost: (listener) => {
      const at = waiting
      at.add(listener)
      return () => {
        at.delete(listener)
      }
    },
    markLost,
    markClosed: (reason) => {
      if (closed !== undefined) return
      closed = reason ?? closeReason()
      markLost(closed)
    },
    inFlight: () => waiting.size,
  }
}
