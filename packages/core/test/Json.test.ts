import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { Json } from "../src/index.js"

const runs = Number(process.env.SVIR_FUZZ_RUNS ?? 10_000)

/** Nesting of a parsed value by the obvious recursive definition, for small values. */
const naiveDepth = (value: unknown): number =>
  typeof value !== "object" || value === null
    ? 0
    : 1 + Math.max(0, ...(Array.isArray(value) ? value : Object.values(value)).map(naiveDepth))

describe("Json", () => {
  it("refuses 100,000 levels of nesting as TooDeep, without a RangeError", () => {
    for (const text of [
      "[".repeat(100_000),
      `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
      `{"a":`.repeat(100_000),
    ]) {
      const read = Json.parse(text)
      assert.isTrue(Result.isFailure(read))
      if (Result.isFailure(read)) assert.strictEqual(read.failure.reason, "TooDeep")
    }
  })

  it("reads JSON at the limit and refuses one level more", () => {
    const at = `${"[".repeat(Json.maxDepth)}${"]".repeat(Json.maxDepth)}`
    const past = `[${at}]`
    assert.isTrue(Result.isSuccess(Json.parse(at)))
    assert.isTrue(Result.isFailure(Json.parse(past)))
  })

  it("says Syntax for text that is not JSON", () => {
    const read = Json.parse('{"a": }')
    assert.isTrue(Result.isFailure(read) && read.failure.reason === "Syntax")
  })

  it("does not count brackets inside strings", () => {
    assert.strictEqual(Json.textDepth('["[[[\\"[[", {"k]": "{{"}]'), 2)
  })

  it("measures a deep value without recursion, and a value that refers to itself ends", () => {
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = [deep]
    assert.strictEqual(Json.valueDepth(deep), 100_000)
    assert.strictEqual(Json.valueDepth(deep, 10), 11)
    const loop: Record<string, unknown> = {}
    loop.self = loop
    assert.strictEqual(Json.valueDepth(loop, 50), 51)
  })

  it("text depth and value depth agree with the recursive definition on any JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        const text = JSON.stringify(value)
        const expected = naiveDepth(value)
        assert.strictEqual(Json.textDepth(text), expected)
        assert.strictEqual(Json.valueDepth(value), expected)
        const read = Json.parse(text, expected)
        assert.isTrue(Result.isSuccess(read))
        if (expected > 0) assert.isTrue(Result.isFailure(Json.parse(text, expected - 1)))
      }),
      { numRuns: Math.min(runs, 2_000), seed: 1811 },
    )
  })

  it("parseValue gives what parse gives, unwrapped, at any limit, with brackets in strings or not", () => {
    const bracketed = fc.stringMatching(/^[[\]{}a"\\ ]{0,300}$/)
    const text = fc.oneof(
      fc.jsonValue({ maxDepth: 8 }).map((value) => JSON.stringify(value)),
      fc
        .tuple(fc.nat(200), fc.nat(200), bracketed)
        .map(
          ([open, close, inner]) =>
            `${"[".repeat(open)}${JSON.stringify(inner)}${"]".repeat(close)}`,
        ),
      bracketed,
    )
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 160 }), (text, limit) => {
        const value = Json.parseValue(text, limit)
        const deep = Json.textDepth(text) > limit
        let expected: unknown
        let syntax = false
        try {
          expected = JSON.parse(text)
        } catch {
          syntax = true
        }
        if (deep || syntax) {
          assert.instanceOf(value, Json.JsonError)
          if (value instanceof Json.JsonError) {
            assert.strictEqual(value.reason, deep ? "TooDeep" : "Syntax")
          }
        } else {
          assert.deepStrictEqual(value, expected)
        }
        const read = Json.parse(text, limit)
        assert.deepStrictEqual(Result.isSuccess(read) ? read.success : read.failure, value)
      }),
      { numRuns: Math.min(runs, 2_000), seed: 3407 },
    )
  })

  it("parseValue reads a shallow text with hundreds of brackets in its strings", () => {
    const text = JSON.stringify({ note: "[{".repeat(500) })
    assert.deepStrictEqual(Json.parseValue(text), { note: "[{".repeat(500) })
  })

  it("isObject holds for objects only", () => {
    assert.isTrue(Json.isObject({}))
    assert.isFalse(Json.isObject([]))
    assert.isFalse(Json.isObject(null))
    assert.isFalse(Json.isObject("x"))
  })
})
