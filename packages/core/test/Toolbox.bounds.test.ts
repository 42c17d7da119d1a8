import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Duration, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { SvirError, Tool, Toolbox, ToolCall, ToolResult } from "../src/index.js"

/** A toolbox whose one tool waits on a Promise that never settles, as a stuck handler does. */
const stuck = () => {
  const started: Array<string> = []
  const toolbox = Toolbox.make({
    tools: [Tool.make("hang", "Never answers.")],
    call: (call) => {
      started.push(call.id)
      return Effect.promise(() => new Promise<ToolResult.ToolResult>(() => {}))
    },
  })
  return { toolbox, started }
}

/** A toolbox whose one tool answers when the test opens its gate. */
const gated = Effect.gen(function* () {
  const gate = yield* Deferred.make<void>()
  const toolbox = Toolbox.make({
    tools: [Tool.make("wait", "Answers when let through.")],
    call: (call) => Effect.as(Deferred.await(gate), ToolResult.make(call.id, "done")),
  })
  return { toolbox, open: Deferred.succeed(gate, undefined) }
})

const stopped = (id: string, name: string) =>
  ToolResult.error(id, `tool ${name} did not answer within 1m and was stopped`, "timed_out")

describe("Toolbox: a default time limit on every call", () => {
  it("is 60 seconds", () => {
    assert.strictEqual(Duration.toMillis(Toolbox.defaultTimeout), 60_000)
  })

  it.effect("a call that never settles gets a failed result after the default", () =>
    Effect.gen(function* () {
      const { toolbox } = stuck()
      const calls = [ToolCall.make("a", "hang"), ToolCall.make("b", "hang")]
      const runs = [
        Effect.map(Toolbox.callSafely(toolbox, calls[0]!), (result) => [result]),
        Toolbox.callAll(toolbox, calls.slice(0, 1)),
        Toolbox.callAll(toolbox, calls, { concurrency: 2 }),
        Toolbox.callAll(toolbox, calls, { concurrency: "unbounded" }),
      ]
      for (const run of runs) {
        const fiber = yield* Effect.forkChild(run)
        yield* TestClock.adjust("59 seconds")
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust("1 second")
        assert.isDefined(fiber.pollUnsafe(), "the call should have been stopped")
        const results = yield* Fiber.join(fiber)
        assert.deepStrictEqual(
          results,
          results.map((result) => stopped(result.callId, "hang")),
        )
      }
      // One after another, each call has its own minute.
      const fiber = yield* Effect.forkChild(Toolbox.callAll(toolbox, calls))
      yield* TestClock.adjust("60 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("60 seconds")
      assert.isDefined(fiber.pollUnsafe(), "both calls should have been stopped")
      assert.deepStrictEqual(yield* Fiber.join(fiber), [stopped("a", "hang"), stopped("b", "hang")])
    }),
  )

  it.effect("a combination is bounded by its caller, once", () =>
    Effect.gen(function* () {
      const { toolbox } = stuck()
      const both = yield* Toolbox.combine([toolbox])
      const fiber = yield* Effect.forkChild(Toolbox.callAll(both, [ToolCall.make("a", "hang")]))
      yield* TestClock.adjust("60 seconds")
      assert.isDefined(fiber.pollUnsafe(), "the call should have been stopped")
      assert.deepStrictEqual(yield* Fiber.join(fiber), [stopped("a", "hang")])

      // Switched off by the caller, nothing inside the combination stops the call.
      const { toolbox: waiting, open } = yield* gated
      const combined = yield* Toolbox.combine([waiting])
      const unbounded = yield* Effect.forkChild(
        Toolbox.callAll(combined, [ToolCall.make("b", "wait")], { timeout: Infinity }),
      )
      yield* TestClock.adjust("2 hours")
      assert.isUndefined(unbounded.pollUnsafe())
      yield* open
      assert.deepStrictEqual(yield* Fiber.join(unbounded), [ToolResult.make("b", "done")])
    }),
  )

  it.effect("a timeout of its own replaces the default, and Infinity switches it off", () =>
    Effect.gen(function* () {
      const { toolbox } = stuck()
      const short = yield* Effect.forkChild(
        Toolbox.callSafely(toolbox, ToolCall.make("a", "hang"), { timeout: "5 seconds" }),
      )
      yield* TestClock.adjust("5 seconds")
      assert.isDefined(short.pollUnsafe(), "the call should have been stopped")
      assert.deepStrictEqual(
        yield* Fiber.join(short),
        ToolResult.error("a", "tool hang did not answer within 5s and was stopped", "timed_out"),
      )

      const off: ReadonlyArray<Duration.Input> = [Infinity, "Infinity", Duration.infinity]
      for (const timeout of off) {
        const { toolbox: waiting, open } = yield* gated
        const call = ToolCall.make("b", "wait")
        const fibers = [
          yield* Effect.forkChild(
            Effect.map(Toolbox.callSafely(waiting, call, { timeout }), (result) => [result]),
          ),
          yield* Effect.forkChild(Toolbox.callAll(waiting, [call], { timeout })),
          yield* Effect.forkChild(Toolbox.callAll(waiting, [call], { timeout, concurrency: 2 })),
        ]
        yield* TestClock.adjust("2 hours")
        for (const fiber of fibers) assert.isUndefined(fiber.pollUnsafe())
        yield* open
        for (const fiber of fibers) {
          assert.deepStrictEqual(yield* Fiber.join(fiber), [ToolResult.make("b", "done")])
        }
      }
    }),
  )

  it.effect("options that cannot be a bound are a Config error, and no tool runs", () =>
    Effect.gen(function* () {
      const started: Array<string> = []
      const toolbox = Toolbox.make({
        tools: [Tool.make("now", "Answers at once.")],
        call: (call) =>
          Effect.sync(() => {
            started.push(call.id)
            return ToolResult.make(call.id, "now")
          }),
      })
      const call = ToolCall.make("a", "now")
      const refused: ReadonlyArray<readonly [Toolbox.CallAllOptions, string]> = [
        [{ concurrency: 0 }, "concurrency"],
        [{ concurrency: -1 }, "concurrency"],
        [{ concurrency: 1.5 }, "concurrency"],
        [{ concurrency: Number.NaN }, "concurrency"],
        [{ concurrency: Number.NEGATIVE_INFINITY }, "concurrency"],
        [{ concurrency: "4" as never }, "concurrency"],
        [{ timeout: 0 }, "timeout"],
        [{ timeout: -5 }, "timeout"],
        [{ timeout: Number.NaN }, "timeout"],
        [{ timeout: "soon" as Duration.Input }, "timeout"],
        [{ timeout: Number.NEGATIVE_INFINITY }, "timeout"],
      ]
      for (const [options, name] of refused) {
        const runs: ReadonlyArray<Effect.Effect<unknown>> =
          name === "timeout"
            ? [
                Toolbox.callAll(toolbox, [call], options),
                Toolbox.callSafely(toolbox, call, options),
              ]
            : [Toolbox.callAll(toolbox, [call], options)]
        for (const run of runs) {
          const exit = yield* Effect.exit(run)
          const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
          assert.isTrue(SvirError.isSvirError(defect), JSON.stringify(options))
          if (SvirError.isSvirError(defect)) {
            assert.strictEqual(defect.reason._tag, "Config")
            assert.match(defect.message, new RegExp(`^${name} `))
          }
        }
      }
      assert.deepStrictEqual(started, [])

      const accepted: ReadonlyArray<Toolbox.CallAllOptions> = [
        { concurrency: 1, timeout: 1 },
        { concurrency: Number.POSITIVE_INFINITY, timeout: Number.POSITIVE_INFINITY },
        { concurrency: "unbounded", timeout: "10 seconds" },
      ]
      for (const options of accepted) {
        assert.strictEqual((yield* Toolbox.callAll(toolbox, [call, call], options)).length, 2)
      }
    }),
  )
})
