import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Pieces } from "../src/index.js"

const runs = Number(process.env.SVIR_FUZZ_RUNS ?? 10_000)

describe("Pieces", () => {
  it("joins to the pieces in order, across runs, and is empty while nothing but empty pieces came", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 3 }),
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 1_100 }),
        (first, pieces) => {
          const text = Pieces.make(first)
          for (const piece of pieces) text.add(piece)
          const whole = first + pieces.join("")
          assert.strictEqual(text.join(), whole)
          assert.strictEqual(text.empty, whole === "")
        },
      ),
      { numRuns: Math.min(runs, 300), seed: 2203 },
    )
  })

  it("keeps a run's worth of pieces and more, exactly", () => {
    const text = Pieces.make()
    const pieces = Array.from({ length: 256 * 3 + 7 }, (_, i) => String.fromCharCode(97 + (i % 26)))
    for (const piece of pieces) text.add(piece)
    assert.strictEqual(text.join(), pieces.join(""))
    assert.isFalse(text.empty)
  })
})
