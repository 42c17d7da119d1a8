import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import * as fc from "fast-check"
import { Json, ToolCall, ToolResult } from "../src/index.js"
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

  const messageOf = (read: Result.Result<unknown, ToolCall.ArgumentsError>): string =>
    Result.isFailure(read) ? read.failure.message : "no error"

  const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`

  it("refuses arguments nested 100,000 levels deep, valid or not, with an ArgumentsError", () => {
    for (const text of [
      "[".repeat(100_000),
      `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
      nested(100_000),
      `${'{"a":'.repeat(100_000)}x`,
    ]) {
      const read = ToolCall.readJson(text)
      assert.isTrue(Result.isFailure(read))
      assert.strictEqual(messageOf(read), "arguments nest deeper than 128 levels")
    }
  })

  const Tree = Schema.Struct({
    a: Schema.Union([Schema.Number, Schema.suspend((): Schema.Codec<unknown> => Tree)]),
  })

  it.effect("decodes a recursive schema at the nesting limit, and refuses one level more", () =>
    Effect.gen(function* () {
      const at = yield* ToolCall.parse(ToolCall.make("c1", "tree", nested(Json.maxDepth)), Tree)
      assert.strictEqual(Json.valueDepth(at), Json.maxDepth)
      for (const levels of [Json.maxDepth + 1, 100_000]) {
        const error = yield* Effect.flip(
          ToolCall.parse(ToolCall.make("c2", "tree", nested(levels)), Tree),
        )
        assert.strictEqual(error.message, "arguments nest deeper than 128 levels")
      }
    }),
  )

  it("finds where 100,000 levels of nesting break, without recursion", () => {
    assert.strictEqual(errorOffset("[".repeat(100_000)), 100_000)
    assert.strictEqual(errorOffset(`${"[".repeat(100_000)}x`), 100_000)
    assert.strictEqual(errorOffset(`${"[".repeat(100_000)}${"]".repeat(100_000)}`), 200_000)
  })

  it("lists a few issues, each cut short, and counts the rest", () => {
    const many = Array.from({ length: 1_000 }, (_, i) => ({
      path: ["items", i],
      message: `Expected number, got "${"x".repeat(100_000)}"`,
    }))
    const error = ToolCall.argumentsError(many)
    assert.strictEqual(error.issues.length, 5)
    assert.isAtMost(error.message.length, 4_096)
    assert.match(error.message, /^items\[0\]: Expected number, got "x+…; items\[1\]/)
    assert.isTrue(error.message.endsWith("; and 995 more"))
    const longPath = ToolCall.argumentsError([
      { path: ["k".repeat(100_000)], message: "Missing key" },
    ])
    assert.isAtMost(longPath.message.length, 4_096)
    const standard = ToolCall.standardArgumentsError(many)
    assert.strictEqual(standard.message, error.message)
  })

  it("cuts a message short without splitting a character in two", () => {
    const error = ToolCall.argumentsError([{ path: [], message: "😀".repeat(1_000) }])
    assert.notMatch(error.message, /\p{Cs}/u, "no half of a character")
    assert.isTrue(error.message.endsWith("😀…"))
  })

  it("bounds the message of text that is not JSON, however long", () => {
    const message = messageOf(
      ToolCall.readJson(`{"a": "${"x".repeat(1_000_000)}" ${"y".repeat(1_000_000)}`),
    )
    assert.include(message, "arguments are not valid JSON")
    assert.isAtMost(message.length, 4_096)
  })

  it.effect("lists every issue of small arguments, and only the first of large ones", () =>
    Effect.gen(function* () {
      const Items = Schema.Struct({ items: Schema.Array(Schema.Int) })
      const small = JSON.stringify({ items: ["a", "b", "c", "d", "e", "f", "g"] })
      const few = yield* Effect.flip(ToolCall.parse(ToolCall.make("c1", "sum", small), Items))
      assert.strictEqual(
        few.message,
        'items[0]: Expected number, got "a"; items[1]: Expected number, got "b"; items[2]: Expected number, got "c"; items[3]: Expected number, got "d"; items[4]: Expected number, got "e"; and 2 more',
      )
      const large = JSON.stringify({ items: Array.from({ length: 1_000_000 }, () => "abcdefg") })
      const first = yield* Effect.flip(ToolCall.parse(ToolCall.make("c2", "sum", large), Items))
      assert.strictEqual(first.message, 'items[0]: Expected number, got "abcdefg"')
    }),
  )
})

describe("ToolCall.shownName", () => {
  it("cuts a long name the model wrote, and a text that quotes it stays short", () => {
    const huge = "x".repeat(1_000_000)
    assert.strictEqual(ToolCall.shownName("weather"), "weather")
    assert.strictEqual(ToolCall.shownName(huge), `${"x".repeat(64)}…`)
    assert.isBelow(ToolResult.unknownTool("c", huge, ["weather"]).content.length, 120)
  })

  it("never ends on half of a two-unit character", () => {
    const name = `${"a".repeat(63)}😀tail`
    assert.strictEqual(ToolCall.shownName(name), `${"a".repeat(63)}…`)
  })
})
