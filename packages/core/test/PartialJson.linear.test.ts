import { assert, describe, it } from "@effect/vitest"
import { PartialJson } from "../src/index.js"

/**
 * Sizes at which reading a text more than once per character takes minutes: the reader that went
 * back over the rest of the text at each escape took 12 s for 2 MB and 103 s for the 6 MB here,
 * and reading the whole answer again at each of 100,000 pieces reads 500 GB. Read once, each
 * takes well under a second.
 */
const megabytes = 6
const streamed = 10_000_000
const piece = 100

describe("PartialJson reads each character once", () => {
  it("one call on a string of 6 MB cut short, an escape every 3 bytes", () => {
    const escapes = "a\\n"
    const count = Math.ceil((megabytes * 1_000_000) / escapes.length)
    const text = `{"note": "${escapes.repeat(count)}\\u00`
    const value = PartialJson.parse(text) as { readonly note: string }
    assert.strictEqual(value.note.length, count * 2)
    assert.strictEqual(value.note.slice(0, 4), "a\na\n")
  })

  it("a 10 MB answer read in 100-byte pieces", () => {
    const row = (i: number) =>
      JSON.stringify({ id: i, name: `city "${i}"\n\u00e9`, score: i / 7, tags: ["a", null, true] })
    const rows: Array<string> = []
    let length = 0
    for (let i = 0; length < streamed; i++) {
      rows.push(row(i))
      length += rows[i]!.length + 1
    }
    const text = `{"rows": [${rows.join(",")}], "note": "${"\\u00e9\\n".repeat(100_000)}", "n": ${"7".repeat(100_000)}}`
    const reader = PartialJson.reader()
    let shown: unknown
    for (let at = 0; at < text.length; at += piece) shown = reader.push(text.slice(at, at + piece))
    assert.deepStrictEqual(shown, JSON.parse(text))
  })

  it("a long number alone, read in 100-byte pieces", () => {
    const text = `-1.${"3".repeat(1_000_000)}e-2`
    const reader = PartialJson.reader()
    let shown: unknown
    for (let at = 0; at < text.length; at += piece) shown = reader.push(text.slice(at, at + piece))
    assert.strictEqual(shown, JSON.parse(text))
  })
})
