import { SvirError } from "@svir/core"
import * as Effect from "effect/Effect"

/**
 * The total time limit of a call, retries included (D10). A whole answer and a list of models are
 * raced against it once; a stream starts a {@link Deadline}, races its opening against what is left
 * and has its reads watched until it ends.
 */
export interface TotalTimeout {
  readonly effect: <A, R>(
    call: Effect.Effect<A, SvirError.SvirError, R>,
  ) => Effect.Effect<A, SvirError.SvirError, R>
  /** Starts the clock of one call. */
  readonly start: Effect.Effect<Deadline>
}

/** The end of one call's total time. */
export interface Deadline {
  /** Milliseconds left, or `undefined` when there is no limit; 0 or less once it has passed. */
  readonly left: () => number | undefined
  /** The Timeout of the `total` limit. */
  readonly error: () => SvirError.SvirError
  /** Runs `effect` within what is left: running out interrupts it, and fails with the error. */
  readonly within: <A, E, R>(
    effect: Effect.Effect<A, E, R>,
  ) => Effect.Effect<A, E | SvirError.SvirError, R>
}

const noDeadline: Deadline = {
  left: () => undefined,
  error: () => SvirError.make("Timeout", "the call has no total timeout"),
  within: (effect) => effect,
}

const unlimited: TotalTimeout = { effect: (call) => call, start: Effect.succeed(noDeadline) }

/**
 * The limit of `millis`, or none when `undefined`. Running out interrupts the call, which closes
 * its scope and so aborts its request, and fails it with a Timeout of the `total` limit.
 */
export const make = (millis: number | undefined): TotalTimeout => {
  if (millis === undefined) return unlimited
  const error = () =>
    SvirError.make("Timeout", `the call did not finish within ${millis / 1000}s (total timeout)`, {
      limit: "total",
      limitMillis: millis,
    })
  const race = <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    duration: number,
  ): Effect.Effect<A, E | SvirError.SvirError, R> =>
    duration <= 0
      ? Effect.fail(error())
      : Effect.timeoutOrElse(effect, { duration, orElse: () => Effect.fail(error()) })
  return {
    effect: (call) => race(call, millis),
    start: Effect.clockWith((clock) => {
      const end = clock.currentTimeMillisUnsafe() + millis
      const left = () => end - clock.currentTimeMillisUnsafe()
      return Effect.succeed<Deadline>({
        left,
        error,
        within: (effect) => Effect.suspend(() => race(effect, left())),
      })
    }),
  }
}
