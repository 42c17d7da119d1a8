import { assert, describe, it } from "@effect/vitest"
import { Exit, Schema } from "effect"
import * as fc from "fast-check"
import { plainStructCheck } from "../../src/internal/schemaAst/quickCheck.js"

const Plain = Schema.Struct({
  name: Schema.String.check(Schema.isMinLength(2)),
  kind: Schema.Literals(["a", "b"]),
  score: Schema.NullOr(Schema.Finite),
  counts: Schema.Array(Schema.Int),
  flag: Schema.optionalKey(Schema.Boolean),
  big: Schema.Int.check(Schema.isGreaterThan(10)),
})

const decode = Schema.decodeUnknownExit(Schema.toCodecJson(Plain), { onExcessProperty: "error" })
const check = plainStructCheck(Plain.ast)

const valid = fc.record(
  {
    name: fc.string({ minLength: 2 }),
    kind: fc.constantFrom("a", "b"),
    score: fc.oneof(fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true })),
    counts: fc.array(fc.integer()),
    flag: fc.boolean(),
    big: fc.integer({ min: 11 }),
  },
  { requiredKeys: ["name", "kind", "score", "counts", "big"] },
)

/** A wrong or odd value for any field, or a field left out or added. */
const mutation = fc.record({
  field: fc.constantFrom("name", "kind", "score", "counts", "flag", "big", "extra"),
  to: fc.oneof(
    fc.constant(undefined),
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom("NaN", "Infinity", 1.5, 10, "a", "", "x", [1.5], [null], -0),
  ),
})

const value = fc.tuple(valid, fc.array(mutation, { maxLength: 2 })).map(([base, mutations]) => {
  const out: Record<string, unknown> = { ...base }
  for (const { field, to } of mutations) {
    if (to === undefined) delete out[field]
    else out[field] = to
  }
  return out
})

describe("the quick check of plain fields", () => {
  it("applies to a struct of plain fields only", () => {
    assert.isDefined(check)
    assert.isUndefined(plainStructCheck(Schema.Struct({ at: Schema.Date }).ast))
    assert.isUndefined(plainStructCheck(Schema.Struct({ inner: Plain }).ast))
  })

  it("passes exactly the values decoding gives back unchanged, valid and invalid alike", () => {
    let passed = 0
    let failed = 0
    fc.assert(
      fc.property(value, (json) => {
        const exit = decode(json)
        if (check!(json)) {
          passed++
          assert.isTrue(Exit.isSuccess(exit))
          if (Exit.isSuccess(exit)) assert.deepStrictEqual(exit.value, json)
        } else {
          failed++
          // What it does not pass is decoded in full; a value decoding takes as it is must pass.
          if (Exit.isSuccess(exit)) assert.notDeepEqual(exit.value, json)
        }
      }),
      { numRuns: 5_000, seed: 611 },
    )
    // Both sides are reached often.
    assert.isAbove(passed, 1_000)
    assert.isAbove(failed, 1_000)
  })
})
