import { assert, describe, it } from "@effect/vitest"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { Effect, Exit } from "effect"
import * as fc from "fast-check"
import { toStrictJsonSchema } from "openai/lib/transform"
import { JsonSchema, type Tool } from "../src/index.js"

type Schema = Record<string, unknown>

const inlined = (schema: Schema) => Effect.runSync(JsonSchema.inline(schema))
const strict = (schema: Schema) => Effect.runSync(JsonSchema.strict(schema))
const failure = (effect: Effect.Effect<unknown, { readonly message: string }>): string => {
  const exit = Effect.runSyncExit(effect)
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  if (Exit.isSuccess(exit)) return ""
  const error = exit.cause.reasons[0]
  return error?._tag === "Fail" ? error.error.message : ""
}

/** Key order is not meaning: objects are compared with their keys sorted. */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, canonical((value as Schema)[key])]),
        )
      : value

const ajv = new AjvJsonSchemaValidator()
const validator = (schema: Schema) => ajv.getValidator(schema as never)

describe("JsonSchema.inline", () => {
  it("inlines every $ref, keeps the keywords beside it, and drops the definitions", () => {
    const { schema, changes } = inlined({
      type: "object",
      properties: {
        from: { $ref: "#/$defs/Place", description: "Where it starts." },
        to: { $ref: "#/definitions/Place" },
      },
      $defs: { Place: { type: "string", description: "A city." } },
      definitions: { Place: { type: "string", minLength: 1 } },
    })
    assert.deepStrictEqual(schema, {
      type: "object",
      properties: {
        from: { type: "string", description: "Where it starts." },
        to: { type: "string", minLength: 1 },
      },
    })
    assert.deepStrictEqual(changes, [
      { path: "/properties/from", message: 'inlined $ref "#/$defs/Place"' },
      { path: "/properties/to", message: 'inlined $ref "#/definitions/Place"' },
      { path: "", message: "dropped $defs: every $ref to it is inlined" },
    ])
  })

  it("keeps a constraint beside a $ref that the target also sets, through allOf", () => {
    const { schema } = inlined({
      type: "object",
      properties: { code: { $ref: "#/$defs/Code", maxLength: 3, description: "ISO code" } },
      $defs: { Code: { type: "string", maxLength: 8 } },
    })
    assert.deepStrictEqual(schema.properties, {
      code: {
        description: "ISO code",
        allOf: [{ type: "string", maxLength: 8 }, { maxLength: 3 }],
      },
    })
  })

  it("follows a chain of $refs, and a root that is itself a $ref", () => {
    const { schema } = inlined({
      $ref: "#/$defs/Args",
      $defs: {
        Args: { type: "object", properties: { id: { $ref: "#/$defs/Id" } } },
        Id: { $ref: "#/$defs/Int" },
        Int: { type: "integer" },
      },
    })
    assert.deepStrictEqual(schema, { type: "object", properties: { id: { type: "integer" } } })
  })

  it("refuses a recursive $ref, saying where", () => {
    const message = failure(
      JsonSchema.inline({
        type: "object",
        properties: { root: { $ref: "#/$defs/Node" } },
        $defs: {
          Node: {
            type: "object",
            properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } },
          },
        },
      }),
    )
    assert.strictEqual(
      message,
      'the schema cannot be inlined: at #/properties/root/properties/children/items: $ref "#/$defs/Node" is recursive (it is used inside what it names), so it cannot be inlined',
    )
    assert.include(
      failure(JsonSchema.inline({ type: "object", properties: { a: { $ref: "#" } } })),
      '$ref "#" is recursive',
    )
  })

  it("refuses a $ref to another document, and one that names nothing", () => {
    assert.include(
      failure(
        JsonSchema.inline({
          type: "object",
          properties: { a: { $ref: "https://example.com/a.json" } },
        }),
      ),
      "names another document or an anchor",
    )
    assert.include(
      failure(
        JsonSchema.inline({ type: "object", properties: { a: { $ref: "#/$defs/Missing" } } }),
      ),
      '$ref "#/$defs/Missing" names nothing in this schema',
    )
    // Own keys only: a pointer through a prototype's key names nothing.
    assert.include(
      failure(JsonSchema.inline({ type: "object", properties: { a: { $ref: "#/constructor" } } })),
      "names nothing",
    )
  })

  it("refuses definitions that would double past the bound, without making them", () => {
    const $defs: Schema = { D30: { type: "string" } }
    for (let i = 0; i < 30; i++) {
      $defs[`D${i}`] = {
        type: "array",
        items: { anyOf: [{ $ref: `#/$defs/D${i + 1}` }, { $ref: `#/$defs/D${i + 1}` }] },
      }
    }
    const message = failure(
      JsonSchema.inline({ type: "object", properties: { a: { $ref: "#/$defs/D0" } }, $defs }),
    )
    assert.include(message, `larger than ${JsonSchema.maxInlinedNodes} nodes`)
  })

  it("refuses a schema nested deeper than Json.maxDepth before walking it", () => {
    let deep: Schema = { type: "string" }
    for (let i = 0; i < 200; i++) deep = { type: "array", items: deep }
    assert.include(failure(JsonSchema.inline(deep)), "nests deeper than 128 levels")
  })

  it("takes a property named $defs for a property, not for definitions", () => {
    const schema: Schema = {
      type: "object",
      properties: { $defs: { type: "string" }, $ref: { type: "integer" } },
    }
    assert.deepStrictEqual(inlined(schema), { schema, changes: [] })
  })
})

describe("JsonSchema.strict", () => {
  it("makes every property required, the optional ones nullable, and every object closed", () => {
    const { schema, changes } = strict({
      type: "object",
      properties: {
        city: { type: "string" },
        days: { type: "integer", description: "How many days." },
        unit: { type: "string", enum: ["C", "F"] },
        near: { type: "object", properties: { lat: { type: "number" } }, required: ["lat"] },
        note: { type: ["string", "null"] },
      },
      required: ["city"],
    })
    assert.deepStrictEqual(schema, {
      type: "object",
      properties: {
        city: { type: "string" },
        days: { type: ["integer", "null"], description: "How many days." },
        unit: { anyOf: [{ type: "string", enum: ["C", "F"] }, { type: "null" }] },
        near: {
          anyOf: [
            {
              type: "object",
              properties: { lat: { type: "number" } },
              required: ["lat"],
              additionalProperties: false,
            },
            { type: "null" },
          ],
        },
        note: { type: ["string", "null"] },
      },
      required: ["city", "days", "unit", "near", "note"],
      additionalProperties: false,
    })
    assert.deepStrictEqual(
      changes.map((change) => change.path),
      [
        "/properties/near",
        "/properties/days",
        "/properties/unit",
        "/properties/near",
        "/properties/note",
        "",
      ],
    )
    assert.include(changes[4]!.message, 'it takes null, which the model sends for "left out"')
  })

  it("moves default and an unknown format into the description, and reads oneOf as anyOf", () => {
    const { schema, changes } = strict({
      type: "object",
      properties: {
        limit: { type: "integer", description: "At most.", default: 10 },
        site: { type: "string", format: "uri" },
        when: { type: "string", format: "date-time" },
        shape: { oneOf: [{ type: "string" }, { type: "integer" }] },
      },
      required: ["limit", "site", "when", "shape"],
      additionalProperties: false,
    })
    assert.deepStrictEqual(schema.properties, {
      limit: { type: "integer", description: "At most. Default: 10." },
      site: { type: "string", description: "Format: uri." },
      when: { type: "string", format: "date-time" },
      shape: { anyOf: [{ type: "string" }, { type: "integer" }] },
    })
    assert.strictEqual(changes.length, 3)
  })

  it("drops keywords whose loss only lets more values through, each with a change", () => {
    const { schema, changes } = strict({
      type: "object",
      properties: {
        tags: {
          type: "array",
          items: { type: "string" },
          uniqueItems: true,
          contains: { const: "x" },
        },
        code: { type: "string", not: { const: "" } },
      },
      required: ["tags", "code"],
      additionalProperties: false,
      minProperties: 1,
    })
    assert.deepStrictEqual(schema.properties, {
      tags: { type: "array", items: { type: "string" } },
      code: { type: "string" },
    })
    assert.deepStrictEqual(
      changes.map((change) => change.message.split(":")[0]),
      ["dropped minProperties", "dropped uniqueItems", "dropped contains", "dropped not"],
    )
  })

  it("merges one allOf branch, keeps $refs and makes the definitions strict", () => {
    const { schema } = strict({
      $ref: "#/$defs/Node",
      $defs: {
        Node: {
          allOf: [{ type: "object", properties: { name: { type: "string" } } }],
          description: "A tree.",
        },
      },
    })
    assert.deepStrictEqual(
      canonical(schema),
      canonical({
        type: "object",
        description: "A tree.",
        properties: { name: { type: ["string", "null"] } },
        required: ["name"],
        additionalProperties: false,
        $defs: {
          Node: {
            type: "object",
            description: "A tree.",
            properties: { name: { type: ["string", "null"] } },
            required: ["name"],
            additionalProperties: false,
          },
        },
      }),
    )
  })

  it("sends an empty root as an object with no properties", () => {
    assert.deepStrictEqual(strict({}).schema, {
      type: "object",
      properties: {},
      required: [],
      additionalProperties: false,
    })
  })

  it("refuses what it cannot send without changing what the schema accepts, listing each", () => {
    assert.strictEqual(
      failure(JsonSchema.strict({ type: "string" })),
      'the schema cannot be put in strict form: at #: the root must be an object (type "object"), not type "string"',
    )
    assert.include(
      failure(JsonSchema.strict({ anyOf: [{ type: "object", properties: {} }] })),
      "not a union",
    )
    const message = failure(
      JsonSchema.strict({
        type: "object",
        properties: {
          counts: { type: "object", additionalProperties: { type: "integer" } },
          pair: { type: "array", prefixItems: [{ type: "string" }] },
          list: { type: "array" },
          anything: { description: "Any value." },
          meta: { type: "object" },
          both: { allOf: [{ type: "string" }, { minLength: 2 }] },
          keyed: {
            type: "object",
            properties: {},
            patternProperties: { "^x": { type: "string" } },
          },
        },
      }),
    )
    // Five problems are listed (two for pair), the other four counted: meta, both (and its
    // second branch, which has no type) and keyed.
    assert.include(message, "at #/properties/counts: an object that takes keys it does not name")
    assert.include(message, "at #/properties/pair: strict mode does not take prefixItems")
    assert.include(message, "at #/properties/list: an array without items")
    assert.include(message, "at #/properties/anything: this schema accepts any value")
    assert.include(message, "and 4 more")
  })
})

describe("JsonSchema.strictProblems", () => {
  it("says where a schema is not in the strict form", () => {
    assert.deepStrictEqual(
      JsonSchema.strictProblems({
        type: "object",
        properties: { a: { type: "string", default: "x" }, b: { type: "array" } },
        required: ["a"],
      }),
      [
        { path: "", message: "an object that is not closed" },
        { path: "", message: "an object whose required does not list every property" },
        { path: "/properties/a", message: "strict mode does not take default" },
        { path: "/properties/b", message: "an array needs one `items` schema" },
      ],
    )
  })
})

// Generators: schemas that reach $ref (acyclic and recursive), nested arrays, anyOf, enums,
// consts and objects with optional properties, and values that often fit them.

const propertyNames = ["a", "b", "c", "d"] as const
const definitionNames = ["D0", "D1", "D2"] as const

const leaf: fc.Arbitrary<Schema> = fc.oneof(
  fc.record({ type: fc.constantFrom("string", "integer", "number", "boolean", "null") }),
  fc.record({
    type: fc.constant("string"),
    enum: fc.uniqueArray(fc.constantFrom("x", "y", "z"), { minLength: 1, maxLength: 3 }),
  }),
  fc.record(
    { type: fc.constant("string"), minLength: fc.nat(2), pattern: fc.constant("^[a-z]*$") },
    { requiredKeys: ["type"] },
  ),
  fc.record({ type: fc.constant("integer"), minimum: fc.integer({ min: -3, max: 3 }) }),
  fc.record({ const: fc.constantFrom("x", 1, true) }),
)

/** Schemas whose `$ref`s name only `refs`. */
const schemaWith = (refs: ReadonlyArray<string>, optional: "any" | "nullable") =>
  fc.letrec<{ node: Schema; object: Schema }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", maxDepth: 4 },
      leaf,
      tie("object"),
      fc.record({ type: fc.constant("array"), items: tie("node") }),
      fc.record({ anyOf: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
      ...(refs.length === 0
        ? []
        : [
            fc.record(
              {
                $ref: fc.constantFrom(...refs).map((name) => `#/$defs/${name}`),
                description: fc.constant("used here"),
              },
              { requiredKeys: ["$ref"] },
            ),
          ]),
    ),
    object: fc
      .uniqueArray(fc.tuple(fc.constantFrom(...propertyNames), tie("node"), fc.boolean()), {
        selector: ([name]) => name,
        maxLength: 4,
      })
      .map((entries) => {
        const properties: Schema = {}
        const required: Array<string> = []
        for (const [name, child, isRequired] of entries) {
          if (isRequired) required.push(name)
          // The OpenAI SDK refuses an optional property that does not take null.
          properties[name] =
            isRequired || optional === "any" ? child : { anyOf: [child, { type: "null" }] }
        }
        return { type: "object", properties, required }
      }),
  }))

/** A root object with definitions D0..D2; with `recursive`, a definition may name any of them. */
const rootSchema = (recursive: boolean, optional: "any" | "nullable" = "any") =>
  fc
    .tuple(
      ...definitionNames.map(
        (_, i) =>
          schemaWith(recursive ? definitionNames : definitionNames.slice(i + 1), optional).node,
      ),
      schemaWith(definitionNames, optional).object,
    )
    .map(([d0, d1, d2, root]) => ({ ...root, $defs: { D0: d0, D1: d1, D2: d2 } }) as Schema)

/** Values shaped by a schema most of the time, and anything now and then. */
const valueFor = (node: unknown, root: Schema, depth = 0): fc.Arbitrary<unknown> => {
  const any = fc.jsonValue({ maxDepth: 2 })
  if (typeof node !== "object" || node === null || depth > 5) return any
  const schema = node as Schema
  let shaped: fc.Arbitrary<unknown>
  if (typeof schema.$ref === "string") {
    shaped = valueFor((root.$defs as Schema)[schema.$ref.slice("#/$defs/".length)], root, depth + 1)
  } else if (Array.isArray(schema.anyOf)) {
    shaped = fc.oneof(...schema.anyOf.map((branch) => valueFor(branch, root, depth + 1)))
  } else if ("const" in schema) {
    shaped = fc.constant(schema.const)
  } else if (Array.isArray(schema.enum)) {
    shaped = fc.constantFrom(...schema.enum)
  } else if (schema.type === "object") {
    const properties = schema.properties as Schema
    shaped = fc.record(
      Object.fromEntries(
        Object.entries(properties).map(([name, child]) => [name, valueFor(child, root, depth + 1)]),
      ),
      { requiredKeys: [] },
    )
  } else if (schema.type === "array") {
    shaped = fc.array(valueFor(schema.items, root, depth + 1), { maxLength: 3 })
  } else {
    shaped = fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.integer({ min: -5, max: 5 }),
      fc.boolean(),
      fc.constant(null),
    )
  }
  return fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: any })
}

const hasRef = (value: unknown): boolean =>
  typeof value === "object" &&
  value !== null &&
  JSON.stringify(value).match(/"\$(ref|defs)"/) !== null

describe("JsonSchema properties", () => {
  it("inlining gives a schema with no $ref that accepts the same values, and is done once", () => {
    fc.assert(
      fc.property(
        fc
          .boolean()
          .chain((recursive) => rootSchema(recursive))
          .chain((schema) =>
            fc.tuple(
              fc.constant(schema),
              fc.array(valueFor(schema, schema), { minLength: 1, maxLength: 8 }),
            ),
          ),
        ([schema, values]) => {
          const exit = Effect.runSyncExit(JsonSchema.inline(schema as Tool.JsonSchema))
          if (Exit.isFailure(exit)) {
            // Only a recursive $ref, or a schema that grows past the bound, is refused.
            const message = String(
              exit.cause.reasons[0]?._tag === "Fail" && exit.cause.reasons[0].error.message,
            )
            return /is recursive|larger than|deeper than/.test(message)
          }
          const { schema: flat } = exit.value
          assert.isFalse(hasRef(flat))
          const again = inlined(flat)
          assert.deepStrictEqual(again, { schema: flat, changes: [] })
          const before = validator(schema)
          const after = validator(flat)
          for (const value of values) {
            assert.strictEqual(after(value).valid, before(value).valid, JSON.stringify(value))
          }
          return true
        },
      ),
      { numRuns: 400 },
    )
  })

  it("the strict form passes the strict check, and is made once", () => {
    fc.assert(
      fc.property(
        fc.boolean().chain((recursive) => rootSchema(recursive)),
        (schema) => {
          const exit = Effect.runSyncExit(JsonSchema.strict(schema as Tool.JsonSchema))
          assert.isTrue(Exit.isSuccess(exit))
          if (Exit.isFailure(exit)) return
          assert.deepStrictEqual(JsonSchema.strictProblems(exit.value.schema), [])
          assert.deepStrictEqual(strict(exit.value.schema), {
            schema: exit.value.schema,
            changes: [],
          })
        },
      ),
      { numRuns: 400 },
    )
  })

  it("the strict form is the OpenAI SDK's toStrictJsonSchema where the SDK takes the schema", () => {
    fc.assert(
      fc.property(
        fc.boolean().chain((recursive) => rootSchema(recursive, "nullable")),
        (schema) => {
          let theirs: unknown
          try {
            theirs = toStrictJsonSchema(structuredClone(schema) as never)
          } catch {
            // The SDK overflows its stack on $refs that name each other with no object between
            // (D0 -> D1 -> D0): nothing to compare there.
            fc.pre(false)
          }
          assert.deepStrictEqual(canonical(strict(schema).schema), canonical(theirs))
        },
      ),
      { numRuns: 400 },
    )
  })

  it("a value the original takes fits the strict form, with null for each property left out and no other keys", () => {
    fc.assert(
      fc.property(
        rootSchema(false).chain((schema) =>
          fc.tuple(
            fc.constant(schema),
            fc.array(valueFor(schema, schema), { minLength: 1, maxLength: 8 }),
          ),
        ),
        ([schema, values]) => {
          const before = validator(schema)
          const after = validator(strict(schema).schema)
          for (const value of values) {
            if (!before(value).valid) continue
            const filled = fillNulls(schema, value, schema)
            assert.isTrue(after(filled).valid, JSON.stringify({ value, filled }))
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})

/** A value with `null` put where an optional property was left out, following the schema. */
const fillNulls = (node: unknown, value: unknown, root: Schema): unknown => {
  if (typeof node !== "object" || node === null) return value
  const schema = node as Schema
  if (typeof schema.$ref === "string") {
    return fillNulls((root.$defs as Schema)[schema.$ref.slice("#/$defs/".length)], value, root)
  }
  if (Array.isArray(schema.anyOf)) {
    // The branch the value fits, filled; the strict form makes every branch strict.
    for (const branch of schema.anyOf) {
      if (validator({ ...(branch as Schema), $defs: root.$defs })(value).valid) {
        return fillNulls(branch, value, root)
      }
    }
    return value
  }
  if (schema.type === "array" && Array.isArray(value)) {
    return value.map((item) => fillNulls(schema.items, item, root))
  }
  if (
    schema.type === "object" &&
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value)
  ) {
    const out: Schema = {}
    for (const [name, child] of Object.entries(schema.properties as Schema)) {
      const present = Object.hasOwn(value, name)
      out[name] = present ? fillNulls(child, (value as Schema)[name], root) : null
    }
    return out
  }
  return value
}
