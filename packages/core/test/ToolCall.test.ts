import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import * as fc from "fast-check"
import { ToolCall } from "../src/index.js"
import { errorOffset } from "../src/internal/jsonSyntax.js"

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

describe("ToolCall", () => {
  it("reads empty and blank arguments as {}", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[ \t\r\n]*$/), (blank) => {
        assert.deepStrictEqual(ToolCall.readJson(blank), Result.succeed({}))
      }),
    )
  })

  it("never throws, whatever the arguments", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.string({ unit: "binary" })), (text) => {
        const result = ToolCall.readJson(text)
        assert.strictEqual(Result.isSuccess(result), text.trim() === "" || isJson(text))
      }),
    )
  })

  it("reads JSON arguments as their value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const read = ToolCall.readJson(JSON.stringify(value))
        assert.deepStrictEqual(read, Result.succeed(JSON.parse(JSON.stringify(value))))
      }),
    )
  })

  it("says where text that is not JSON broke", () => {
    const failure = Result.getFailure(ToolCall.readJson('{"city": "Paris",\n "days": }'))
    assert.isTrue(failure._tag === "Some")
    const message = failure._tag === "Some" ? failure.value.message : ""
    assert.include(message, "arguments are not valid JSON")
    assert.include(message, 'unexpected "}" at line 2, column 10')
  })

  it("says when the text ends too soon", () => {
    const failure = Result.getFailure(ToolCall.readJson('{"city": "Par'))
    assert.include(failure._tag === "Some" ? failure.value.message : "", "the text ends")
  })

  it("finds the end of valid JSON", () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        assert.strictEqual(errorOffset(text), text.length)
      }),
    )
  })

  it("places the break of cut-off JSON at its end", () => {
    fc.assert(
      fc.property(fc.json(), fc.nat(), (text, at) => {
        const cut = text.slice(0, at % (text.length + 1))
        fc.pre(cut.trim() !== "" && !isJson(cut))
        assert.strictEqual(errorOffset(cut), cut.length)
      }),
    )
  })

  it("places the break at a character no JSON can have there", () => {
    assert.strictEqual(errorOffset('{"a": 1,}'), 8)
    assert.strictEqual(errorOffset("[1, 2 3]"), 6)
    assert.strictEqual(errorOffset('{"a" 1}'), 5)
    assert.strictEqual(errorOffset('"tab\\q"'), 5)
    assert.strictEqual(errorOffset("{} x"), 3)
  })

  const Lookup = Schema.Struct({ id: Schema.Int, note: Schema.optional(Schema.String) })

  it.effect("decodes arguments with a schema", () =>
    Effect.gen(function* () {
      const args = yield* ToolCall.parse(ToolCall.make("c1", "lookup", '{"id": 42}'), Lookup)
      assert.deepStrictEqual(args, { id: 42 })
      const empty = yield* ToolCall.parse(
        ToolCall.make("c2", "now", "  "),
        Schema.Struct({ tz: Schema.optional(Schema.String) }),
      )
      assert.deepStrictEqual(empty, {})
    }),
  )

  it.effect("names every field that does not fit", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        ToolCall.parse(ToolCall.make("c1", "lookup", '{"note": 5}'), Lookup),
      )
      assert.strictEqual(error._tag, "ArgumentsError")
      assert.deepStrictEqual(
        error.issues.map((issue) => issue.path),
        [["id"], ["note"]],
      )
      assert.include(error.message, "id: Missing key")
      assert.include(error.message, "note: Expected string")
    }),
  )

  it("formats nested paths for a model to read", () => {
    const error = ToolCall.argumentsError([
      { path: ["items", 2, "qty"], message: "Expected number" },
      { path: [], message: "Expected an object" },
    ])
    assert.strictEqual(error.message, "items[2].qty: Expected number; Expected an object")
  })

  it("reads Standard Schema issues with object path segments", () => {
    const error = ToolCall.standardArgumentsError([
      { message: "Required", path: [{ key: "city" }] },
      { message: "Too small", path: ["days"] },
    ])
    assert.strictEqual(error.message, "city: Required; days: Too small")
  })
})
