import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { Tool, Toolbox, ToolCall, ToolResult } from "../src/index.js"

/**
 * A toolbox whose tool works `before`, then (in `paused`) waits for the test to answer as a
 * person would, then works `after`; or, with `progress`, reports progress between its pieces.
 */
const asking = Effect.gen(function* () {
  const answer = yield* Deferred.make<void>()
  const asked = yield* Deferred.make<void>()
  const toolbox = Toolbox.make({
    tools: [Tool.make("ask", "Asks someone between two pieces of work.")],
    call: (call) =>
      Effect.gen(function* () {
        yield* Effect.sleep("50 seconds")
        yield* Toolbox.paused(
          Effect.andThen(Deferred.succeed(asked, undefined), Deferred.await(answer)),
        )
        yield* Effect.sleep("5 seconds")
        return ToolResult.make(call.id, "asked and done")
      }),
  })
  return { toolbox, asked, answer: Deferred.succeed(answer, undefined) }
})

/** A tool that works 50 seconds three times, reporting progress after each piece when `report`. */
const working = (report: boolean) =>
  Toolbox.make({
    tools: [Tool.make("work", "Works in three long pieces.")],
    call: (call) =>
      Effect.as(
        Effect.repeat(
          Effect.andThen(Effect.sleep("50 seconds"), report ? Toolbox.progressed : Effect.void),
          { times: 2 },
        ),
        ToolResult.make(call.id, "worked"),
      ),
  })

const stopped = (id: string, name: string) =>
  ToolResult.error(id, `tool ${name} did not answer within 1m and was stopped`, "timed_out")

describe("Toolbox.paused: the time limit stands still while someone is asked", () => {
  it.effect("a person who takes an hour does not make the call time out", () =>
    Effect.gen(function* () {
      const { toolbox, asked, answer } = yield* asking
      const fiber = yield* Effect.forkChild(Toolbox.callSafely(toolbox, ToolCall.make("c", "ask")))
      yield* TestClock.adjust("50 seconds")
      yield* Deferred.await(asked)
      yield* TestClock.adjust("1 hour")
      assert.isUndefined(fiber.pollUnsafe())
      yield* answer
      yield* TestClock.adjust("5 seconds")
      assert.deepStrictEqual(yield* Fiber.join(fiber), ToolResult.make("c", "asked and done"))
    }),
  )

  it.effect("the time before and after the question still counts", () =>
    Effect.gen(function* () {
      const { toolbox, asked, answer } = yield* asking
      const call = ToolCall.make("c", "ask")
      const fiber = yield* Effect.forkChild(
        Toolbox.callSafely(toolbox, call, { timeout: "52 seconds" }),
      )
      yield* TestClock.adjust("50 seconds")
      yield* Deferred.await(asked)
      yield* TestClock.adjust("10 minutes")
      yield* answer
      yield* TestClock.adjust("1 second")
      assert.isUndefined(fiber.pollUnsafe(), "51 of its 52 seconds are gone")
      yield* TestClock.adjust("1 second")
      assert.isDefined(fiber.pollUnsafe(), "its 52 seconds are gone")
      assert.deepStrictEqual(
        yield* Fiber.join(fiber),
        ToolResult.error("c", "tool ask did not answer within 52s and was stopped", "timed_out"),
      )
    }),
  )

  it.effect("reaches the limit of every enclosing call, and does nothing outside one", () =>
    Effect.gen(function* () {
      const { toolbox, asked, answer } = yield* asking
      // A toolbox that answers through another with a limit of its own.
      const outer = Toolbox.make({
        tools: toolbox.tools,
        call: (call) => Toolbox.callSafely(toolbox, call, { timeout: "2 minutes" }),
      })
      const fiber = yield* Effect.forkChild(Toolbox.callSafely(outer, ToolCall.make("c", "ask")))
      yield* TestClock.adjust("50 seconds")
      yield* Deferred.await(asked)
      yield* TestClock.adjust("1 hour")
      yield* answer
      yield* TestClock.adjust("5 seconds")
      assert.deepStrictEqual(yield* Fiber.join(fiber), ToolResult.make("c", "asked and done"))
      assert.strictEqual(yield* Toolbox.paused(Effect.succeed(7)), 7)
    }),
  )
})

describe("Toolbox.progressed: a call that reports progress gets its whole limit again", () => {
  it.effect("three pieces of 50 seconds, each followed by progress, fit a limit of 60", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(
        Toolbox.callSafely(working(true), ToolCall.make("c", "work")),
      )
      yield* TestClock.adjust("150 seconds")
      assert.deepStrictEqual(yield* Fiber.join(fiber), ToolResult.make("c", "worked"))
    }),
  )

  it.effect("without progress the same call is stopped at 60 seconds", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(
        Toolbox.callSafely(working(false), ToolCall.make("c", "work")),
      )
      yield* TestClock.adjust("59 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(yield* Fiber.join(fiber), stopped("c", "work"))
      yield* Toolbox.progressed
    }),
  )
})
