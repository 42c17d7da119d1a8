import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Completion } from "../src/index.js"

const count = fc.nat({ max: 1_000_000 })
const usage: fc.Arbitrary<Completion.Usage> = fc.record(
  {
    input: count,
    output: count,
    total: count,
    cachedInput: count,
    reasoning: count,
    audioInput: count,
    audioOutput: count,
  },
  { requiredKeys: ["input", "output", "total"] },
)
const details = ["cachedInput", "reasoning", "audioInput", "audioOutput"] as const

describe("Completion.addUsage", () => {
  it("sums the counts and keeps a detail that only one side has", () => {
    const turn1 = { input: 100, output: 20, total: 120, cachedInput: 64 }
    const turn2 = { input: 130, output: 10, total: 140, reasoning: 4, audioOutput: 0 }
    assert.deepStrictEqual(Completion.addUsage(turn1, turn2), {
      input: 230,
      output: 30,
      total: 260,
      cachedInput: 64,
      reasoning: 4,
      audioOutput: 0,
    })
  })

  it("leaves a detail out only when both sides leave it out", () => {
    const sum = Completion.addUsage(
      { input: 1, output: 2, total: 3 },
      { input: 4, output: 5, total: 9 },
    )
    assert.deepStrictEqual(sum, { input: 5, output: 7, total: 12 })
    assert.isFalse("reasoning" in sum)
  })

  it("is a field-by-field sum: associative, commutative, with the zero usage as identity", () => {
    const zero = { input: 0, output: 0, total: 0 }
    fc.assert(
      fc.property(usage, usage, usage, (a, b, c) => {
        const sum = Completion.addUsage(Completion.addUsage(a, b), c)
        assert.deepStrictEqual(sum, Completion.addUsage(a, Completion.addUsage(b, c)))
        assert.deepStrictEqual(Completion.addUsage(a, b), Completion.addUsage(b, a))
        assert.deepStrictEqual(Completion.addUsage(a, zero), a)
        assert.strictEqual(sum.input, a.input + b.input + c.input)
        for (const detail of details) {
          const present = [a, b, c].filter((u) => u[detail] !== undefined)
          assert.strictEqual(
            sum[detail],
            present.length === 0 ? undefined : present.reduce((n, u) => n + (u[detail] ?? 0), 0),
          )
        }
      }),
    )
  })
})
