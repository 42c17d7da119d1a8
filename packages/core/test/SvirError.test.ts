import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SvirError } from "../src/index.js"

describe("SvirError", () => {
  it("tells whether a retry can help", () => {
    const retryable = SvirError.kinds.filter((kind) => SvirError.make(kind, "x").isRetryable)
    assert.deepStrictEqual(retryable, ["TruncatedStream", "Transport", "Timeout", "RateLimited"])
  })

  it("bounds the server's own message", () => {
    const error = SvirError.make("Server", "the server failed", {
      status: 500,
      serverMessage: "x".repeat(10_000),
    })
    assert.strictEqual(error.serverMessage?.length, SvirError.serverMessageLimit + 1)
    assert.strictEqual(error.status, 500)
    assert.strictEqual(error.message, "the server failed")
  })

  it.effect("is matched by its reason", () =>
    Effect.gen(function* () {
      const failed = Effect.fail(
        SvirError.make("RateLimited", "slow down", { retryAfterMillis: 1500 }),
      )
      const waited = yield* failed.pipe(
        Effect.catchReason("SvirError", "RateLimited", (_reason, error) =>
          Effect.succeed(error.retryAfterMillis),
        ),
      )
      assert.strictEqual(waited, 1500)
      const other = yield* Effect.flip(
        Effect.fail(SvirError.make("Timeout", "too slow")).pipe(
          Effect.catchReason("SvirError", "RateLimited", () => Effect.succeed(0)),
        ),
      )
      assert.strictEqual(other.kind, "Timeout")
    }),
  )
})
