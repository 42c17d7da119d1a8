import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"

/**
 * The time limit of the call under way, as the code inside the call sees it: `pause` stops it
 * while someone is asked (an approval, a confirmation, a form), `restart` gives the call its whole
 * limit again (it reported progress). Outside any limited call both do nothing.
 */
export interface CallTime {
  readonly pause: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly restart: () => void
}

const unlimited: CallTime = { pause: (effect) => effect, restart: () => {} }

/** The {@link CallTime} of the call the current fiber works for. */
export const CurrentCallTime = Context.Reference<CallTime>("@svir/core/Toolbox/CallTime", {
  defaultValue: () => unlimited,
})

/**
 * `answer` within `limit` of its own time, `None` when that ran out first (and `answer` is
 * interrupted). The time counted leaves out the pauses of its {@link CallTime} and starts again at
 * each `restart`; a pause or restart inside is passed on to the limit of an enclosing call too.
 */
export const within = <A, R>(
  answer: Effect.Effect<A, never, R>,
  limit: Duration.Duration,
): Effect.Effect<Option.Option<A>, never, R> =>
  Effect.gen(function* () {
    const clock = yield* Clock.Clock
    const outer = yield* CurrentCallTime
    const now = () => clock.currentTimeMillisUnsafe()
    const limitMillis = Duration.toMillis(limit)
    // Milliseconds counted before `since`; `since` is when counting last resumed.
    let counted = 0
    let since = now()
    let pauses = 0
    let resumed = Deferred.makeUnsafe<void>()
    const time: CallTime = {
      pause: (effect) =>
        outer.pause(
          Effect.acquireUseRelease(
            Effect.sync(() => {
              if (pauses++ > 0) return
              counted += now() - since
              resumed = Deferred.makeUnsafe<void>()
            }),
            () => effect,
            () =>
              Effect.sync(() => {
                if (--pauses > 0) return
                since = now()
                Deferred.doneUnsafe(resumed, Exit.void)
              }),
          ),
        ),
      restart: () => {
        outer.restart()
        counted = 0
        since = now()
      },
    }
    // Wakes when the limit would be reached, and sleeps again for what a pause or restart added.
    const timer = Effect.gen(function* () {
      while (true) {
        if (pauses > 0) {
          yield* Deferred.await(resumed)
          continue
        }
        const left = limitMillis - counted - (now() - since)
        if (left <= 0) return
        yield* Effect.sleep(Duration.millis(left))
      }
    })
    return yield* Effect.raceFirst(
      Effect.map(Effect.provideService(answer, CurrentCallTime, time), Option.some),
      Effect.as(timer, Option.none<A>()),
    )
  })
