import type { Redaction, SvirError } from "@svir/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"
import * as DebugLog from "./debugLog.js"
import type { Settings } from "./settings.js"

/** How often and how patiently a failed attempt is tried again. */
export type Policy = Settings["retry"]

/**
 * The waits when the server asks for none: `baseDelay` doubled at each retry, capped at
 * `maxDelay`, then jittered to between half and all of it, so that the cap holds and clients that
 * failed together do not come back together (D8).
 */
const backoff = (policy: Policy) =>
  Schedule.exponential(policy.baseDelayMillis).pipe(
    Schedule.modifyDelay(({ duration }) =>
      Effect.map(Random.next, (random) =>
        Math.round(
          Math.min(policy.maxDelayMillis, Duration.toMillis(duration)) * (0.5 + random / 2),
        ),
      ),
    ),
  )

/**
 * The retry schedule: at most `times` retries, only of errors whose kind is retryable, each after
 * the server's `Retry-After` when it gave one (already capped at `maxRetryAfter`), else after the
 * backoff (D8). Each retry is logged at debug level, redacted.
 */
const schedule = (
  policy: Policy,
  redaction: Redaction.Redaction,
): Schedule.Schedule<Duration.Duration, SvirError.SvirError> =>
  backoff(policy).pipe(
    Schedule.setInputType<SvirError.SvirError>(),
    Schedule.modifyDelay(({ input, duration }) =>
      Effect.succeed(input.retryAfterMillis ?? duration),
    ),
    Schedule.while(({ input, attempt }) => input.isRetryable && attempt <= policy.times),
    Schedule.tap(({ input, attempt, duration }) =>
      DebugLog.aboutError(
        redaction,
        input,
        (message) =>
          `svir client: ${input.reason._tag} (${message}); retry ${attempt} of ${policy.times} in ${Duration.toMillis(duration)} ms`,
      ),
    ),
  )

/**
 * Runs `attempt`, and again as the {@link schedule} says while it fails. The schedule is started
 * only by a failure it may retry (D29): `Effect.retry` starts it, its steps and their state, for
 * every call, and nearly every call succeeds at once. What the schedule decides is the same: it
 * sees the first failure first, and a failure it would not retry is given as it is.
 */
export const retrying = (policy: Policy, redaction: Redaction.Redaction) => {
  // A schedule is a description: made once per client, it starts afresh for every call.
  const retries = schedule(policy, redaction)
  /** The retries after the first attempt failed with `failure`, which the schedule sees first. */
  const after = <A, R>(
    attempt: Effect.Effect<A, SvirError.SvirError, R>,
    failure: SvirError.SvirError,
  ): Effect.Effect<A, SvirError.SvirError, R> =>
    Effect.suspend(() => {
      let first: SvirError.SvirError | undefined = failure
      return Effect.retry(
        Effect.suspend(() => {
          if (first === undefined) return attempt
          const error = first
          first = undefined
          return Effect.fail(error)
        }),
        retries,
      )
    })
  return <A, R>(
    attempt: Effect.Effect<A, SvirError.SvirError, R>,
  ): Effect.Effect<A, SvirError.SvirError, R> =>
    policy.times === 0
      ? attempt
      : Effect.catch(attempt, (error) =>
          error.isRetryable ? after(attempt, error) : Effect.fail(error),
        )
}
