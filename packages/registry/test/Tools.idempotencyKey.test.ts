import { assert, describe, it } from "@effect/vitest"
import { IdempotencyKey, Toolbox, ToolCall } from "@svir/core"
import { type Arguments, Permission, Tools, Toolset } from "@svir/registry"
import { Effect, Schema } from "effect"

const Empty = Schema.Struct({})

/** A registry whose tools answer with the key their handler was given, each in its own way. */
const keyTools = Tools.empty.pipe(
  Tools.add("now", "Answers at once.", Empty, (_args, _call, { idempotencyKey }) =>
    String(idempotencyKey),
  ),
  Tools.add("promise", "Answers later.", Empty, async (_args, _call, options) => {
    // Read after an await, when the fiber that called the handler has moved on.
    await Promise.resolve()
    return String(options.idempotencyKey)
  }),
  Tools.add("effect", "Answers with an Effect.", Empty, (_args, _call, { idempotencyKey }) =>
    Effect.succeed(String(idempotencyKey)),
  ),
)

const callsOf = (names: ReadonlyArray<string>) =>
  names.map((name, i) => ToolCall.make(`c${i}`, name, "{}"))

const contents = (results: ReadonlyArray<{ readonly content: string }>) =>
  results.map((result) => result.content)

describe("a handler's idempotencyKey", () => {
  it.effect("is undefined when the caller set none", () =>
    Effect.gen(function* () {
      const results = yield* Tools.callAll(keyTools, callsOf(["now", "promise", "effect"]))
      assert.deepStrictEqual(contents(results), ["undefined", "undefined", "undefined"])
    }),
  )

  it.effect("is the key set with IdempotencyKey.within, however the handler answers", () =>
    Effect.gen(function* () {
      const results = yield* Tools.callAll(keyTools, callsOf(["now", "promise", "effect"])).pipe(
        IdempotencyKey.within("run-1/3/call_1"),
      )
      assert.deepStrictEqual(contents(results), [
        "run-1/3/call_1",
        "run-1/3/call_1",
        "run-1/3/call_1",
      ])
      const one = yield* IdempotencyKey.within(
        Tools.call(keyTools, ToolCall.make("c", "now", "{}")),
        "run-1/4/call_2",
      )
      assert.strictEqual(one.content, "run-1/4/call_2")
    }),
  )

  it.effect("is each call's own when calls run concurrently under different keys", () =>
    Effect.gen(function* () {
      const results = yield* Effect.forEach(
        ["a", "b", "c"],
        (key) =>
          IdempotencyKey.within(
            Toolbox.callSafely(keyTools, ToolCall.make(key, "promise", "{}")),
            key,
          ),
        { concurrency: "unbounded" },
      )
      assert.deepStrictEqual(contents(results), ["a", "b", "c"])
    }),
  )

  it.effect("reaches a toolset's methods, a guarded registry and arguments decoded later", () =>
    Effect.gen(function* () {
      const toolset = Toolset.tools(
        Toolset.make<{ readonly name: string }>().pipe(
          Toolset.add(
            "keyed",
            "Says the key.",
            Empty,
            (self, _args, _call, options) => `${self.name} ${options.idempotencyKey}`,
          ),
        ),
        { name: "set" },
      )
      const Later: Arguments.StandardArguments<object> = {
        "~standard": {
          version: 1,
          vendor: "test",
          validate: async () => ({ value: {} }),
          jsonSchema: { input: () => ({ type: "object" }), output: () => ({}) },
        },
      }
      const later = Tools.empty.pipe(
        Tools.add("later", "Decodes later.", Later, (_args, _call, { idempotencyKey }) =>
          String(idempotencyKey),
        ),
      )
      const guarded = Permission.guard(keyTools)
      const results = yield* Effect.all([
        Tools.call(toolset, ToolCall.make("1", "keyed", "{}")),
        Tools.call(later, ToolCall.make("2", "later", "{}")),
        Tools.call(guarded, ToolCall.make("3", "now", "{}")),
      ]).pipe(IdempotencyKey.within("k"), Effect.provide(Permission.layer({})))
      assert.deepStrictEqual(contents(results), ["set k", "k", "k"])
    }),
  )
})
