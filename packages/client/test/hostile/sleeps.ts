import { Clock, Duration, Effect, Queue } from "effect"

/**
 * A clock over the current one (the TestClock, in `it.effect`) that tells each sleep it is asked
 * for, in order: a test waits for the client to be sleeping, with the length it chose, instead of
 * guessing how long the client needs to get there.
 */
export const recordingSleeps = Effect.gen(function* () {
  const clock = yield* Clock.Clock
  const asked = yield* Queue.unbounded<number>()
  const woke = yield* Queue.unbounded<number>()
  const recording: Clock.Clock = {
    ...clock,
    sleep: (duration) =>
      Queue.offer(asked, Duration.toMillis(duration)).pipe(
        Effect.andThen(clock.sleep(duration)),
        Effect.andThen(Queue.offer(woke, Duration.toMillis(duration))),
      ),
  }
  return {
    /** Runs an effect on this clock. */
    use: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.provideService(effect, Clock.Clock, recording),
    /**
     * The next sleep asked for that is shorter than `millis`, in milliseconds; waits for it. Longer
     * ones, the far-away time limits a test sets, are passed over.
     */
    nextSleepUnder: (millis: number): Effect.Effect<number> =>
      Effect.gen(function* () {
        let sleep = yield* Queue.take(asked)
        while (sleep >= millis) sleep = yield* Queue.take(asked)
        return sleep
      }),
    /** How many sleeps have ended. */
    ended: Queue.size(woke),
  }
})
