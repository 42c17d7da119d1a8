import { assert, describe, it } from "@effect/vitest"
import { fc } from "@fast-check/vitest"
import { Arguments } from "@svir/registry"
import { Schema } from "effect"
import * as z from "zod"

describe("Arguments.jsonSchema", () => {
  it("emits plain numbers, integers without bounds, closed objects", () => {
    const schema = Arguments.jsonSchema(
      Schema.Struct({
        n: Schema.Number,
        f: Schema.Finite.annotate({ description: "finite" }),
        i: Schema.Int,
        inner: Schema.Struct({ flag: Schema.Boolean }),
        tags: Schema.Array(Schema.String),
      }),
    )
    assert.deepStrictEqual(schema, {
      type: "object",
      properties: {
        n: { type: "number" },
        f: { type: "number", description: "finite" },
        i: { type: "integer" },
        inner: {
          type: "object",
          properties: { flag: { type: "boolean" } },
          required: ["flag"],
          additionalProperties: false,
        },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["n", "f", "i", "inner", "tags"],
      additionalProperties: false,
    })
  })

  it("leaves optional and defaulted fields out of required, with the default shown", () => {
    const schema = Arguments.jsonSchema(
      Schema.Struct({
        query: Schema.String,
        key: Schema.optionalKey(Schema.String),
        maybe: Schema.optional(Schema.String),
        limit: Schema.Int.annotate({ description: "How many." }).pipe(Arguments.withDefault(10)),
      }),
    )
    assert.deepStrictEqual(schema, {
      type: "object",
      properties: {
        query: { type: "string" },
        key: { type: "string" },
        // Schema.optional also reads a JSON null as "left out", and says so.
        maybe: { anyOf: [{ type: "string" }, { type: "null" }] },
        limit: { type: "integer", description: "How many.", default: 10 },
      },
      required: ["query"],
      additionalProperties: false,
    })
  })

  it("keeps literals and nullable fields as they are", () => {
    const schema = Arguments.jsonSchema(
      Schema.Struct({
        topic: Schema.Literals(["billing", "bug"]),
        note: Schema.NullOr(Schema.String),
      }),
    )
    assert.deepStrictEqual(schema.properties, {
      topic: { type: "string", enum: ["billing", "bug"] },
      note: { anyOf: [{ type: "string" }, { type: "null" }] },
    })
  })
})

describe("Arguments.jsonSchema of an empty struct", () => {
  it("is an object with no fields, at the root and inside", () => {
    const none = { type: "object", properties: {}, additionalProperties: false }
    assert.deepStrictEqual(Arguments.jsonSchema(Schema.Struct({})), none)
    assert.deepStrictEqual(
      Arguments.jsonSchema(Schema.Struct({ options: Schema.Struct({}) })).properties,
      { options: none },
    )
  })
})

describe("Arguments.standardJsonSchema", () => {
  it("takes zod 4's JSON Schema, without $schema, closed", () => {
    const schema = Arguments.standardJsonSchema(
      z.object({ q: z.string().describe("The query."), limit: z.number().int().default(10) }),
    )
    assert.deepStrictEqual(schema, {
      type: "object",
      properties: {
        q: { type: "string", description: "The query." },
        limit: { type: "integer", default: 10 },
      },
      required: ["q"],
      additionalProperties: false,
    })
  })
})

describe("Arguments.strict", () => {
  it("requires every property, makes optionals nullable, moves defaults to the description", () => {
    const strict = Arguments.strict(
      Arguments.jsonSchema(
        Schema.Struct({
          query: Schema.String.annotate({ description: "The query." }),
          limit: Schema.Int.annotate({ description: "How many." }).pipe(Arguments.withDefault(10)),
          topic: Schema.optionalKey(Schema.Literals(["a", "b"])),
          maybe: Schema.optional(Schema.String),
          inner: Schema.Struct({ deep: Schema.optionalKey(Schema.Boolean) }),
        }),
      ),
    )
    assert.deepStrictEqual(strict, {
      type: "object",
      properties: {
        query: { type: "string", description: "The query." },
        limit: { type: ["integer", "null"], description: "How many. Default: 10." },
        topic: { anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }] },
        maybe: { anyOf: [{ type: "string" }, { type: "null" }] },
        inner: {
          type: "object",
          properties: { deep: { type: ["boolean", "null"] } },
          required: ["deep"],
          additionalProperties: false,
        },
      },
      required: ["query", "limit", "topic", "maybe", "inner"],
      additionalProperties: false,
    })
  })

  it("closes every object and never leaves a default keyword", () => {
    const check = (node: unknown): void => {
      if (typeof node !== "object" || node === null) return
      const record = node as Record<string, unknown>
      assert.isFalse("default" in record)
      if (record.type === "object" && typeof record.properties === "object") {
        assert.strictEqual(record.additionalProperties, false)
        assert.deepStrictEqual(record.required, Object.keys(record.properties as object))
      }
      for (const value of Object.values(record)) check(value)
    }
    check(
      Arguments.strict(
        Arguments.standardJsonSchema(
          z.object({
            a: z.string().optional(),
            b: z.object({ c: z.number().default(1) }),
            d: z.array(z.object({ e: z.boolean().optional() })),
          }),
        ),
      ),
    )
  })
})

describe("properties", () => {
  const field: fc.Arbitrary<Schema.Top> = fc.letrec<{ field: Schema.Top }>((tie) => ({
    field: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom<Schema.Top>(
        Schema.String,
        Schema.Number,
        Schema.Finite,
        Schema.Int,
        Schema.Boolean,
        Schema.Literals(["a", "b"]),
        Schema.NullOr(Schema.Number),
      ),
      tie("field").map((inner) => Schema.Array(inner)),
      fc
        .dictionary(fc.constantFrom("a", "b", "c", "d"), tie("field"), { maxKeys: 3 })
        .map((fields) => Schema.Struct(fields)),
    ),
  })).field

  const struct = fc
    .dictionary(
      fc.stringMatching(/^[a-z_]{1,8}$/),
      fc.tuple(field, fc.constantFrom("required", "optionalKey", "optional", "default")),
      { maxKeys: 6 },
    )
    .map((fields) =>
      Schema.Struct(
        Object.fromEntries(
          Object.entries(fields).map(([name, [schema, how]]) => [
            name,
            how === "optionalKey"
              ? Schema.optionalKey(schema)
              : how === "optional"
                ? Schema.optional(schema)
                : how === "default"
                  ? Schema.Int.pipe(Arguments.withDefault(1))
                  : schema,
          ]),
        ),
      ),
    )

  const objects = (node: unknown): Array<Record<string, unknown>> => {
    if (typeof node !== "object" || node === null) return []
    const record = node as Record<string, unknown>
    const inner = Object.values(record).flatMap(objects)
    return record.type === "object" ? [record, ...inner] : inner
  }

  it("every object is closed and no number allows strings", () => {
    fc.assert(
      fc.property(struct, (schema) => {
        const json = Arguments.jsonSchema(schema)
        assert.notInclude(JSON.stringify(json), "NaN")
        assert.notInclude(JSON.stringify(json), "9007199254740991")
        for (const object of objects(json)) assert.strictEqual(object.additionalProperties, false)
      }),
      { numRuns: 200 },
    )
  })

  it("the strict form requires every property and keeps what was required", () => {
    fc.assert(
      fc.property(struct, (schema) => {
        const json = Arguments.jsonSchema(schema)
        const strict = Arguments.strict(json)
        assert.notInclude(JSON.stringify(strict), '"default"')
        for (const object of objects(strict)) {
          assert.deepStrictEqual(object.required, Object.keys(object.properties as object))
        }
        assert.deepStrictEqual(
          Object.keys(strict.properties as object),
          Object.keys(json.properties as object),
        )
      }),
      { numRuns: 200 },
    )
  })
})
