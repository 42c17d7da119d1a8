import { SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** The total time limit of a call, retries included, for a whole answer and for a stream alike. */
export interface TotalTimeout {
  readonly effect: <A, R>(
    call: Effect.Effect<A, SvirError.SvirError, R>,
  ) => Effect.Effect<A, SvirError.SvirError, R>
  readonly stream: <A, R>(
    events: Stream.Stream<A, SvirError.SvirError, R>,
  ) => Stream.Stream<A, SvirError.SvirError, R>
}

const unlimited: TotalTimeout = { effect: (call) => call, stream: (events) => events }

/**
 * The limit of `millis`, or none when `undefined`. Running out interrupts the call, which closes
 * its scope and so aborts its request, and fails it with a Timeout of the `total` limit.
 */
export const make = (millis: number | undefined): TotalTimeout => {
  if (millis === undefined) return unlimited
  const deadline = Effect.sleep(millis).pipe(
    Effect.andThen(
      Effect.fail(
        SvirError.make(
          "Timeout",
          `the call did not finish within ${millis / 1000}s (total timeout)`,
          { limit: "total", limitMillis: millis },
        ),
      ),
    ),
  )
  return {
    effect: (call) => Effect.raceFirst(call, deadline),
    stream: (events) => Stream.interruptWhen(events, deadline),
  }
}
