import { assert, describe, it } from "@effect/vitest"
import { Exit, Schema } from "effect"
import * as fc from "fast-check"
import { jsonNumbersOnly } from "../../src/internal/schemaAst/jsonNumbers.js"

/** The shape of a schema: numbers, strings and booleans in structs, arrays and unions. */
type Shape =
  | { readonly kind: "number" | "finite" | "string" | "boolean" }
  | { readonly kind: "array"; readonly item: Shape }
  | { readonly kind: "union"; readonly members: readonly [Shape, Shape] }
  | { readonly kind: "struct"; readonly a: Shape; readonly b: Shape; readonly optional: boolean }

const shapes: fc.Arbitrary<Shape> = fc.letrec<{ shape: Shape }>((tie) => ({
  shape: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<Shape>(
      { kind: "number" },
      { kind: "finite" },
      { kind: "string" },
      { kind: "boolean" },
    ),
    tie("shape").map((item): Shape => ({ kind: "array", item })),
    fc.tuple(tie("shape"), tie("shape")).map((members): Shape => ({ kind: "union", members })),
    fc
      .tuple(tie("shape"), tie("shape"), fc.boolean())
      .map(([a, b, optional]): Shape => ({ kind: "struct", a, b, optional })),
  ),
})).shape

const schemaOf = (shape: Shape): Schema.Top => {
  switch (shape.kind) {
    case "number":
      return Schema.Number
    case "finite":
      return Schema.Finite
    case "string":
      return Schema.String
    case "boolean":
      return Schema.Boolean
    case "array":
      return Schema.Array(schemaOf(shape.item))
    case "union":
      return Schema.Union([schemaOf(shape.members[0]), schemaOf(shape.members[1])])
    case "struct": {
      const b = schemaOf(shape.b)
      return Schema.Struct({ a: schemaOf(shape.a), b: shape.optional ? Schema.optionalKey(b) : b })
    }
  }
}

const nonFiniteTexts = ["NaN", "Infinity", "-Infinity"]
const nonFinite = fc.constantFrom(...nonFiniteTexts)

/**
 * A JSON value that fits the shape, where a number may be a non-finite string (which the
 * original codec takes), and now and then a value of any kind in place of a part.
 */
const jsonOf = (shape: Shape): fc.Arbitrary<unknown> => {
  const fitting = ((): fc.Arbitrary<unknown> => {
    switch (shape.kind) {
      case "number":
      case "finite":
        return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), nonFinite)
      case "string":
        return fc.oneof(fc.string({ maxLength: 3 }), nonFinite)
      case "boolean":
        return fc.boolean()
      case "array":
        return fc.array(jsonOf(shape.item), { maxLength: 3 })
      case "union":
        return fc.oneof(jsonOf(shape.members[0]), jsonOf(shape.members[1]))
      case "struct":
        return fc.record(
          { a: jsonOf(shape.a), b: jsonOf(shape.b) },
          { requiredKeys: shape.optional ? ["a"] : ["a", "b"] },
        )
    }
  })()
  return fc.oneof(
    { weight: 9, arbitrary: fitting },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
  )
}

const cases = shapes.chain((shape) =>
  jsonOf(shape).map((value) => ({ schema: schemaOf(shape), value })),
)

const decoder = (schema: Schema.Top) =>
  Schema.decodeUnknownExit(Schema.toCodecJson(schema) as unknown as Schema.Decoder<unknown>)

/** Every string of the value, at any depth. */
const strings = (value: unknown): ReadonlyArray<string> =>
  typeof value === "string"
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(strings)
      : typeof value === "object" && value !== null
        ? Object.values(value).flatMap(strings)
        : []

describe("jsonNumbersOnly, which rewrites the AST of Effect Schema (R2, R15)", () => {
  it("decodes what the original decodes, but a non-finite string where a number goes", () =>
    fc.assert(
      fc.property(cases, ({ schema, value }) => {
        const original = decoder(schema)(value)
        const rewritten = decoder(Schema.make(jsonNumbersOnly(schema.ast)))(value)
        const hasNonFinite = strings(value).some((text) => nonFiniteTexts.includes(text))
        if (Exit.isSuccess(rewritten)) {
          // Never more than the original takes; the same value, but where a non-finite string
          // that the original read as a number is now read as the string it is.
          assert.isTrue(Exit.isSuccess(original))
          if (Exit.isSuccess(original) && !hasNonFinite) {
            assert.deepStrictEqual(rewritten.value, original.value)
          }
          return
        }
        // Refused where the original took it: only a non-finite string can be the difference.
        if (Exit.isSuccess(original)) assert.isTrue(hasNonFinite)
      }),
      { numRuns: 500 },
    ))

  it("takes no non-finite string for a plain number, at any depth", () => {
    const schema = Schema.Struct({
      a: Schema.Array(Schema.Union([Schema.Number, Schema.Boolean])),
      b: Schema.optionalKey(Schema.Struct({ c: Schema.Number })),
    })
    const decode = decoder(Schema.make(jsonNumbersOnly(schema.ast)))
    const original = decoder(schema)
    for (const value of [{ a: ["NaN"] }, { a: [], b: { c: "Infinity" } }]) {
      assert.isTrue(Exit.isSuccess(original(value)))
      assert.isTrue(Exit.isFailure(decode(value)))
    }
    assert.deepStrictEqual(
      decode({ a: [1, true], b: { c: -0.5 } }),
      Exit.succeed({ a: [1, true], b: { c: -0.5 } }),
    )
  })
})
