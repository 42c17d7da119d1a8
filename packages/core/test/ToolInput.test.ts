import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Logger, References } from "effect"
import { Tool, Toolbox, ToolCall, ToolInput, ToolResult } from "../src/index.js"

/**
 * A tool that asks for a confirmation before it cancels an order: it asks when its caller takes
 * questions and gave no answers, answers by the answers it was given, and says so when nobody
 * takes its questions (it would ask a person itself).
 */
const cancel = (onInterrupt: Effect.Effect<void> = Effect.void) =>
  Toolbox.make({
    tools: [Tool.make("cancel", "Cancels an order.")],
    call: (call) =>
      Effect.gen(function* () {
        const taker = yield* Effect.service(ToolInput.Current)
        if (taker === undefined) return ToolResult.make(call.id, "asked a person myself")
        if (taker.answers === undefined) {
          return yield* taker.ask({
            requests: { confirm: { message: "Cancel?" } },
            state: "round-1",
          })
        }
        const { responses, state } = taker.answers
        return ToolResult.make(call.id, `cancelled: ${JSON.stringify(responses.confirm)} ${state}`)
      }).pipe(Effect.onInterrupt(() => onInterrupt)),
  })

const call = ToolCall.make("call_1", "cancel", "{}")

/** The log lines written while `effect` runs. */
const logged = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const lines: Array<unknown> = []
    const logger = Logger.make(({ message }) => {
      lines.push(message)
    })
    const value = yield* effect.pipe(
      Effect.provide(Logger.layer([logger])),
      Effect.provideService(References.MinimumLogLevel, "All"),
    )
    return { value, lines }
  })

describe("ToolInput", () => {
  it.effect("no one takes questions outside taking: the tool answers them itself", () =>
    Effect.gen(function* () {
      assert.isUndefined(yield* Effect.service(ToolInput.Current))
      const result = yield* Toolbox.callSafely(cancel(), call)
      assert.strictEqual(result.content, "asked a person myself")
    }),
  )

  it.effect("gives the question the tool asked, and ends the call without a failed result", () =>
    Effect.gen(function* () {
      const interrupted = yield* Deferred.make<void>()
      const { value, lines } = yield* logged(
        ToolInput.taking(
          Toolbox.callSafely(cancel(Deferred.succeed(interrupted, undefined)), call),
        ),
      )
      assert.deepStrictEqual(value, {
        _tag: "Asked",
        question: { requests: { confirm: { message: "Cancel?" } }, state: "round-1" },
      })
      // The tool's work was interrupted, and nothing was logged as an interrupted call.
      assert.isTrue(yield* Deferred.isDone(interrupted))
      assert.deepStrictEqual(lines, [])
    }),
  )

  it.effect("runs the call again with the answers, which the tool reads", () =>
    Effect.gen(function* () {
      const outcome = yield* ToolInput.taking(Toolbox.callSafely(cancel(), call), {
        responses: { confirm: { action: "accept" } },
        state: "round-1",
      })
      assert.deepStrictEqual(outcome, {
        _tag: "Answered",
        result: ToolResult.make("call_1", 'cancelled: {"action":"accept"} round-1'),
      })
    }),
  )

  it.effect("a tool that does not ask gives its result, a failed one too", () =>
    Effect.gen(function* () {
      const failing = Toolbox.make({
        tools: [],
        call: (made) => Effect.succeed(ToolResult.error(made.id, "no such order")),
      })
      const outcome = yield* ToolInput.taking(Toolbox.callSafely(failing, call))
      assert.deepStrictEqual(outcome, {
        _tag: "Answered",
        result: ToolResult.error("call_1", "no such order"),
      })
    }),
  )

  it.effect("reaches the members of a combination, and does not leak out of taking", () =>
    Effect.gen(function* () {
      const other = Toolbox.make({
        tools: [Tool.make("other", "Another tool.")],
        call: (made) => Effect.succeed(ToolResult.make(made.id, "other")),
      })
      const combined = yield* Toolbox.combine([other, cancel()])
      const outcome = yield* ToolInput.taking(Toolbox.callSafely(combined, call))
      assert.strictEqual(outcome._tag, "Asked")
      assert.isUndefined(yield* Effect.service(ToolInput.Current))
    }),
  )
})
