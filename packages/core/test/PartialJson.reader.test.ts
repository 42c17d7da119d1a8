import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Json, PartialJson } from "../src/index.js"
import { agreesInPieces, agreesOnEveryPrefix, cuts } from "./PartialJson.agree.js"

/** Strings full of what JSON escapes: quotes, backslashes, control characters, astral ones. */
const escapedUnit = fc.constantFrom('"', "\\", "/", "\n", "\t", "\u0001", "\u001f", "é", "😀", "a")

/** JSON values: plain, with any code point (lone surrogates too), and with escapes everywhere. */
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.jsonValue({ maxDepth: 3, stringUnit: "binary" }),
  fc.jsonValue({ maxDepth: 3, stringUnit: escapedUnit }),
)

/** A text of a value: compact, indented, or with every character above ASCII as a `\u` escape. */
const jsonText = fc
  .tuple(value, fc.constantFrom<"compact" | "indented" | "ascii">("compact", "indented", "ascii"))
  .map(([json, style]) => {
    if (style === "indented") return JSON.stringify(json, null, 2)
    const compact = JSON.stringify(json)
    return style === "ascii"
      ? compact.replace(
          /[\u007f-\uffff]/g,
          (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
        )
      : compact
  })

/** Numbers as JSON writes them and longer: signs, fractions, exponents, many digits. */
const numberText = fc
  .tuple(
    fc.constantFrom("", "-"),
    fc.oneof(fc.constant("0"), fc.stringMatching(/^[1-9][0-9]{0,40}$/)),
    fc.option(fc.stringMatching(/^\.[0-9]{1,40}$/), { nil: "" }),
    fc.option(fc.stringMatching(/^[eE][-+]?[0-9]{1,5}$/), { nil: "" }),
  )
  .map((parts) => parts.join(""))

/** Arrays nested around the bound of `Json.maxDepth`, holding a value. */
const deepText = fc
  .tuple(fc.integer({ min: Json.maxDepth - 3, max: Json.maxDepth + 2 }), fc.boolean())
  .map(([depth, objects]) =>
    objects
      ? `${'{"a":'.repeat(depth)}"x"${"}".repeat(depth)}`
      : `${"[".repeat(depth)}1${"]".repeat(depth)}`,
  )

describe("PartialJson.reader", () => {
  it("gives, after each piece, what parse gives for the text so far", () => {
    fc.assert(fc.property(jsonText, cuts, agreesInPieces), { numRuns: 3_000 })
  })

  it("agrees with parse on every prefix, read a character at a time", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          jsonText,
          numberText.map((text) => `[${text}, ${text}]`),
        ),
        agreesOnEveryPrefix,
      ),
      { numRuns: 300 },
    )
  })

  it("reads numbers alone and in arrays as JSON.parse does, at every prefix", () => {
    fc.assert(
      fc.property(numberText, (text) => {
        agreesOnEveryPrefix(text)
        assert.strictEqual(PartialJson.reader().push(text), JSON.parse(text))
      }),
      { numRuns: 1_000 },
    )
  })

  it("refuses, in pieces too, what nests deeper than Json.maxDepth", () => {
    fc.assert(fc.property(deepText, cuts, agreesInPieces), { numRuns: 200 })
  })

  it("keeps the value of a number alone exact past the digits it keeps", () => {
    // 2^53 + 1, halfway between two doubles, until a last digit that tips it up to 2^53 + 2.
    const halfway = `9007199254740993.${"0".repeat(900)}1`
    for (const text of [
      halfway,
      `0.${"0".repeat(2_000)}1e2005`,
      `1${"0".repeat(400)}e-400`,
      `-0.${"0".repeat(1_000)}`,
      `1e${"0".repeat(50)}5`,
      `1e${"9".repeat(40)}`,
      `1e-${"9".repeat(40)}`,
    ]) {
      const reader = PartialJson.reader()
      let shown: unknown
      for (let at = 0; at < text.length; at += 7) shown = reader.push(text.slice(at, at + 7))
      assert.strictEqual(shown, JSON.parse(text), text.slice(0, 40))
    }
  })

  it("says when a piece changed nothing", () => {
    const reader = PartialJson.reader()
    assert.deepStrictEqual(reader.push('{"city": "Ky'), { city: "Ky" })
    assert.isTrue(reader.changed)
    assert.deepStrictEqual(reader.push('oto", "population": 14'), { city: "Kyoto" })
    assert.isTrue(reader.changed)
    assert.deepStrictEqual(reader.push("75"), { city: "Kyoto" })
    assert.isFalse(reader.changed)
    assert.deepStrictEqual(reader.push("000}"), { city: "Kyoto", population: 1_475_000 })
    assert.isTrue(reader.changed)
    assert.strictEqual(reader.push(" and more"), undefined)
    assert.isTrue(reader.changed)
    assert.strictEqual(reader.push("}"), undefined)
    assert.isFalse(reader.changed)
  })

  it("keeps a key named __proto__ as JSON.parse does, in pieces", () => {
    const reader = PartialJson.reader()
    reader.push('{"__pro')
    const value = reader.push('to__": {"admin": true}, "b": "x') as Record<string, unknown>
    assert.deepStrictEqual(Object.keys(value), ["__proto__", "b"])
    assert.strictEqual(Object.getPrototypeOf(value), Object.prototype)
    assert.isUndefined((value as { admin?: unknown }).admin)
  })
})
