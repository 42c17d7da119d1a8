import { assert, describe, it } from "@effect/vitest"
import { SvirError, ToolCall } from "@svir/core"
import { Permission, Tools } from "@svir/registry"
import { Cause, Effect, Exit, Schema } from "effect"
import * as z from "zod"

/** The defect listing the tools dies with, as a SvirError. */
const listingDefect = <R>(tools: Tools.Tools<R>): SvirError.SvirError => {
  const exit = Effect.runSyncExit(tools.tools as Effect.Effect<unknown>)
  assert.isTrue(Exit.isFailure(exit), "listing the tools should die")
  const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
  assert.isTrue(SvirError.isSvirError(defect))
  return defect as SvirError.SvirError
}

describe("Tools.add takes object arguments only", () => {
  it("a schema that is not an object does not compile, and listing such a tool dies saying why", () => {
    const shout = Tools.empty.pipe(
      // @ts-expect-error OpenAI's function parameters must be an object
      Tools.add("shout", "Shout a word.", Schema.String, (word: string) => word.toUpperCase()),
    )
    const error = listingDefect(shout)
    assert.strictEqual(error.reason._tag, "Config")
    assert.strictEqual(
      error.message,
      'the tool shout cannot be registered: OpenAI\'s function parameters must be an object (type "object"), and the schema of its arguments is of type "string", not an object: describe the arguments with Schema.Struct or z.object, one field each',
    )
    const zodShout = Tools.empty.pipe(
      // @ts-expect-error the same for zod
      Tools.add("shout", "Shout a word.", z.string(), (word: string) => word.toUpperCase()),
    )
    assert.strictEqual(listingDefect(zodShout).message, error.message)
    const list = Tools.add(
      Tools.empty,
      "sum",
      "Add numbers.",
      // @ts-expect-error an array is not an object here
      Schema.Array(Schema.Finite),
      (numbers: ReadonlyArray<number>) => numbers.reduce((a, b) => a + b, 0),
    )
    assert.include(listingDefect(list).message, 'of type "array", not an object')
  })

  it("a union of structs compiles, but listing it dies: OpenAI refuses anyOf at the top", () => {
    const either = Schema.Union([
      Schema.Struct({ id: Schema.String }),
      Schema.Struct({ email: Schema.String }),
    ])
    const find = Tools.empty.pipe(
      Tools.add("find", "Find a user.", either, (key) => ("id" in key ? key.id : key.email)),
      Tools.add("now", "The time.", Schema.Struct({}), () => "12:00"),
    )
    assert.include(listingDefect(find).message, "is a union (anyOf), not one object")
    // Guarded, it dies the same way.
    const guarded = Permission.guard(find).pipe(
      Effect.succeed,
      Effect.flatMap((tools) => tools.tools),
      Effect.provide(Permission.layer({})),
    )
    assert.isTrue(Exit.isFailure(Effect.runSyncExit(guarded)))
  })

  it.effect("structs, records, zod objects and a struct with an identifier are taken", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(
        Tools.add("a", "A.", Schema.Struct({ x: Schema.String }), ({ x }) => x),
        Tools.add("b", "B.", Schema.Record(Schema.String, Schema.Int), (counts) =>
          Object.keys(counts).join(),
        ),
        Tools.add("c", "C.", z.object({ x: z.string() }), ({ x }) => x),
        Tools.add(
          "d",
          "D.",
          Schema.Struct({ x: Schema.String }).annotate({ identifier: "Args" }),
          ({ x }) => x,
        ),
      )
      const listed = yield* tools.tools
      assert.deepStrictEqual(
        listed.map((tool) => tool.name),
        ["a", "b", "c", "d"],
      )
      const result = yield* Tools.call(tools, ToolCall.make("1", "d", '{"x": "hi"}'))
      assert.strictEqual(result.content, "hi")
    }),
  )
})
