import { assert, describe, it } from "@effect/vitest"
import { SvirError, Toolbox, ToolCall, ToolResult } from "@svir/core"
import { Tools } from "@svir/registry"
import { Cause, Deferred, Effect, Exit, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"

const Args = Schema.Struct({ id: Schema.Int })

/** A registry whose Promise handler never settles, and the signals it was given. */
const stuck = () => {
  const signals: Array<AbortSignal> = []
  const tools = Tools.empty.pipe(
    Tools.add("hang", "Never answers.", Args, (_args, _call, { signal }) => {
      signals.push(signal)
      return new Promise<string>(() => {})
    }),
  )
  return { tools, signals }
}

const call = (id: string) => ToolCall.make(id, "hang", '{"id": 1}')
const stopped = (id: string) =>
  ToolResult.error(id, "tool hang did not answer within 1m and was stopped", "timed_out")

describe("Tools: a default time limit", () => {
  it.effect(
    "a Promise handler that never settles gets a failed result after 60 seconds, through every entry point",
    () =>
      Effect.gen(function* () {
        const { tools, signals } = stuck()
        const runs: ReadonlyArray<Effect.Effect<ReadonlyArray<ToolResult.ToolResult>>> = [
          Effect.map(Tools.call(tools, call("a")), (result) => [result]),
          Tools.callAll(tools, [call("a")]),
          Tools.callAll(tools, [call("a"), call("b")], { concurrency: 2 }),
          Tools.callAll(tools, [call("a")], { maxOutput: 1_000 }),
          // The registry as a Toolbox, as a loop uses it.
          Toolbox.callAll(tools, [call("a")]),
          Effect.map(Toolbox.callSafely(tools, call("a")), (result) => [result]),
        ]
        for (const run of runs) {
          signals.length = 0
          const fiber = yield* Effect.forkChild(run)
          yield* TestClock.adjust("59 seconds")
          assert.isUndefined(fiber.pollUnsafe())
          assert.isTrue(signals.length > 0 && signals.every((signal) => !signal.aborted))
          yield* TestClock.adjust("1 second")
          assert.isDefined(fiber.pollUnsafe(), "the call should have been stopped")
          const results = yield* Fiber.join(fiber)
          assert.deepStrictEqual(
            results,
            results.map((result) => stopped(result.callId)),
          )
          // The handler is told to stop its work.
          assert.isTrue(signals.every((signal) => signal.aborted))
        }
      }),
  )

  it.effect("timeout: Infinity keeps waiting until the handler answers", () =>
    Effect.gen(function* () {
      const resolvers: Array<(text: string) => void> = []
      const gate = yield* Deferred.make<void>()
      const tools = Tools.empty.pipe(
        Tools.add(
          "slow",
          "Answers when let through.",
          Args,
          () =>
            new Promise<string>((resolve) => {
              resolvers.push(resolve)
            }),
        ),
        Tools.add("gated", "Answers when the gate opens.", Args, () =>
          Effect.as(Deferred.await(gate), "opened"),
        ),
      )
      const slow = ToolCall.make("s", "slow", '{"id": 1}')
      const gated = ToolCall.make("g", "gated", '{"id": 1}')
      const off = { timeout: Number.POSITIVE_INFINITY }
      const fibers = [
        yield* Effect.forkChild(Effect.map(Tools.call(tools, slow, off), (result) => [result])),
        yield* Effect.forkChild(Tools.callAll(tools, [slow, gated], off)),
        yield* Effect.forkChild(Tools.callAll(tools, [slow, gated], { ...off, concurrency: 2 })),
        yield* Effect.forkChild(Tools.callAll(tools, [gated], { ...off, timeout: "Infinity" })),
      ]
      yield* TestClock.adjust("2 hours")
      for (const fiber of fibers) assert.isUndefined(fiber.pollUnsafe())
      for (const resolve of resolvers) resolve("answered")
      yield* Deferred.succeed(gate, undefined)
      const results = yield* Effect.forEach(fibers, Fiber.join)
      assert.deepStrictEqual(
        results.map((list) => list.map((result) => result.content)),
        [["answered"], ["answered", "opened"], ["answered", "opened"], ["opened"]],
      )
    }),
  )

  it.effect("a concurrency that cannot be a bound is a Config error, and no handler runs", () =>
    Effect.gen(function* () {
      const { tools, signals } = stuck()
      for (const concurrency of [0, -1, 1.5, Number.NaN, Number.NEGATIVE_INFINITY]) {
        const exit = yield* Effect.exit(Tools.callAll(tools, [call("a")], { concurrency }))
        const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        assert.isTrue(SvirError.isSvirError(defect), String(concurrency))
        if (SvirError.isSvirError(defect)) {
          assert.strictEqual(defect.reason._tag, "Config")
          assert.match(defect.message, /^concurrency /)
        }
      }
      assert.deepStrictEqual(signals, [])
    }),
  )
})
