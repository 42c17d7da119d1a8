import { assert, describe, it } from "@effect/vitest"
import { Request } from "@svir/core"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { failure } from "../helpers.js"
import { clientOf } from "./client.js"
import * as Hostile from "./HostileServer.js"
import { recordingSleeps } from "./sleeps.js"

const hello = Request.make("hostile").pipe(Request.user("Hi"))

const retries = 3
const baseDelayMillis = 100
const capMillis = 10_000
/** The time limits, all far away: a sleep this long is a time limit's, not a retry's. */
const day = 86_400_000

/** What the client should wait for a header: the cap, a number, or its own backoff. */
type Expected = "cap" | "backoff" | number

const hostile: ReadonlyArray<readonly [Record<string, string>, Expected]> = [
  [{ "retry-after": "-5" }, "backoff"],
  [{ "retry-after": "-0" }, "backoff"],
  [{ "retry-after": "garbage" }, "backoff"],
  [{ "retry-after": "" }, "backoff"],
  [{ "retry-after": "1e400" }, "backoff"],
  [{ "retry-after": "Infinity" }, "backoff"],
  [{ "retry-after": "NaN" }, "backoff"],
  [{ "retry-after": "2, 3" }, "backoff"],
  [{ "retry-after": "0x10" }, "backoff"],
  [{ "retry-after": "Thu, 01 Jan 1970 00:00:00 GMT" }, "backoff"],
  [{ "retry-after-ms": "-1" }, "backoff"],
  [{ "retry-after-ms": "1e9" }, "backoff"],
  [{ "retry-after": "99999999999999999999" }, "cap"],
  [{ "retry-after": "3600" }, "cap"],
  [{ "retry-after": "Fri, 31 Dec 9999 23:59:59 GMT" }, "cap"],
  [{ "retry-after-ms": "86400000000" }, "cap"],
  [{ "retry-after": "0" }, 0],
  [{ "retry-after": "1.5" }, 1_500],
]

/** Whether `wait` is what the client should choose before retry number `attempt` (from 0). */
const fits = (wait: number, expected: Expected, attempt: number): boolean => {
  if (expected === "cap") return wait === capMillis
  if (typeof expected === "number") return wait === expected
  const backoff = baseDelayMillis * 2 ** attempt
  return wait >= backoff / 2 && wait <= backoff
}

describe("a hostile Retry-After", () => {
  for (const [status, [headers, expected]] of hostile.map(
    (entry, i) => [i % 2 ? 503 : 429, entry] as const,
  )) {
    it.effect(
      `${status} with ${JSON.stringify(headers)} waits ${expected}, ${retries} times at most`,
      () =>
        Effect.gen(function* () {
          const sleeps = yield* recordingSleeps
          const server = yield* Hostile.start(() =>
            Hostile.answer(status, { ...headers, "content-type": "application/json" }, "{}"),
          )
          const client = yield* clientOf(server, {
            retry: { times: retries, baseDelay: `${baseDelayMillis} millis`, maxDelay: "1 second" },
            maxRetryAfter: `${capMillis} millis`,
            errorBodyTimeout: day,
            timeouts: { connect: day, firstToken: day, idle: day, total: day },
          })
          const fiber = yield* Effect.forkChild(sleeps.use(client.complete(hello)))
          const waits: Array<number> = []
          while (waits.length < retries) {
            const wait = yield* sleeps.nextSleepUnder(day)
            waits.push(wait)
            yield* TestClock.adjust(wait)
          }
          const error = yield* failure(Fiber.join(fiber))
          assert.strictEqual(error.status, status)
          assert.strictEqual(server.requests, retries + 1)
          for (const [attempt, wait] of waits.entries()) {
            assert.isTrue(fits(wait, expected, attempt), `wait ${attempt + 1} was ${wait} ms`)
          }
        }),
      10_000,
    )
  }
})
