import { assert, describe, it } from "@effect/vitest"
import { Completion, Request, SvirError, Tool, Toolbox, ToolCall, ToolResult } from "@svir/core"
import { Deferred, type Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { Loop } from "../src/index.js"

/** A send that asks for one call of `name`, then answers with text; it keeps what it was sent. */
const callsOnce = (name: string) => {
  const requests: Array<Request.Request> = []
  const send = (request: Request.Request) =>
    Effect.sync(() => {
      requests.push(request)
      return requests.length === 1
        ? Completion.make({
            calls: [ToolCall.make("call_1", name, '{"id": 1}')],
            finish: "tool_calls",
          })
        : Completion.make({ text: "done", finish: "stop" })
    })
  return { requests, send }
}

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

const request = Request.make("m")

describe("Loop.run: bounds on the calls", () => {
  it.effect(
    "a call that never settles gets a failed result after 60 seconds, and the loop goes on",
    () =>
      Effect.gen(function* () {
        const { toolbox } = stuck()
        const { send, requests } = callsOnce("hang")
        const fiber = yield* Effect.forkChild(Loop.run({ send, toolbox, request }))
        yield* TestClock.adjust("59 seconds")
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust("1 second")
        assert.isDefined(fiber.pollUnsafe(), "the call should have been stopped")
        const result = yield* Fiber.join(fiber)
        assert.deepStrictEqual(result.steps[0]!.results, [
          ToolResult.error(
            "call_1",
            "tool hang did not answer within 1m and was stopped",
            "timed_out",
          ),
        ])
        assert.deepStrictEqual(result.stop, { _tag: "Answered" })
        assert.strictEqual(requests.length, 2)
      }),
  )

  it.effect("timeout: Infinity keeps waiting until the handler answers", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const toolbox = Toolbox.make({
        tools: [Tool.make("wait", "Answers when let through.")],
        call: (call) => Effect.as(Deferred.await(gate), ToolResult.make(call.id, "let through")),
      })
      const { send } = callsOnce("wait")
      const fiber = yield* Effect.forkChild(
        Loop.run({ send, toolbox, request, timeout: Number.POSITIVE_INFINITY }),
      )
      yield* TestClock.adjust("2 hours")
      assert.isUndefined(fiber.pollUnsafe())
      yield* Deferred.succeed(gate, undefined)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(result.steps[0]!.results, [ToolResult.make("call_1", "let through")])
    }),
  )

  it.effect(
    "a concurrency or timeout that cannot be a bound is a Config error, with no tool run",
    () =>
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
        const { send, requests } = callsOnce("now")
        const refused: ReadonlyArray<
          readonly [{ concurrency?: number | "unbounded"; timeout?: Duration.Input }, string]
        > = [
          [{ concurrency: 0 }, "concurrency"],
          [{ concurrency: -1 }, "concurrency"],
          [{ concurrency: 1.5 }, "concurrency"],
          [{ concurrency: Number.NaN }, "concurrency"],
          [{ concurrency: Number.NEGATIVE_INFINITY }, "concurrency"],
          [{ timeout: 0 }, "timeout"],
          [{ timeout: -5 }, "timeout"],
          [{ timeout: Number.NaN }, "timeout"],
          [{ timeout: "soon" as Duration.Input }, "timeout"],
        ]
        for (const [options, name] of refused) {
          const error = yield* Effect.flip(Loop.run({ send, toolbox, request, ...options }))
          assert.isTrue(SvirError.isSvirError(error), JSON.stringify(options))
          assert.strictEqual(error.reason._tag, "Config")
          assert.match(error.message, new RegExp(`^${name} `))
        }
        assert.deepStrictEqual(started, [])
        assert.deepStrictEqual(requests, [])
      }),
  )
})
