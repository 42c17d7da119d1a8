import { assert, describe, it } from "@effect/vitest"
import { Redaction, SvirError } from "@svir/core"
import { Effect, Fiber, Logger, Random, References } from "effect"
import { TestClock } from "effect/testing"
import * as RetryPolicy from "../../src/internal/retryPolicy.js"
import { recordingSleeps } from "../hostile/sleeps.js"

const secret = "sk-retry-secret-77"
const redaction = Redaction.make([secret])
const policy: RetryPolicy.Policy = { times: 6, baseDelayMillis: 100, maxDelayMillis: 1_000 }
const retrying = RetryPolicy.retrying(policy, redaction)

/**
 * Runs an attempt that fails with `errors` in turn (then succeeds) under the policy, and gives the
 * waits it slept, the attempts made and the debug lines logged.
 */
const run = (errors: ReadonlyArray<SvirError.SvirError>, seed = "svir") =>
  Effect.gen(function* () {
    const sleeps = yield* recordingSleeps
    const lines: Array<string> = []
    let attempts = 0
    const attempt = Effect.suspend(() => {
      const error = errors[attempts++]
      return error === undefined ? Effect.succeed("done") : Effect.fail(error)
    })
    const fiber = yield* Effect.forkChild(
      retrying(attempt).pipe(
        sleeps.use,
        Random.withSeed(seed),
        Effect.provide(Logger.layer([Logger.make(({ message }) => lines.push(String(message)))])),
        Effect.provideService(References.MinimumLogLevel, "All"),
        Effect.exit,
      ),
    )
    const retryable = errors.findIndex((error) => !error.isRetryable)
    const retries = Math.min(policy.times, retryable === -1 ? errors.length : retryable)
    const waits: Array<number> = []
    while (waits.length < retries) {
      const wait = yield* sleeps.nextSleepUnder(Number.POSITIVE_INFINITY)
      waits.push(wait)
      yield* TestClock.adjust(wait)
    }
    const exit = yield* Fiber.join(fiber)
    return { exit, waits, attempts, lines }
  })

const transport = SvirError.make("Transport", "could not reach the server")

describe("the retry policy", () => {
  it.effect("waits baseDelay doubled at each retry, capped at maxDelay, jittered below it", () =>
    Effect.gen(function* () {
      for (const seed of ["a", "b", "c", "d"]) {
        const { exit, waits, attempts } = yield* run(Array(6).fill(transport), seed)
        assert.strictEqual(exit._tag, "Success")
        assert.strictEqual(attempts, 7)
        const caps = [100, 200, 400, 800, 1_000, 1_000]
        for (const [i, wait] of waits.entries()) {
          assert.isTrue(wait >= caps[i]! / 2 && wait <= caps[i]!, `wait ${i + 1} was ${wait} ms`)
        }
      }
    }),
  )

  it.effect("retries at most `times` times, then fails with the last error", () =>
    Effect.gen(function* () {
      const { exit, attempts } = yield* run(Array(10).fill(transport))
      assert.strictEqual(exit._tag, "Failure")
      assert.strictEqual(attempts, 7)
    }),
  )

  it.effect("waits what Retry-After asks instead of the backoff, even past maxDelay", () =>
    Effect.gen(function* () {
      const limited = SvirError.make("RateLimited", "slow down", { retryAfterMillis: 3_000 })
      const now = SvirError.make("RateLimited", "slow down", { retryAfterMillis: 0 })
      const { waits } = yield* run([limited, now, transport])
      assert.strictEqual(waits[0], 3_000)
      assert.strictEqual(waits[1], 0)
      assert.isTrue(waits[2]! >= 200 && waits[2]! <= 400, `the backoff came back: ${waits[2]}`)
    }),
  )

  it.effect("does not retry an error whose kind is not retryable", () =>
    Effect.gen(function* () {
      const refused = SvirError.make("Unsupported", "the server refused the request", {
        status: 400,
      })
      const { exit, attempts, lines } = yield* run([refused])
      assert.strictEqual(exit._tag, "Failure")
      assert.strictEqual(attempts, 1)
      assert.deepStrictEqual(lines, [])
    }),
  )

  it.effect("logs each retry at debug level, the error's message redacted", () =>
    Effect.gen(function* () {
      const echoed = SvirError.make("Transport", `could not reach the server with ${secret}`)
      const { lines } = yield* run([echoed, transport])
      assert.strictEqual(lines.length, 2)
      assert.match(lines[0]!, /^svir client: Transport \(.*\); retry 1 of 6 in \d+ ms$/)
      assert.notInclude(lines[0]!, secret)
      assert.include(lines[0]!, Redaction.placeholder)
      assert.match(lines[1]!, /retry 2 of 6 in \d+ ms$/)
    }),
  )
})
