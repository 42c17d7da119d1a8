import { assert, describe, it } from "@effect/vitest"
import { Toolbox, ToolCall } from "@svir/core"
import { Tools } from "@svir/registry"
import { Answer } from "@svir/testing"
import { Deferred, Effect, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Approval, Loop } from "../src/index.js"
import { echo, sent, serverAndClient } from "./helpers.js"

/** A registry whose handlers write down what ran, guarded by the approver. */
const guardedFiles = () => {
  const ran: Array<string> = []
  const Path = Schema.Struct({ path: Schema.String })
  const files = Tools.empty.pipe(
    Tools.add("read", "Read a file.", Path, ({ path }) => {
      ran.push(`read ${path}`)
      return `contents of ${path}`
    }),
    Tools.add("delete", "Delete a file.", Path, ({ path }) => {
      ran.push(`delete ${path}`)
      return `deleted ${path}`
    }),
  )
  return { ran, toolbox: Approval.guard(files) }
}

const readAndDelete = Answer.toolCalls([
  { name: "read", arguments: { path: "a.txt" } },
  { name: "delete", arguments: { path: "a.txt" } },
])

describe("Approval", () => {
  it.live("a denied call never reaches the handler; the model reads why", () =>
    Effect.gen(function* () {
      const { ran, toolbox } = guardedFiles()
      const { server, client, request } = yield* serverAndClient([readAndDelete, Answer.text("ok")])
      const result = yield* Loop.run({ send: client.stream, toolbox, request }).pipe(
        Effect.provide(
          Approval.layer((call) =>
            call.name === "delete" ? Approval.deny("deleting is not allowed here") : Approval.allow,
          ),
        ),
      )
      assert.deepStrictEqual(ran, ["read a.txt"])
      assert.deepStrictEqual(
        result.steps[0]!.results.map((r) => [r.content, r.isError]),
        [
          ["contents of a.txt", false],
          ["permission denied: deleting is not allowed here", true],
        ],
      )
      // On the wire the codec marks the failure as the seeds say.
      assert.strictEqual(
        sent(server, 1)[3]!.content,
        "error: permission denied: deleting is not allowed here",
      )
    }),
  )

  it.live("an approver that asks a person: the call waits for the answer, then runs", () =>
    Effect.gen(function* () {
      const { ran, toolbox } = guardedFiles()
      const { client, request } = yield* serverAndClient([readAndDelete, Answer.text("ok")])
      const asked = yield* Deferred.make<ToolCall.ToolCall>()
      const answer = yield* Deferred.make<Approval.Decision>()
      const approver = Approval.layer((call) =>
        call.name === "delete"
          ? Deferred.succeed(asked, call).pipe(Effect.andThen(Deferred.await(answer)))
          : Approval.allow,
      )
      const fiber = yield* Loop.run({ send: client.stream, toolbox, request }).pipe(
        Effect.provide(approver),
        Effect.forkChild,
      )
      const question = yield* Deferred.await(asked)
      assert.strictEqual(question.arguments, '{"path":"a.txt"}')
      assert.deepStrictEqual(ran, ["read a.txt"])
      yield* Deferred.succeed(answer, Approval.allow)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(ran, ["read a.txt", "delete a.txt"])
      assert.strictEqual(result.steps[0]!.results[1]!.content, "deleted a.txt")
    }),
  )

  it.effect("an approval that takes ten minutes does not make the call time out", () =>
    Effect.gen(function* () {
      const asked = yield* Deferred.make<void>()
      const answer = yield* Deferred.make<Approval.Decision>()
      const approver = Approval.layer(() =>
        Deferred.succeed(asked, undefined).pipe(Effect.andThen(Deferred.await(answer))),
      )
      const fiber = yield* Toolbox.callAll(Approval.guard(echo), [
        ToolCall.make("1", "echo", '{"a": 1}'),
      ]).pipe(Effect.provide(approver), Effect.forkChild)
      yield* Deferred.await(asked)
      yield* TestClock.adjust("10 minutes")
      assert.isUndefined(fiber.pollUnsafe(), "the default 60 seconds do not run while asking")
      yield* Deferred.succeed(answer, Approval.allow)
      const [result] = yield* Fiber.join(fiber)
      assert.isFalse(result?.isError)
    }),
  )

  it.effect("guards a toolbox of your own, outside the loop too", () =>
    Effect.gen(function* () {
      const results = yield* Toolbox.callAll(Approval.guard(echo), [
        ToolCall.make("1", "echo", '{"a": 1}'),
        ToolCall.make("2", "echo", '{"secret": 1}'),
      ]).pipe(
        Effect.provide(
          Approval.layer((call) =>
            call.arguments.includes("secret")
              ? Approval.deny("secrets stay secret")
              : Approval.allow,
          ),
        ),
      )
      assert.deepStrictEqual(
        results.map((r) => [r.content, r.isError]),
        [
          ['echo {"a": 1}', false],
          ["permission denied: secrets stay secret", true],
        ],
      )
    }),
  )

  it.effect("answers a name the toolbox does not offer as unknown, without asking anyone", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const result = yield* Approval.guard(echo)
        .call(ToolCall.make("1", "rm_rf", "{}"))
        .pipe(
          Effect.provide(
            Approval.layer((call) => {
              asked.push(call.name)
              return Approval.allow
            }),
          ),
        )
      assert.strictEqual(result.failure, "unknown_tool")
      assert.strictEqual(result.content, "no tool named rm_rf; the tools are: echo")
      assert.deepStrictEqual(asked, [])
    }),
  )

  it.effect("offers the tools of the toolbox it guards", () =>
    Effect.gen(function* () {
      const offered = yield* Approval.guard(echo).tools.pipe(
        Effect.provide(Approval.layer(() => Approval.deny("no"))),
      )
      assert.deepStrictEqual(
        offered.map((tool) => tool.name),
        ["echo"],
      )
    }),
  )
})
