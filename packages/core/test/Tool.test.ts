import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fc from "fast-check"
import { Tool } from "../src/index.js"

describe("Tool", () => {
  it("sends an empty object schema for a tool that takes no arguments", () => {
    const now = Tool.make("now", "The current time, UTC.")
    assert.deepStrictEqual(now.inputSchema, { type: "object", properties: {} })
  })

  it("keeps a hand-written schema as given", () => {
    const schema = { type: "object", properties: { id: { type: "integer" } }, required: ["id"] }
    assert.strictEqual(Tool.make("lookup", "Find an order.", schema).inputSchema, schema)
  })

  it("says why a name is refused", () => {
    assert.isUndefined(Tool.nameProblem("read_file-2"))
    assert.include(Tool.nameProblem("")!, "empty")
    assert.include(Tool.nameProblem("read file")!, '" " at position 4')
    assert.include(Tool.nameProblem("files.read")!, '"." at position 5')
    assert.include(Tool.nameProblem("x".repeat(65))!, "65 characters long")
    assert.include(Tool.nameProblem("é")!, "1 to 64 characters of a-z")
  })

  it("accepts exactly the names servers accept", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (name) => {
        const accepted = /^[a-zA-Z0-9_-]{1,64}$/.test(name)
        assert.strictEqual(Tool.nameProblem(name) === undefined, accepted)
      }),
    )
  })

  it.effect("validate fails with Unsupported for a refused name", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Tool.validate(Tool.make("a b", "spaces")))
      assert.isTrue(Exit.isFailure(exit))
      const error = yield* Effect.flip(Tool.validate(Tool.make("a b", "spaces")))
      assert.strictEqual(error.reason._tag, "Unsupported")
      const ok = yield* Tool.validate(Tool.make("ab", "fine"))
      assert.strictEqual(ok.name, "ab")
    }),
  )
})
