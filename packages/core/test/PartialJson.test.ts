import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Json, PartialJson } from "../src/index.js"

/**
 * Whether `part` is what a reader may show of `whole` before the end: a string that `whole`
 * starts with; an array whose items are `whole`'s first ones, all whole but the last; an object
 * with some of `whole`'s keys, each a part of its value and all whole but one; any other value
 * itself. `undefined` is a part of anything.
 */
const isPartOf = (part: unknown, whole: unknown): boolean => {
  if (part === undefined) return true
  if (typeof whole === "string") return typeof part === "string" && whole.startsWith(part)
  if (Array.isArray(whole)) {
    if (!Array.isArray(part) || part.length > whole.length) return false
    return part.every((item, i) =>
      i === part.length - 1 ? isPartOf(item, whole[i]) : equal(item, whole[i]),
    )
  }
  if (Json.isObject(whole)) {
    if (!Json.isObject(part)) return false
    let unfinished = 0
    for (const key of Object.keys(part)) {
      if (!Object.hasOwn(whole, key) || !isPartOf(part[key], whole[key])) return false
      if (!equal(part[key], whole[key])) unfinished++
    }
    return unfinished <= 1
  }
  return equal(part, whole)
}

const equal = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** A JSON value and a text of it, compact, indented, or with its strings escaped. */
const jsonText = fc
  .tuple(
    fc.jsonValue({ maxDepth: 4 }),
    fc.constantFrom<"compact" | "indented" | "ascii">("compact", "indented", "ascii"),
  )
  .map(([value, style]) => {
    const compact = JSON.stringify(value)
    if (style === "indented") return JSON.stringify(value, null, 2)
    // Every character above ASCII as an \u escape, so that escapes are cut as often as text.
    return style === "ascii"
      ? compact.replace(
          /[\u007f-\uffff]/g,
          (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
        )
      : compact
  })

describe("PartialJson.parse", () => {
  it("shows what a streamed answer holds so far", () => {
    assert.deepStrictEqual(PartialJson.parse('{"city": "Kyo'), { city: "Kyo" })
    assert.deepStrictEqual(PartialJson.parse('{"city": "Kyoto", "population": 14'), {
      city: "Kyoto",
    })
    assert.deepStrictEqual(PartialJson.parse('{"tags": ["a", "b'), { tags: ["a", "b"] })
    assert.deepStrictEqual(PartialJson.parse('{"ok": tru'), {})
    assert.deepStrictEqual(PartialJson.parse('{"ok": true, "n'), { ok: true })
    assert.deepStrictEqual(PartialJson.parse('{"name": "caf\\u00'), { name: "caf" })
    assert.deepStrictEqual(PartialJson.parse("{"), {})
    assert.strictEqual(PartialJson.parse(""), undefined)
  })

  it("refuses what is not the start of a JSON text", () => {
    for (const text of [
      "Sure! {",
      '{"a": 1} and more',
      '{"a" 1',
      "[1,,",
      '{"a": 01',
      '"\u0001',
      "nul l",
    ]) {
      assert.strictEqual(PartialJson.parse(text), undefined, text)
    }
  })

  it("keeps a key named __proto__ as JSON.parse does", () => {
    const value = PartialJson.parse('{"__proto__": {"admin": true}, "b": "x') as Record<
      string,
      unknown
    >
    assert.deepStrictEqual(Object.keys(value), ["__proto__", "b"])
    assert.strictEqual(Object.getPrototypeOf(value), Object.prototype)
    assert.isUndefined((value as { admin?: unknown }).admin)
  })

  it("refuses text that nests deeper than Json.maxDepth", () => {
    assert.strictEqual(PartialJson.parse("[".repeat(Json.maxDepth + 1)), undefined)
    assert.deepStrictEqual(PartialJson.parse(`${"[".repeat(3)}1`), [[[]]])
  })

  it("every prefix gives a part of the whole, a part of what a longer prefix gives, and the whole text the value", () => {
    fc.assert(
      fc.property(jsonText, fc.array(fc.nat(), { minLength: 2, maxLength: 6 }), (text, cuts) => {
        const whole = JSON.parse(text)
        assert.isTrue(equal(PartialJson.parse(text), whole))
        // A number alone is whole at every digit ("-5" of "-5e-324"): no prefix can tell.
        if (typeof whole === "number") return
        const [shorter, longer] = cuts
          .map((cut) => cut % (text.length + 1))
          .sort((a, b) => a - b)
          .filter((_, i, all) => i === 0 || i === all.length - 1)
          .map((cut) => PartialJson.parse(text.slice(0, cut)))
        assert.isTrue(isPartOf(shorter, whole), JSON.stringify({ text, shorter }))
        assert.isTrue(isPartOf(longer, whole), JSON.stringify({ text, longer }))
        assert.isTrue(isPartOf(shorter, longer ?? whole), JSON.stringify({ shorter, longer }))
      }),
      { numRuns: 5_000 },
    )
  })

  it("a prefix of an object or an array always shows something", () => {
    fc.assert(
      fc.property(
        fc
          .oneof(fc.object({ maxDepth: 3 }), fc.array(fc.jsonValue({ maxDepth: 3 })))
          .map((value) => JSON.stringify(value)),
        fc.nat(),
        (text, cut) => {
          const at = 1 + (cut % text.length)
          assert.isDefined(PartialJson.parse(text.slice(0, at)))
        },
      ),
      { numRuns: 2_000 },
    )
  })

  it("never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'{}[]":,\\ u0a1tnelrfs-.e+') }), (text) => {
        PartialJson.parse(text)
      }),
      { numRuns: 5_000 },
    )
  })
})
