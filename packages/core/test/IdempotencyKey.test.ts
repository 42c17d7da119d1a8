import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { IdempotencyKey } from "../src/index.js"

describe("IdempotencyKey", () => {
  it.effect("is undefined outside any within", () =>
    Effect.gen(function* () {
      assert.isUndefined(yield* IdempotencyKey.get)
    }),
  )

  it.effect("within sets the key, in both forms", () =>
    Effect.gen(function* () {
      assert.strictEqual(
        yield* IdempotencyKey.get.pipe(IdempotencyKey.within("run-1/3/call_1")),
        "run-1/3/call_1",
      )
      assert.strictEqual(
        yield* IdempotencyKey.within(IdempotencyKey.get, "run-1/4/call_2"),
        "run-1/4/call_2",
      )
    }),
  )

  it.effect("the inner within wins, and the outer key is back after it", () =>
    Effect.gen(function* () {
      const seen = yield* Effect.gen(function* () {
        const before = yield* IdempotencyKey.get
        const inner = yield* IdempotencyKey.within(IdempotencyKey.get, "inner")
        const after = yield* IdempotencyKey.get
        return [before, inner, after]
      }).pipe(IdempotencyKey.within("outer"))
      assert.deepStrictEqual(seen, ["outer", "inner", "outer"])
    }),
  )

  it.effect("does not leak out of within, nor out of a failure inside it", () =>
    Effect.gen(function* () {
      yield* IdempotencyKey.within(Effect.void, "run-1/3/call_1")
      assert.isUndefined(yield* IdempotencyKey.get)
      yield* IdempotencyKey.within(Effect.fail("boom"), "run-1/3/call_1").pipe(Effect.ignore)
      assert.isUndefined(yield* IdempotencyKey.get)
    }),
  )

  it.effect("reaches a fiber forked inside within", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(IdempotencyKey.get).pipe(IdempotencyKey.within("k"))
      assert.strictEqual(yield* Fiber.join(fiber), "k")
    }),
  )
})
