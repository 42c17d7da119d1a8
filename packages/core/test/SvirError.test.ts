import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect } from "effect"
import * as fc from "fast-check"
import { SvirError } from "../src/index.js"

/** Data for a reason of each kind, as a caller may give it. */
const detailsOf: { readonly [K in SvirError.Kind]: fc.Arbitrary<SvirError.Fields<K>> } = (() => {
  const status = fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined })
  const serverMessage = fc.option(fc.string({ maxLength: 40 }), { nil: undefined })
  const millis = fc.option(fc.nat(), { nil: undefined })
  const code = fc.option(fc.oneof(fc.string({ maxLength: 20 }), fc.integer()), { nil: undefined })
  return {
    Unsupported: fc.record({
      status,
      serverMessage,
      attachment: fc.option(fc.string(), { nil: undefined }),
    }),
    TruncatedStream: fc.constant({}),
    Protocol: fc.record({ serverMessage }),
    Server: fc.record({ status, serverMessage, code }),
    ContextOverflow: fc.record({ status, serverMessage, code }),
    ContentFilter: fc.record({ status, serverMessage }),
    ResponseLimit: fc.record({
      limit: fc.option(fc.constantFrom("maxBytes", "maxCalls"), { nil: undefined }),
      max: millis,
    }),
    Transport: fc.record({ status, serverMessage, retryAfterMillis: millis }),
    Timeout: fc.record({
      limit: fc.option(fc.constantFrom("connect", "firstToken", "idle", "total" as const), {
        nil: undefined,
      }),
      limitMillis: millis,
      status,
      serverMessage,
    }),
    RateLimited: fc.record({ status, serverMessage, retryAfterMillis: millis }),
    Authentication: fc.record({ status, serverMessage }),
    Config: fc.record({ status }),
    Attachment: fc.record({ attachment: fc.option(fc.string(), { nil: undefined }) }),
  }
})()

/** The marker as another copy of the package writes it. */
const marker: unique symbol = Symbol.for("@svir/core/SvirError")

/** The own data of a reason, without its tag. */
const dataOf = (reason: SvirError.Reason): Record<string, unknown> => {
  const { _tag, ...data } = reason
  return data
}

const defined = (data: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined))

describe("SvirError", () => {
  it("tells whether a retry can help, kind by kind", () => {
    const retryable = SvirError.kinds.filter((kind) => SvirError.make(kind, "x").isRetryable)
    assert.deepStrictEqual(retryable, ["TruncatedStream", "Transport", "Timeout", "RateLimited"])
    for (const kind of SvirError.kinds) {
      const error = SvirError.make(kind, "x")
      assert.strictEqual(error.isRetryable, error.reason.isRetryable, kind)
    }
    assert.isTrue(new SvirError.RateLimited({}).isRetryable)
    assert.isFalse(new SvirError.Config({}).isRetryable)
  })

  it("lists every kind once, in a fixed order", () => {
    assert.deepStrictEqual(SvirError.kinds, [
      "Unsupported",
      "TruncatedStream",
      "Protocol",
      "Server",
      "ContextOverflow",
      "ContentFilter",
      "ResponseLimit",
      "Transport",
      "Timeout",
      "RateLimited",
      "Authentication",
      "Config",
      "Attachment",
    ])
  })

  it("bounds the server's own message and code", () => {
    const error = SvirError.make("Server", "the server failed", {
      status: 500,
      serverMessage: "x".repeat(10_000),
      code: "c".repeat(10_000),
    })
    assert.strictEqual(error.serverMessage?.length, SvirError.serverMessageLimit + 1)
    assert.strictEqual(error.status, 500)
    assert.strictEqual(error.message, "the server failed")
    assert.strictEqual(error.reason._tag, "Server")
    if (error.reason._tag === "Server") {
      assert.strictEqual(String(error.reason.code).length, SvirError.serverMessageLimit + 1)
    }
  })

  it("keeps the kind, the message and the reason's data for every kind", () => {
    for (const kind of SvirError.kinds) {
      const arbitrary: fc.Arbitrary<SvirError.Details<typeof kind>> = detailsOf[kind]
      fc.assert(
        fc.property(arbitrary, fc.string(), (details, message) => {
          const error = SvirError.make(kind, message, details)
          assert.strictEqual(error.reason._tag, kind)
          assert.strictEqual(error.message, message)
          assert.deepStrictEqual(defined(dataOf(error.reason)), defined(details))
          assert.strictEqual(error.status, "status" in details ? details.status : undefined)
          assert.strictEqual(
            error.serverMessage,
            "serverMessage" in details ? details.serverMessage : undefined,
          )
          assert.strictEqual(
            error.retryAfterMillis,
            "retryAfterMillis" in details ? details.retryAfterMillis : undefined,
          )
        }),
        { numRuns: 50, seed: 4_096 },
      )
    }
  })

  it("keeps the cause on the error, not on its reason", () => {
    const cause = new Error("ECONNREFUSED")
    const error = SvirError.make("Transport", "could not connect", { cause })
    assert.strictEqual(error.cause, cause)
    assert.isFalse("cause" in error.reason)
  })

  it.effect("is matched by its reason, for every kind", () =>
    Effect.gen(function* () {
      for (const kind of SvirError.kinds) {
        const failed = Effect.fail(SvirError.make(kind, `a ${kind}`))
        const caught = yield* failed.pipe(
          Effect.catchReason("SvirError", kind, (reason, error) =>
            Effect.succeed(`${reason._tag}: ${error.message}`),
          ),
        )
        assert.strictEqual(caught, `${kind}: a ${kind}`)
        const other = kind === "Config" ? "Timeout" : "Config"
        const passed = yield* Effect.flip(
          failed.pipe(Effect.catchReason("SvirError", other, () => Effect.succeed("wrong"))),
        )
        assert.strictEqual(passed.reason._tag, kind)
      }
    }),
  )

  it.effect("gives a reason's own data to its handler, with no cast", () =>
    Effect.gen(function* () {
      const failed = Effect.fail(
        SvirError.make("RateLimited", "slow down", { status: 429, retryAfterMillis: 1500 }),
      )
      const waited = yield* failed.pipe(
        Effect.catchReason("SvirError", "RateLimited", (reason) =>
          Effect.succeed(reason.retryAfterMillis),
        ),
      )
      assert.strictEqual(waited, 1500)
      const handled = yield* Effect.fail(
        SvirError.make("Timeout", "too slow", { limit: "idle", limitMillis: 5000 }),
      ).pipe(
        Effect.catchReasons("SvirError", {
          Timeout: (reason) => Effect.succeed(`${reason.limit} ${reason.limitMillis}`),
          RateLimited: (reason) => Effect.succeed(`wait ${reason.retryAfterMillis}`),
        }),
      )
      assert.strictEqual(handled, "idle 5000")
      const unwrapped = yield* Effect.flip(
        Effect.fail(
          SvirError.make("ResponseLimit", "too large", { limit: "maxCalls", max: 8 }),
        ).pipe(Effect.unwrapReason("SvirError")),
      )
      assert.strictEqual(unwrapped._tag, "ResponseLimit")
      if (unwrapped._tag === "ResponseLimit") assert.strictEqual(unwrapped.max, 8)
    }),
  )

  it("reads a reason's data after narrowing on its tag, and refuses data of another kind", () => {
    const error = SvirError.make("RateLimited", "slow down", { retryAfterMillis: 10 })
    const wait = error.reason._tag === "RateLimited" ? error.reason.retryAfterMillis : undefined
    assert.strictEqual(wait, 10)
    // @ts-expect-error a reason's data is there only after narrowing on its tag
    assert.isDefined(error.reason.retryAfterMillis)
    // Checked by the type checker only.
    const refused = () => [
      // @ts-expect-error a TruncatedStream has no status
      SvirError.make("TruncatedStream", "cut", { status: 500 }),
      // @ts-expect-error a Config error has no retry-after
      SvirError.make("Config", "bad", { retryAfterMillis: 1 }),
      // @ts-expect-error no such kind
      SvirError.make("Teapot", "short and stout"),
    ]
    assert.isFunction(refused)
    const built = new SvirError.SvirError({
      reason: new SvirError.Unsupported({ attachment: "report.pdf" }),
      message: "no part for a PDF",
    })
    assert.strictEqual(built.reason._tag, "Unsupported")
    assert.strictEqual(built.reason._tag === "Unsupported" && built.reason.attachment, "report.pdf")
  })

  it("recognises an error by its marker, from another copy of the package too", async () => {
    // A second instance of the module, as a second installed copy of the package would be.
    const copy = "../src/SvirError.js?copy=2"
    const other: typeof SvirError = await import(copy)
    assert.notStrictEqual(other.SvirError, SvirError.SvirError)
    const foreign = other.make("RateLimited", "slow down", { retryAfterMillis: 5 })
    assert.isFalse(foreign instanceof SvirError.SvirError)
    assert.isTrue(SvirError.isSvirError(foreign))
    assert.isTrue(other.isSvirError(SvirError.make("Timeout", "too slow")))

    class Lookalike extends Error {
      readonly reason = { _tag: "Timeout" }
    }
    class Marked extends Lookalike {
      readonly [marker] = marker
    }
    assert.isFalse(SvirError.isSvirError(new Lookalike("too slow")))
    assert.isTrue(SvirError.isSvirError(new Marked("too slow")))
    for (const value of [undefined, null, "SvirError", 42, {}, new Error("x")]) {
      assert.isFalse(SvirError.isSvirError(value))
    }
  })

  it("prints its message, and its reason's data in JSON", () => {
    const error = SvirError.make("RateLimited", "the server is rate limiting this client", {
      status: 429,
      retryAfterMillis: 2000,
    })
    assert.strictEqual(String(error), "SvirError: the server is rate limiting this client")
    assert.strictEqual(error.message, "the server is rate limiting this client")
    assert.include(Cause.pretty(Cause.fail(error)), "the server is rate limiting this client")
    const json = JSON.parse(JSON.stringify(error))
    assert.deepStrictEqual(json.reason, {
      _tag: "RateLimited",
      status: 429,
      retryAfterMillis: 2000,
    })
    assert.strictEqual(json._tag, "SvirError")
    assert.strictEqual(json.message, "the server is rate limiting this client")
  })
})
