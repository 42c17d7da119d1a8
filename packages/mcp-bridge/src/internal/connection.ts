import * as Deferred from "effect/Deferred"
import type * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"

/**
 * Whether the server can still answer calls.
 *
 * The SDK reports a closed transport and a failed ping through synchronous callbacks, outside any
 * effect: `markClosed` and `markLost` are called from there, so the reason of a close is a plain
 * field and a loss completes a Deferred with `Deferred.doneUnsafe`. The count of calls in flight
 * is written by the calls, which are effects, and read by the probe's callback.
 */
export interface ConnectionState {
  /** Why calls can no longer be answered, once the transport has closed. */
  readonly closed: () => string | undefined
  /** The reason of the close, or the one a close would have now. */
  readonly closeReason: () => string
  /**
   * Completes with the reason when the connection as it is now is lost: a call awaits the one
   * taken when it was sent, and calls sent after a loss await a fresh one.
   */
  readonly nextLoss: () => Effect.Effect<string>
  /** Fails every call in flight with `reason`; later calls may still be answered. */
  readonly markLost: (reason: string) => void
  /** The transport closed: every call in flight fails, and no call is sent again. */
  readonly markClosed: () => void
  /** The count of calls waiting for an answer. */
  readonly inFlight: Ref.Ref<number>
}

/** A connection that is open; `closeReason` says why calls fail once it closes. */
export const makeConnectionState = (closeReason: () => string): ConnectionState => {
  let closed: string | undefined
  let loss = Deferred.makeUnsafe<string>()
  const markLost = (reason: string) => {
    const lost = loss
    loss = Deferred.makeUnsafe<string>()
    Deferred.doneUnsafe(lost, Exit.succeed(reason))
  }
  return {
    closed: () => closed,
    closeReason: () => closed ?? closeReason(),
    nextLoss: () => Deferred.await(loss),
    markLost,
    markClosed: () => {
      closed = closeReason()
      markLost(closed)
    },
    inFlight: Ref.makeUnsafe(0),
  }
}
