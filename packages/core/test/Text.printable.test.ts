import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Text } from "../src/index.js"

/** What no printable text holds: controls but tab and line feed, and the bidirectional controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what the test looks for
const control = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/

/** Text with no control in it. */
const plain = fc
  .string({ unit: "grapheme" })
  .map((text) => [...text].filter((char) => !control.test(char)).join(""))

/** Whole sequences a terminal acts on, in the forms programs write them. */
const sequence = fc.oneof(
  fc
    .tuple(
      fc.constantFrom("\x1b[", "\x9b"),
      fc.stringMatching(/^[0-9;?]{0,8}$/),
      fc.constantFrom("m", "A", "K", "H", "J", "~"),
    )
    .map((parts) => parts.join("")),
  fc
    .tuple(
      fc.constantFrom("\x1b]", "\x9d", "\x1bP", "\x1b_", "\x1b^", "\x1bX"),
      fc.stringMatching(/^[0-9;]{0,4}[a-z:/.]{0,12}$/),
      fc.constantFrom("\x07", "\x1b\\", "\x9c"),
    )
    .map((parts) => parts.join("")),
  fc.constantFrom(
    "\x1bc",
    "\x1b7",
    "\x1b8",
    "\x1b(B",
    "\x1b=",
    "\x07",
    "\r",
    "\b",
    "\x00",
    "\x7f",
    "\x85",
    "\u202e",
    "\u2066",
  ),
)

describe("Text.printable", () => {
  it("takes out every whole sequence and keeps the text around it", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(plain, sequence)), plain, (pieces, last) => {
        const text = pieces.map(([words, controls]) => words + controls).join("") + last
        const expected = pieces.map(([words]) => words).join("") + last
        assert.strictEqual(Text.printable(text), expected)
      }),
      { seed: 11, numRuns: 2_000 },
    )
  })

  it("leaves no control in any text, and changes nothing in what it gives", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const shown = Text.printable(text)
        assert.isFalse(control.test(shown), JSON.stringify(shown))
        assert.strictEqual(Text.printable(shown), shown)
      }),
      { seed: 12, numRuns: 5_000 },
    )
  })

  it("keeps tab and line feed, and a carriage return's line feed", () => {
    assert.strictEqual(Text.printable("a\tb\r\nc\n"), "a\tb\nc\n")
  })

  it("reads a megabyte of sequences left open in one pass", () => {
    // Each of these would cost minutes if a match were tried again from every start.
    const many = 250_000
    const cases: ReadonlyArray<readonly [string, string]> = [
      // A string left open runs to the next ESC, the last one to the end.
      [`${"\x1b]".repeat(many)}end`, ""],
      [`${"\x1b[1".repeat(many)}\nend`, "\nend"],
      [`${"\x1b".repeat(many)}\nend`, "\nend"],
      [`${"\x9b;".repeat(many)}\nend`, "\nend"],
      [`${"\x1bP\x1b".repeat(many)}\nend`, "\nend"],
    ]
    for (const [text, kept] of cases) assert.strictEqual(Text.printable(text), kept)
  })
})
