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

/** Runs `attempt`, and again as the {@link schedule} says while it fails. */
export const retrying = (policy: Policy, redaction: Redaction.Redaction) => {
  // A schedule is a description: made once per client, it starts afresh for every call.
  const retries = schedule(policy, redaction)
  return <A, R>(
    attempt: Effect.Effect<A, SvirError.SvirError, R>,
  ): Effect.Effect<A, SvirError.SvirError, R> =>
    policy.times === 0 ? attempt : Effect.retry(attempt, retries)
}
