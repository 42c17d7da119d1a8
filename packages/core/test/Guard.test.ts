import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { Guard, Tool, Toolbox, ToolCall, ToolResult } from "../src/index.js"

/** A toolbox of three tools that writes down each call it answers; `slow` takes 50 seconds. */
const recording = () => {
  const ran: Array<string> = []
  const toolbox = Toolbox.make({
    tools: [Tool.make("read", "Read."), Tool.make("delete", "Delete."), Tool.make("slow", "Slow.")],
    call: (call) =>
      Effect.gen(function* () {
        ran.push(call.name)
        if (call.name === "slow") yield* Effect.sleep("50 seconds")
        return ToolResult.make(call.id, `${call.name} done`)
      }),
  })
  return { ran, toolbox }
}

describe("Guard.guard", () => {
  it.effect("answers an allowed call, and gives a denied one the reason, of kind denied", () =>
    Effect.gen(function* () {
      const { ran, toolbox } = recording()
      const asked: Array<string> = []
      const guarded = Guard.guard(toolbox, {
        decide: (tool, call) =>
          Effect.sync(() => {
            asked.push(`${tool.name} ${call.id}`)
            return tool.name === "delete" ? Guard.deny("read-only session") : Guard.allow
          }),
      })
      const [read, deleted] = yield* Toolbox.callAll(guarded, [
        ToolCall.make("c1", "read"),
        ToolCall.make("c2", "delete"),
      ])
      assert.deepStrictEqual(read, ToolResult.make("c1", "read done"))
      assert.deepStrictEqual(deleted, {
        callId: "c2",
        content: "permission denied: read-only session",
        isError: true,
        failure: "denied",
      })
      assert.deepStrictEqual(asked, ["read c1", "delete c2"])
      assert.deepStrictEqual(ran, ["read"])
    }),
  )

  it.effect("hides what visible refuses: not offered, answered as unknown, never decided on", () =>
    Effect.gen(function* () {
      const { ran, toolbox } = recording()
      const asked: Array<string> = []
      const guarded = Guard.guard(toolbox, {
        visible: (tool) => Effect.succeed(tool.name !== "delete"),
        decide: (tool) =>
          Effect.sync(() => {
            asked.push(tool.name)
            return Guard.allow
          }),
      })
      assert.deepStrictEqual(
        (yield* guarded.tools).map((tool) => tool.name),
        ["read", "slow"],
      )
      const hidden = yield* guarded.call(ToolCall.make("c1", "delete"))
      const missing = yield* guarded.call(ToolCall.make("c2", "fly"))
      assert.deepStrictEqual(hidden, ToolResult.unknownTool("c1", "delete", ["read", "slow"]))
      assert.strictEqual(missing.failure, "unknown_tool")
      assert.deepStrictEqual(asked, [])
      assert.deepStrictEqual(ran, [])
    }),
  )

  it.effect("the caller's time limit bounds the guarded call once", () =>
    Effect.gen(function* () {
      const { toolbox } = recording()
      const guarded = Guard.guard(toolbox, { decide: () => Effect.succeed(Guard.allow) })
      const fiber = yield* Effect.forkChild(
        Toolbox.callSafely(guarded, ToolCall.make("c1", "slow"), { timeout: "10 seconds" }),
      )
      yield* TestClock.adjust("10 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.failure, "timed_out")
      const fine = yield* Effect.forkChild(
        Toolbox.callSafely(guarded, ToolCall.make("c2", "slow"), { timeout: "60 seconds" }),
      )
      yield* TestClock.adjust("50 seconds")
      assert.deepStrictEqual(yield* Fiber.join(fine), ToolResult.make("c2", "slow done"))
    }),
  )
})
