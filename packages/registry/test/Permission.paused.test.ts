import { assert, describe, it } from "@effect/vitest"
import { ToolCall } from "@svir/core"
import { Permission, Tools } from "@svir/registry"
import { Deferred, Effect, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"

const Path = Schema.Struct({ path: Schema.String })

describe("Permission.confirm: the call's time limit stands still while the person decides", () => {
  it.effect("a yes given after ten minutes still runs the call", () =>
    Effect.gen(function* () {
      const ran: Array<string> = []
      const tools = Tools.empty.pipe(
        Tools.add("delete", "Delete a file.", Path, ({ path }) => {
          ran.push(path)
          return `deleted ${path}`
        }),
        Permission.guard,
      )
      const asked = yield* Deferred.make<void>()
      const yes = yield* Deferred.make<boolean>()
      const person = Permission.Confirm.of({
        ask: () => Effect.andThen(Deferred.succeed(asked, undefined), Deferred.await(yes)),
      })
      const policy = Permission.layer({
        decide: (_, call) => Permission.confirm("delete?", call),
      })
      const fiber = yield* Effect.forkChild(
        Tools.callAll(tools, [ToolCall.make("1", "delete", '{"path": "a.txt"}')]).pipe(
          Effect.provide(policy),
          Effect.provideService(Permission.Confirm, person),
        ),
      )
      yield* Deferred.await(asked)
      yield* TestClock.adjust("10 minutes")
      assert.isUndefined(fiber.pollUnsafe(), "the default 60 seconds do not run while asking")
      yield* Deferred.succeed(yes, true)
      const [result] = yield* Fiber.join(fiber)
      assert.deepStrictEqual([result?.isError, result?.content], [false, "deleted a.txt"])
      assert.deepStrictEqual(ran, ["a.txt"])
    }),
  )
})
