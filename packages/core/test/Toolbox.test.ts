import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { Tool, Toolbox, ToolCall, ToolResult } from "../src/index.js"

/** A toolbox whose `wait` tool sleeps the given milliseconds and answers with its id. */
const sleeper = Toolbox.make({
  tools: [Tool.make("wait", "Wait a while.")],
  call: (call) =>
    Effect.as(Effect.sleep(Number(call.arguments)), ToolResult.make(call.id, call.arguments)),
})

const misbehaving = Toolbox.make({
  tools: [Tool.make("boom", "Dies."), Tool.make("stop", "Interrupts itself.")],
  call: (call) =>
    call.name === "boom" ? Effect.die(new Error("kaboom")) : (Effect.interrupt as never),
})

describe("Toolbox", () => {
  it.effect("answers every call in the order of the calls, one after another", () =>
    Effect.gen(function* () {
      const calls = [30, 10, 20].map((ms, i) => ToolCall.make(`c${i}`, "wait", String(ms)))
      const fiber = yield* Effect.forkChild(Toolbox.callAll(sleeper, calls))
      yield* TestClock.adjust(59)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(1)
      const results = yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        results.map((result) => result.callId),
        ["c0", "c1", "c2"],
      )
    }),
  )

  it.effect("keeps the order of the calls when they run concurrently", () =>
    Effect.gen(function* () {
      const calls = [30, 10, 20].map((ms, i) => ToolCall.make(`c${i}`, "wait", String(ms)))
      const fiber = yield* Effect.forkChild(Toolbox.callAll(sleeper, calls, { concurrency: 3 }))
      yield* TestClock.adjust(30)
      const results = yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        results.map((result) => result.content),
        ["30", "10", "20"],
      )
    }),
  )

  it.effect("turns a defect or an interruption inside a toolbox into a failed result", () =>
    Effect.gen(function* () {
      const results = yield* Toolbox.callAll(misbehaving, [
        ToolCall.make("a", "boom"),
        ToolCall.make("b", "stop"),
      ])
      assert.deepStrictEqual(results, [
        ToolResult.error("a", "tool boom failed unexpectedly"),
        ToolResult.error("b", "tool stop was interrupted"),
      ])
    }),
  )

  it("gives exactly one result per call, with the call's id, whatever the calls", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ id: fc.string(), name: fc.constantFrom("boom", "stop", "other") })),
        fc.integer({ min: 1, max: 4 }),
        async (specs, concurrency) => {
          const calls = specs.map((spec) => ToolCall.make(spec.id, spec.name))
          const results = await Effect.runPromise(
            Toolbox.callAll(misbehaving, calls, { concurrency }),
          )
          assert.deepStrictEqual(
            results.map((result) => result.callId),
            calls.map((call) => call.id),
          )
        },
      ),
      { numRuns: 50 },
    )
  })

  it.effect("combines toolboxes and routes each call to the one that offers it", () =>
    Effect.gen(function* () {
      const greeter = Toolbox.make({
        tools: [Tool.make("greet", "Say hello.")],
        call: (call) => Effect.succeed(ToolResult.make(call.id, "hello")),
      })
      const both = yield* Toolbox.combine([greeter, sleeper])
      assert.deepStrictEqual(
        (yield* both.tools).map((tool) => tool.name),
        ["greet", "wait"],
      )
      const [greeting, unknown] = yield* Toolbox.callAll(both, [
        ToolCall.make("a", "greet"),
        ToolCall.make("b", "fly"),
      ])
      assert.deepStrictEqual(greeting, ToolResult.make("a", "hello"))
      assert.deepStrictEqual(unknown, ToolResult.unknownTool("b", "fly", ["greet", "wait"]))
    }),
  )

  it.effect("reports two toolboxes offering the same name", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Toolbox.combine([sleeper, sleeper]))
      assert.strictEqual(error.kind, "Unsupported")
      assert.include(error.message, "wait")
    }),
  )
})
