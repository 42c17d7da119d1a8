import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Text } from "../src/index.js"

describe("Text", () => {
  it("cuts at the limit, never after the first half of a two-unit character", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.nat(40), (text, limit) => {
        const end = Text.cutPoint(text, limit)
        assert.isAtMost(end, Math.min(limit, text.length))
        assert.isAtLeast(end, Math.min(limit, text.length) - 1)
        if (end > 0 && end < text.length) {
          const wellFormed = [...text.slice(0, end)].join("") === text.slice(0, end)
          assert.isTrue(wellFormed)
          assert.notStrictEqual(text.charCodeAt(end - 1) & 0xfc00, 0xd800)
        }
        const short = Text.shorten(text, limit)
        assert.strictEqual(short, text.length <= limit ? text : `${text.slice(0, end)}…`)
      }),
      { seed: 7, numRuns: 2_000 },
    )
  })
})
