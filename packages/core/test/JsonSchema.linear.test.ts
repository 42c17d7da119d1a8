import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fc from "fast-check"
import { JsonSchema } from "../src/index.js"

/**
 * Sizes at which a walk that does work per property for each property, or per link for each link
 * of a `$ref` chain, takes minutes or runs out of stack: `strictProblems` took 19 s for 80,000
 * required properties (a `required.includes` per property), `strict` 3.8 s for one property at
 * the end of a 6,000-link chain and a stack overflow at 9,500 links, `inline` a stack overflow at
 * 6,000. Each now takes well under a second or two.
 */
const properties = 200_000
const links = 20_000

/** An object that names and requires `count` properties, as the strict form wants. */
const wide = (count: number) => {
  const names = Array.from({ length: count }, (_, i) => `p${i}`)
  return {
    type: "object",
    properties: Object.fromEntries(names.map((name) => [name, { type: "string" }])),
    required: names,
    additionalProperties: false,
  }
}

/** `$defs` where each of `count` definitions is a `$ref` to the next, the last a string. */
const chain = (count: number) => {
  const $defs: Record<string, unknown> = { [`d${count}`]: { type: "string" } }
  for (let i = 0; i < count; i++) $defs[`d${i}`] = { $ref: `#/$defs/d${i + 1}` }
  return $defs
}

describe("JsonSchema walks are linear", () => {
  it("strictProblems of an object with 200,000 required properties", () => {
    const schema = wide(properties)
    assert.deepStrictEqual(JsonSchema.strictProblems(schema), [])
    schema.required = schema.required.slice(1)
    assert.deepStrictEqual(JsonSchema.strictProblems(schema), [
      { path: "", message: "an object whose required does not list every property" },
    ])
  })

  it("strict follows a chain of 20,000 $refs without recursion", () => {
    const schema = {
      type: "object",
      properties: { a: { $ref: "#/$defs/d0" } },
      $defs: chain(links),
    }
    const { schema: made } = Effect.runSync(JsonSchema.strict(schema))
    // The chain ends in a string, which does not take null: the optional property is wrapped.
    assert.deepStrictEqual(made.properties, {
      a: { anyOf: [{ $ref: "#/$defs/d0" }, { type: "null" }] },
    })
  })

  it("strict walks a chain of 5,000 $refs once for 2,000 properties that use it", () => {
    const names = Array.from({ length: 2_000 }, (_, i) => `p${i}`)
    const schema = {
      type: "object",
      properties: Object.fromEntries(
        names.map((name, i) => [name, { $ref: `#/$defs/d${i % 2 === 0 ? 0 : 1}` }]),
      ),
      $defs: { ...chain(5_000), d5000: { type: ["string", "null"] } },
    }
    const { schema: made } = Effect.runSync(JsonSchema.strict(schema))
    // The chain ends in a schema that takes null: each property is only made required.
    assert.deepStrictEqual(made.required, names)
    assert.deepStrictEqual((made.properties as Record<string, unknown>).p1, { $ref: "#/$defs/d1" })
  })

  it("inline refuses a chain of 20,000 $refs as too deep, with no stack overflow", () => {
    const schema = {
      type: "object",
      properties: { a: { $ref: "#/$defs/d0" } },
      $defs: chain(links),
    }
    const exit = Effect.runSyncExit(JsonSchema.inline(schema))
    assert.isTrue(Exit.isFailure(exit))
    const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
    assert.strictEqual(reason?._tag, "Fail")
    assert.include(reason?._tag === "Fail" ? reason.error.message : "", "deeper than 128 levels")
  })

  it("inline still follows a chain of 100 $refs", () => {
    const schema = { type: "object", properties: { a: { $ref: "#/$defs/d0" } }, $defs: chain(100) }
    const { schema: made } = Effect.runSync(JsonSchema.inline(schema))
    assert.deepStrictEqual(made.properties, { a: { type: "string" } })
  })

  /** The plain reading of "takes null", one path of `$ref`s at a time, for small schemas. */
  const takesNull = (
    node: unknown,
    defs: Record<string, unknown>,
    seen: ReadonlySet<string> = new Set(),
  ): boolean => {
    if (typeof node !== "object" || node === null) return false
    const schema = node as Record<string, unknown>
    if (typeof schema.$ref === "string") {
      const name = schema.$ref.slice("#/$defs/".length)
      return !seen.has(name) && takesNull(defs[name], defs, new Set([...seen, name]))
    }
    if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))) {
      return true
    }
    if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true
    return (
      Array.isArray(schema.anyOf) && schema.anyOf.some((branch) => takesNull(branch, defs, seen))
    )
  }

  const names = ["d0", "d1", "d2", "d3", "d4", "d5"]
  const ref = fc.constantFrom(...names).map((name) => ({ $ref: `#/$defs/${name}` }))
  const leaf = fc.constantFrom<Record<string, unknown>>(
    { type: "string" },
    { type: "null" },
    { type: ["integer", "null"] },
    { enum: ["a", null] },
    { enum: ["a"] },
  )
  const branch = fc.oneof(ref, leaf)
  const definition = fc.oneof(
    ref,
    leaf,
    fc.array(branch, { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
  )

  it("strict finds what takes null over any graph of $refs, cycles too, as one path at a time", () => {
    fc.assert(
      fc.property(
        fc.tuple(...names.map(() => definition)),
        fc.array(branch, { minLength: 1, maxLength: 8 }),
        (definitions, uses) => {
          const $defs = Object.fromEntries(names.map((name, i) => [name, definitions[i]]))
          const properties = Object.fromEntries(uses.map((use, i) => [`p${i}`, use]))
          const { schema } = Effect.runSync(
            JsonSchema.strict({ type: "object", properties, $defs }),
          )
          const made = schema.properties as Record<string, unknown>
          uses.forEach((use, i) => {
            const kept = JSON.stringify(made[`p${i}`]) === JSON.stringify(use)
            assert.strictEqual(kept, takesNull(use, $defs), `p${i} of ${JSON.stringify(schema)}`)
          })
        },
      ),
    )
  })
})
