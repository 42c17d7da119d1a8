import { afterEach, assert, describe, it } from "@effect/vitest"
import { ToolCall } from "@svir/core"
import { Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { TestClock } from "effect/testing"
import { Elicitation, McpToolbox } from "../src/index.js"
import { assertNoChildLeft, captureLogs, referenceServer } from "./servers.js"

// The server keeps running while a tool waits on the user: it is not given the default 2 s to
// exit once its input ends.
const everything = (options: McpToolbox.Options = {}) =>
  McpToolbox.stdio(
    {
      command: process.execPath,
      args: [referenceServer("everything"), "stdio"],
      stopGraceMillis: 100,
    },
    options,
  )

/** A user who answers every form with `ask`. */
const user = (ask: Elicitation.Elicitation["Service"]["ask"]) =>
  Layer.succeed(Elicitation.Elicitation, { ask })

/** Calls server-everything's tool that asks the user for a form of eleven fields. */
const triggerElicitation = (toolbox: McpToolbox.McpToolbox) =>
  toolbox.call(ToolCall.make("c1", "trigger-elicitation-request"))

describe("Elicitation, with @modelcontextprotocol/server-everything over stdio", () => {
  afterEach(assertNoChildLeft)

  it.live("gives accepted content to the server, and the server's form to the user", () =>
    Effect.gen(function* () {
      const asked: Array<Elicitation.Request> = []
      const toolbox = yield* everything().pipe(
        Effect.provide(
          user((request) => {
            asked.push(request)
            return Effect.succeed(
              Elicitation.accept({
                name: "Ada Lovelace",
                check: true,
                integer: 7,
                untitledMultipleSelectEnum: ["Piano", "Drums"],
              }),
            )
          }),
        ),
      )
      const result = yield* triggerElicitation(toolbox)
      assert.isFalse(result.isError, result.content)
      assert.include(result.content, "User provided the requested information")
      assert.include(result.content, "- Name: Ada Lovelace")
      assert.include(result.content, "- Favorite Integer: 7")
      assert.include(result.content, '"Piano"')
      const [request] = asked
      assert.strictEqual(asked.length, 1)
      assert.strictEqual(request?.message, "Please provide inputs for the following fields:")
      assert.strictEqual(request?.server, "mcp-servers/everything")
      assert.deepStrictEqual(request?.requestedSchema.required, ["name"])
      assert.strictEqual(request?.requestedSchema.properties.email?.type, "string")
    }),
  )

  it.live("fills the fields the user left out with the form's defaults", () =>
    Effect.gen(function* () {
      const toolbox = yield* everything().pipe(
        Effect.provide(user(() => Effect.succeed(Elicitation.accept({ name: "Ada", integer: 7 })))),
      )
      const result = yield* triggerElicitation(toolbox)
      assert.isFalse(result.isError, result.content)
      // Given by the user: kept; left out: the form's default.
      assert.include(result.content, "- Favorite Integer: 7")
      assert.include(result.content, "- Favorite Number: 3.14")
      assert.include(result.content, '"firstLine": "It was a dark and stormy night."')
    }),
  )

  it.live("tells the server the user declined or cancelled", () =>
    Effect.gen(function* () {
      const declining = yield* everything().pipe(
        Effect.provide(user(() => Effect.succeed(Elicitation.decline))),
      )
      const declined = yield* triggerElicitation(declining)
      assert.include(declined.content, "User declined to provide the requested information")
      const cancelling = yield* everything().pipe(
        Effect.provide(user(() => Effect.succeed(Elicitation.cancel))),
      )
      const cancelled = yield* triggerElicitation(cancelling)
      assert.include(cancelled.content, "User cancelled the elicitation dialog")
    }),
  )

  it.live("declines for a user who provided no Elicitation service", () =>
    Effect.gen(function* () {
      const toolbox = yield* everything()
      const names = (yield* toolbox.tools).map((tool) => tool.name)
      // The server offers the tool only to a client that declares the capability.
      assert.include(names, "trigger-elicitation-request")
      const result = yield* triggerElicitation(toolbox)
      assert.isFalse(result.isError, result.content)
      assert.include(result.content, "User declined to provide the requested information")
    }),
  )

  it.live("does not send content that does not fit the form: the server gets an error", () =>
    Effect.gen(function* () {
      const logs = captureLogs()
      const answers = [
        // Over the field's maximum of 100.
        Elicitation.accept({ name: "Ada", integer: 1000 }),
        // Without the required name, and an email that is not one.
        Elicitation.accept({ email: "not an address" }),
      ]
      const toolbox = yield* everything().pipe(
        Effect.provide(
          Layer.merge(
            user(() => Effect.succeed(answers.shift()!)),
            logs.layer,
          ),
        ),
      )
      const tooLarge = yield* triggerElicitation(toolbox)
      assert.isTrue(tooLarge.isError)
      assert.include(tooLarge.content, "does not fit the requested schema")
      assert.include(tooLarge.content, "data/integer must be <= 100")
      assert.notInclude(tooLarge.content, "Ada")
      const incomplete = yield* triggerElicitation(toolbox)
      assert.isTrue(incomplete.isError)
      assert.include(incomplete.content, "must have required property 'name'")
      assert.include(incomplete.content, 'data/email must match format "email"')
      assert.notInclude(incomplete.content, "not an address")
      assert.strictEqual(
        logs.logged.filter((line) => line.includes("answer does not fit the requested schema"))
          .length,
        2,
      )
    }),
  )

  it.live("gives the server an error, and logs why, when the Elicitation service dies", () =>
    Effect.gen(function* () {
      const logs = captureLogs()
      const toolbox = yield* everything().pipe(
        Effect.provide(
          Layer.merge(
            user(() => Effect.die(new Error("the terminal is gone"))),
            logs.layer,
          ),
        ),
      )
      const result = yield* triggerElicitation(toolbox)
      assert.isTrue(result.isError)
      assert.include(result.content, "the client failed to ask the user")
      assert.notInclude(result.content, "terminal")
      assert.isTrue(logs.logged.some((line) => line.includes("the terminal is gone")))
    }),
  )

  it.effect("answers cancel when the user takes longer than elicitationTimeoutMillis", () =>
    Effect.gen(function* () {
      const asked = yield* Deferred.make<void>()
      const toolbox = yield* everything({ elicitationTimeoutMillis: 60_000 }).pipe(
        Effect.provide(
          user(() => Effect.andThen(Deferred.succeed(asked, undefined), Effect.never)),
        ),
      )
      const call = yield* Effect.forkChild(triggerElicitation(toolbox))
      yield* Deferred.await(asked)
      yield* TestClock.adjust(60_000)
      const result = yield* Fiber.join(call)
      assert.isFalse(result.isError, result.content)
      assert.include(result.content, "User cancelled the elicitation dialog")
    }),
  )

  it.live("interrupts the Elicitation service when the connection closes", () =>
    Effect.gen(function* () {
      const asked = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const scope = yield* Scope.make()
      const toolbox = yield* everything().pipe(
        Effect.provide(
          user(() =>
            Effect.andThen(Deferred.succeed(asked, undefined), Effect.never).pipe(
              Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)),
            ),
          ),
        ),
        Scope.provide(scope),
      )
      const call = yield* Effect.forkChild(triggerElicitation(toolbox))
      yield* Deferred.await(asked)
      yield* Scope.close(scope, Exit.void)
      yield* Deferred.await(interrupted)
      const result = yield* Fiber.join(call)
      assert.isTrue(result.isError)
    }),
  )
})
