import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { outputCheckOf } from "../src/internal/outputCheck.js"
import { schemaBounds, schemaProblem } from "../src/internal/schemaBounds.js"
import { makeSchemaValidator, type SchemaValidator } from "../src/internal/schemaValidator.js"

// Each run compiles a schema, which takes up to tens of milliseconds: fewer runs than the
// decoders' fuzz tests by default.
const runs = Number(process.env.SVIR_FUZZ_RUNS ?? 300)

/** A generated schema is any JSON; the validator compiles objects. */
const compile = (validator: SchemaValidator, schema: object) => validator.compile(schema)

/**
 * Pieces of patterns that backtrack exponentially or polynomially on "aaa…a!" in a backtracking
 * engine, and some RE2 cannot run at all (lookaround, backreferences).
 */
const atom = fc.constantFrom("a", "aa", "[a-z]", ".", "\\w", "a?", "(?:a|a)", "(a|aa)")
const quantifier = fc.constantFrom("*", "+", "{1,30}", "?", "{2,}")
const pattern: fc.Arbitrary<string> = fc
  .letrec<{ regex: string }>((tie) => ({
    regex: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      atom,
      fc.tuple(tie("regex"), quantifier).map(([inner, q]) => `(${inner})${q}`),
      fc.tuple(tie("regex"), tie("regex")).map(([a, b]) => `${a}|${b}`),
      fc.tuple(tie("regex"), tie("regex")).map(([a, b]) => `${a}${b}`),
    ),
  }))
  .regex.chain((regex) =>
    fc.constantFrom(`^(${regex})*$`, `^(${regex})+$`, regex, `(?=${regex})a`, `(a)\\1${regex}`),
  )

const manyProperties = (count: number, each: unknown) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, each]))

/** `$defs` where each refers twice to the next: 2^depth subschemas once followed. */
const doublingRefs = (depth: number) => ({
  $defs: Object.fromEntries(
    Array.from({ length: depth }, (_, i) => [
      `d${i}`,
      i === depth - 1
        ? { type: "string" }
        : { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] },
    ]),
  ),
  $ref: "#/$defs/d0",
})

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  pattern.map((p) => ({ type: "string", pattern: p })),
  pattern.map((p) => ({ type: "object", patternProperties: { [p]: { type: "string" } } })),
  fc.constantFrom(
    { type: "string", format: "email" },
    { type: "string", format: "date-time" },
    { type: "string", format: "uri" },
    { type: "array", uniqueItems: true },
    { $ref: "#" },
    { items: { $ref: "#" } },
    { anyOf: [{ items: { $ref: "#" } }, { items: { $ref: "#" } }] },
    { not: { $ref: "#" } },
    { $ref: "#/nowhere" },
  ),
  fc.constantFrom(10, 100, 5_000).map((count) => ({
    type: "object",
    properties: manyProperties(count, { type: "string" }),
  })),
  fc.integer({ min: 2, max: 40 }).map(doublingRefs),
)

const schema: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc
      .dictionary(fc.constantFrom("a", "b", "s"), tie("node"), { maxKeys: 3 })
      .map((properties) => ({ type: "object", properties })),
    fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((allOf) => ({ allOf })),
    fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
    tie("node").map((items) => ({ type: "array", items })),
    fc.integer({ min: 1, max: 60 }).map((depth) => {
      let nested: unknown = { type: "string", pattern: "^(a+)+$" }
      for (let i = 0; i < depth; i++) nested = { type: "object", properties: { a: nested } }
      return nested
    }),
  ),
})).node

const poison = (length: number) => `${"a".repeat(length)}!`

/** Values that make a backtracking engine or a pairwise `uniqueItems` take seconds or more. */
const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.integer({ min: 30, max: 3_000 }).map(poison),
    fc.constantFrom(
      "aaaa",
      "not an email",
      Array.from({ length: 20_000 }, (_, i) => ({ i })),
      Object.fromEntries(Array.from({ length: 500 }, (_, i) => [poison(40 + (i % 7)), poison(40)])),
    ),
    fc.dictionary(fc.constantFrom("a", "b", "s", "p1"), tie("value"), { maxKeys: 3 }),
    fc.array(tie("value"), { maxLength: 3 }),
  ),
})).value

describe("the bridge's validator of a server's schemas", () => {
  it("compiles or refuses any schema, and checks any value, with bounded work", () => {
    const validator = makeSchemaValidator()
    fc.assert(
      fc.property(schema, fc.array(value, { minLength: 1, maxLength: 3 }), (generated, values) => {
        const wrapped = { type: "object", properties: { x: generated } }
        let check: ReturnType<typeof validator.compile>
        try {
          check = compile(validator, wrapped)
        } catch (error) {
          // Refused: over a bound, or a `$ref` the bridge does not follow, said in plain words.
          assert.instanceOf(error, Error)
          assert.match((error as Error).message, /^(it|its) /)
          return
        }
        for (const x of values) {
          const result = check({ x })
          assert.isBoolean(result.valid)
        }
      }),
      { numRuns: runs },
    )
  })

  it("refuses what is over the bounds, whatever it holds", () => {
    const validator = makeSchemaValidator()
    fc.assert(
      fc.property(fc.integer({ min: schemaBounds.values, max: 20_000 }), (count) => {
        const wide = { type: "object", properties: manyProperties(count, { type: "string" }) }
        assert.throws(() => compile(validator, wide), /more than 2048 JSON values/)
      }),
      { numRuns: Math.min(runs, 20) },
    )
  })
})

/** Subschemas Ajv refuses to compile, or takes, for reasons of their own, in any place. */
const malformed: fc.Arbitrary<unknown> = fc.constantFrom(
  { type: "strin" },
  { type: ["string", 5] },
  { type: [] },
  { type: "null", nullable: false },
  { type: ["string", "null"], nullable: true },
  { nullable: true },
  { type: "string", nullable: true },
  { type: "string", pattern: "(" },
  { type: "string", pattern: "^(?P<n>a)$" },
  { type: "string", pattern: "(a)\\1" },
  { type: "string", pattern: "a".repeat(1_001) },
  { type: "string", pattern: "[a-z]{1,200}[0-9]{1,200}" },
  { type: "object", patternProperties: { "(": { type: "string" } } },
  { type: "object", required: "a" },
  { type: "object", required: ["a"] },
  { type: "number", minimum: "5" },
  { type: "number", minimum: 5 },
  { enum: [] },
  { enum: "a" },
  { enum: ["a"] },
  { id: "x", type: "string" },
  { type: "object", properties: { id: { type: "string" }, type: { type: "string" } } },
  { items: 5 },
  { additionalProperties: "no" },
  { format: "email", type: "string", minLength: -1 },
  { uniqueItems: "yes" },
  { const: null },
)

const withMalformed: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    malformed,
    leaf,
    fc
      .dictionary(fc.constantFrom("a", "b", "s"), tie("node"), { maxKeys: 3 })
      .map((properties) => ({ type: "object", properties })),
    fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
    tie("node").map((items) => ({ type: "array", items })),
    tie("node").map((node) => ({ $defs: { d: node }, $ref: "#/$defs/d" })),
  ),
})).node

describe("the bridge's validator, telling what compiling would refuse without compiling (D50)", () => {
  const compileError = (validator: SchemaValidator, schema: object): string | undefined => {
    try {
      compile(validator, schema)
      return undefined
    } catch (error) {
      return (error as Error).message
    }
  }

  it("compiles a tool's output schema at its first call, once, whether it compiles or not", () => {
    const validator = makeSchemaValidator()
    const compiled: Array<object> = []
    const counting: SchemaValidator = {
      ...validator,
      compile: (schema) => {
        compiled.push(schema)
        return validator.compile(schema)
      },
    }
    const output = outputCheckOf(counting, {
      type: "object",
      properties: { n: { type: "number" } },
    })
    // A schema that only compiling refuses, stood in for by a validator whose compile throws.
    const throwing: SchemaValidator = {
      ...counting,
      compile: (schema) => {
        compiled.push(schema)
        return assert.fail("no check")
      },
    }
    const broken = outputCheckOf(throwing, { type: "object" })
    assert.strictEqual(compiled.length, 0)
    if (typeof output === "string" || typeof broken === "string") return assert.fail("refused")
    assert.isTrue(output.compiled()({ n: 1 }).valid)
    assert.isFalse(output.compiled()({ n: "1" }).valid)
    assert.throws(() => broken.compiled(), /no check/)
    assert.throws(() => broken.compiled(), /no check/)
    assert.strictEqual(compiled.length, 2)
    assert.strictEqual(
      outputCheckOf(validator, { type: "strin" }),
      "its output schema cannot be compiled: type must be JSONType or JSONType[]: strin",
    )
  })

  it("refuses a subschema in the words compiling gives", () => {
    const validator = makeSchemaValidator()
    fc.assert(
      fc.property(malformed, (generated) => {
        const wrapped = { type: "object", properties: { x: generated } }
        assert.strictEqual(validator.refusal(wrapped), compileError(validator, wrapped))
      }),
      { numRuns: Math.min(runs, 100) },
    )
  })

  it("refuses a schema within the bounds exactly when compiling does", () => {
    const validator = makeSchemaValidator()
    fc.assert(
      fc.property(withMalformed, (generated) => {
        const wrapped = { type: "object", properties: { x: generated } }
        if (schemaProblem(wrapped) !== undefined) return
        // With two faults, the one named first may differ: Ajv goes keyword group by group.
        assert.strictEqual(
          validator.refusal(wrapped) === undefined,
          compileError(validator, wrapped) === undefined,
          JSON.stringify(wrapped),
        )
      }),
      { numRuns: runs },
    )
  })
})

describe("the bridge's validator, on schemas whose checks would take exponential time", () => {
  const validator = makeSchemaValidator()
  const tree = {
    type: "object",
    properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#" } } },
  }

  it("checks a schema that refers to itself once, through a part of the value", () => {
    const check = compile(validator, tree)
    let deep: unknown = { name: "leaf" }
    for (let i = 0; i < 100; i++) deep = { name: `n${i}`, children: [deep] }
    assert.isTrue(check(deep).valid)
    assert.isFalse(check({ children: [{ name: 1 }] }).valid)
  })

  it("checks recursive schemas whose ways round never meet in one value, however deep the value", () => {
    // A binary tree: `left` and `right` go into different parts.
    const binary = {
      $defs: {
        node: {
          type: "object",
          properties: { left: { $ref: "#/$defs/node" }, right: { $ref: "#/$defs/node" } },
        },
      },
      $ref: "#/$defs/node",
    }
    // A JSON value as zod writes one: an array's items and an object's properties never meet.
    const json = {
      $defs: {
        json: {
          anyOf: [
            { type: "string", pattern: "^(a|a)*$" },
            { type: "number" },
            { type: "array", items: { $ref: "#/$defs/json" } },
            { type: "object", additionalProperties: { $ref: "#/$defs/json" } },
          ],
        },
      },
      $ref: "#/$defs/json",
    }
    // Two recursive definitions side by side, neither inside the other's cycle.
    const apart = {
      type: "object",
      properties: {
        list: { $ref: "#/$defs/list" },
        tree: { $ref: "#/$defs/tree" },
      },
      $defs: {
        list: { type: "object", properties: { next: { $ref: "#/$defs/list" } } },
        tree: { type: "array", items: { $ref: "#/$defs/tree" } },
      },
    }
    let left: unknown = {}
    let nested: unknown = poison(40)
    let list: unknown = {}
    for (let i = 0; i < 300; i++) {
      left = { left, right: {} }
      nested = [{ k: nested }]
      list = { next: list }
    }
    assert.isTrue(compile(validator, binary)(left).valid)
    assert.isFalse(compile(validator, binary)({ left: { right: 1 } }).valid)
    assert.isFalse(compile(validator, json)(nested).valid)
    assert.isTrue(compile(validator, json)([{ k: ["aaaa", 1] }]).valid)
    assert.isTrue(compile(validator, apart)({ list, tree: [[[]]] }).valid)
  })

  it("refuses $refs that double at each step, or whose ways round may meet, or refer back in place", () => {
    assert.throws(() => compile(validator, doublingRefs(40)), /more than 2048 subschemas/)
    const meeting =
      /refers back to itself along two ways that may meet in one value, which could make checking a value take exponential time/
    const twice = { anyOf: [{ items: { $ref: "#" } }, { items: { $ref: "#" } }] }
    assert.throws(() => compile(validator, twice), meeting)
    // Any property meets the property `a`.
    const overlapping = {
      type: "object",
      properties: { a: { $ref: "#" } },
      additionalProperties: { $ref: "#" },
    }
    assert.throws(() => compile(validator, overlapping), meeting)
    // A path meets a longer one that starts the same way: `a` then `b`, or `a` once and again.
    const prefix = {
      properties: { a: { $ref: "#" }, x: { properties: { b: { $ref: "#" } } } },
      patternProperties: { "^x": { properties: { b: { $ref: "#" } } } },
    }
    assert.throws(() => compile(validator, prefix), meeting)
    // A cycle that runs inside another.
    const inside = {
      $defs: { inner: { properties: { again: { $ref: "#/$defs/inner" }, out: { $ref: "#" } } } },
      properties: { in: { $ref: "#/$defs/inner" } },
    }
    assert.throws(() => compile(validator, inside), meeting)
    assert.throws(() => compile(validator, { not: { $ref: "#" } }), /refers to itself in place/)
    assert.throws(() => compile(validator, { $ref: "other.json" }), /not a "#\/\.\.\." pointer/)
  })

  it("checks uniqueItems in linear time", () => {
    const check = compile(validator, { type: "array", uniqueItems: true })
    // Pairwise, as Ajv compares items of unknown type, 200 000 objects take hours.
    const distinct = Array.from({ length: 200_000 }, (_, i) => ({ i, j: [i] }))
    assert.isTrue(check(distinct).valid)
    assert.isFalse(check([...distinct, { j: [7], i: 7 }]).valid)
  })
})
