import { assert, describe, it } from "@effect/vitest"
import { fc } from "@fast-check/vitest"
import { Json, Tool } from "@svir/core"
import { leftOutNulls, leftOutNullsByTool } from "../src/internal/leftOutNulls.js"

/**
 * What a generated schema says, from which it is written out (in one of the forms JSON Schema
 * has for each thing) and its arguments are told apart: for each `null` in them, whether it must
 * be removed. The walk of this model is the oracle the properties check against.
 */
type Model =
  | {
      readonly kind: "scalar"
      readonly type: "string" | "number" | "integer" | "boolean"
      readonly form: "type" | "enum" | "const"
      readonly nullForm: NullForm
      readonly viaRef: boolean
    }
  | { readonly kind: "constNull"; readonly viaRef: boolean }
  | { readonly kind: "any"; readonly asTrue: boolean }
  | {
      readonly kind: "object"
      readonly fields: ReadonlyArray<Field>
      readonly split: boolean
      readonly nullForm: NullForm
      readonly viaRef: boolean
    }
  | {
      readonly kind: "array"
      readonly items: Model
      readonly nullForm: NullForm
      readonly viaRef: boolean
    }
  | {
      readonly kind: "objectOrArray"
      readonly object: Model & { readonly kind: "object" }
      readonly array: Model & { readonly kind: "array" }
    }

/** How a schema that takes `null` says so; `none`: it does not take it. */
type NullForm = "none" | "typeList" | "nullable" | "anyOf" | "enum"

interface Field {
  readonly name: string
  readonly model: Model
  readonly required: boolean
}

// Half the schemas refuse null, so that nulls to remove are common.
const nullForm = fc.constantFrom<NullForm>(
  "none",
  "none",
  "none",
  "typeList",
  "nullable",
  "anyOf",
  "enum",
)

const { model } = fc.letrec<{
  model: Model
  object: Model & { readonly kind: "object" }
  array: Model & { readonly kind: "array" }
}>((tie) => ({
  model: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("scalar" as const),
        type: fc.constantFrom(
          "string" as const,
          "number" as const,
          "integer" as const,
          "boolean" as const,
        ),
        form: fc.constantFrom("type" as const, "type" as const, "enum" as const, "const" as const),
        nullForm,
        viaRef: fc.boolean(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("constNull" as const), viaRef: fc.boolean() }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("any" as const), asTrue: fc.boolean() }),
    },
    { weight: 2, arbitrary: tie("object") },
    { weight: 2, arbitrary: tie("array") },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("objectOrArray" as const),
        object: tie("object"),
        array: tie("array"),
      }),
    },
  ),
  object: fc.record({
    kind: fc.constant("object" as const),
    fields: fc.uniqueArray(
      fc.record({
        name: fc.constantFrom("a", "b", "c", "d", "e", "__proto__", "constructor"),
        model: tie("model"),
        // Mostly optional: what the strict form makes nullable.
        required: fc.constantFrom(false, false, false, true),
      }),
      { minLength: 1, maxLength: 5, selector: (field) => field.name },
    ),
    split: fc.boolean(),
    nullForm: fc.constantFrom<NullForm>("none", "none", "none", "typeList", "nullable", "anyOf"),
    viaRef: fc.boolean(),
  }),
  array: fc.record({
    kind: fc.constant("array" as const),
    items: tie("model"),
    nullForm: fc.constantFrom<NullForm>("none", "none", "none", "typeList", "nullable", "anyOf"),
    viaRef: fc.boolean(),
  }),
}))

const scalarValues = {
  string: ["x", "y"],
  number: [1.5, 2],
  integer: [1, 2],
  boolean: [true, false],
} as const

/** The model's JSON Schema, with the definitions its `$ref`s name. */
const writeSchema = (root: Model & { readonly kind: "object" }): Record<string, unknown> => {
  const defs: Record<string, unknown> = {}
  const viaRef = (schema: Record<string, unknown>, asRef: boolean) => {
    if (!asRef) return schema
    const name = `D${Object.keys(defs).length}`
    defs[name] = schema
    return { $ref: `#/$defs/${name}` }
  }
  const orNull = (
    schema: Record<string, unknown>,
    form: NullForm,
    values: ReadonlyArray<unknown>,
  ) => {
    switch (form) {
      case "none":
        return schema
      case "typeList":
        return { ...schema, type: [schema.type, "null"] }
      case "nullable":
        return { ...schema, nullable: true }
      case "anyOf":
        return { anyOf: [schema, { type: "null" }] }
      case "enum":
        return { enum: [...values, null] }
    }
  }
  const write = (node: Model): unknown => {
    switch (node.kind) {
      case "scalar": {
        const values = scalarValues[node.type]
        const plain: Record<string, unknown> =
          node.form === "const" && node.nullForm === "none"
            ? { const: values[0] }
            : node.form === "enum" && node.nullForm === "none"
              ? { type: node.type, enum: values }
              : { type: node.type }
        return viaRef(orNull(plain, node.nullForm, values), node.viaRef)
      }
      case "constNull":
        return viaRef({ const: null }, node.viaRef)
      case "any":
        return node.asTrue ? true : {}
      case "object": {
        const properties = node.fields.map((field) => [field.name, write(field.model)] as const)
        const required = node.fields.filter((field) => field.required).map((field) => field.name)
        const half = Math.ceil(properties.length / 2)
        const plain: Record<string, unknown> = node.split
          ? {
              type: "object",
              allOf: [
                { properties: Object.fromEntries(properties.slice(0, half)), required },
                { properties: Object.fromEntries(properties.slice(half)) },
              ],
            }
          : { type: "object", properties: Object.fromEntries(properties), required }
        return viaRef(orNull(plain, node.nullForm, []), node.viaRef)
      }
      case "array":
        return viaRef(
          orNull({ type: "array", items: write(node.items) }, node.nullForm, []),
          node.viaRef,
        )
      case "objectOrArray":
        return { anyOf: [write(node.object), write(node.array)] }
    }
  }
  const schema = write({ ...root, nullForm: "none", viaRef: false }) as Record<string, unknown>
  return { ...schema, $defs: defs }
}

const takesNull = (node: Model): boolean =>
  node.kind === "objectOrArray"
    ? takesNull(node.object) || takesNull(node.array)
    : node.kind === "constNull" || node.kind === "any" || node.nullForm !== "none"

/** Arguments for a model: each field present, absent or `null`, whatever it takes. */
const argumentsOf = (node: Model): fc.Arbitrary<unknown> => {
  switch (node.kind) {
    case "scalar":
      return fc.constantFrom(...scalarValues[node.type], null)
    case "constNull":
      return fc.constant(null)
    case "any":
      return fc.jsonValue({ maxDepth: 2 })
    case "object":
      return fc
        .tuple(
          ...node.fields.map((field) =>
            fc.oneof(
              { arbitrary: fc.constant(undefined), weight: 1 },
              { arbitrary: fc.constant(null), weight: 2 },
              { arbitrary: argumentsOf(field.model), weight: 2 },
            ),
          ),
        )
        .map((values) =>
          Object.fromEntries(
            node.fields.flatMap((field, i) =>
              values[i] === undefined ? [] : [[field.name, values[i]] as const],
            ),
          ),
        )
    case "array":
      return fc.array(argumentsOf(node.items), { minLength: 1, maxLength: 3 })
    case "objectOrArray":
      return fc.oneof(argumentsOf(node.object), argumentsOf(node.array))
  }
}

type Path = ReadonlyArray<string | number>

/** Where the arguments hold a `null`, each with whether it can only mean "left out". */
const nullsIn = (node: Model, value: unknown, path: Path, found: Array<[Path, boolean]>): void => {
  if (node.kind === "objectOrArray") {
    nullsIn(Array.isArray(value) ? node.array : node.object, value, path, found)
  } else if (node.kind === "object" && Json.isObject(value)) {
    for (const field of node.fields) {
      if (!Object.hasOwn(value, field.name)) continue
      const at = [...path, field.name]
      const inner = value[field.name]
      if (inner === null) found.push([at, !field.required && !takesNull(field.model)])
      else nullsIn(field.model, inner, at, found)
    }
  } else if (node.kind === "array" && Array.isArray(value)) {
    value.forEach((item, i) => {
      if (item === null) found.push([[...path, i], false])
      else nullsIn(node.items, item, [...path, i], found)
    })
  }
}

/** The value at a path, and whether there is one. */
const at = (value: unknown, path: Path): { readonly found: boolean; readonly value?: unknown } => {
  let here = value
  for (const step of path) {
    if (typeof here !== "object" || here === null || !Object.hasOwn(here, step)) {
      return { found: false }
    }
    here = (here as Record<string | number, unknown>)[step]
  }
  return { found: true, value: here }
}

/** A copy without the keys at `paths`: what the arguments must become. */
const without = (value: unknown, paths: ReadonlyArray<Path>): unknown => {
  const copy = structuredClone(value)
  for (const path of paths) {
    const parent = at(copy, path.slice(0, -1)).value as Record<string, unknown>
    delete parent[path.at(-1) as string]
  }
  return copy
}

const example = model
  .filter((node): node is Model & { readonly kind: "object" } => node.kind === "object")
  .chain((root) =>
    argumentsOf(root).map((args) => ({
      root,
      schema: writeSchema(root),
      args: args as Record<string, unknown>,
    })),
  )

describe("leftOutNulls", () => {
  it("removes exactly the nulls for optional properties that do not take null, idempotently", () => {
    fc.assert(
      fc.property(example, ({ root, schema, args }) => {
        const given = structuredClone(args)
        const remove = leftOutNulls(schema)
        const after = remove(args)
        const nulls: Array<[Path, boolean]> = []
        nullsIn(root, args, [], nulls)
        // (a) A null the schema takes, or one for a required property, or in an array, is kept.
        for (const [path, leftOut] of nulls) {
          if (!leftOut) assert.deepStrictEqual(at(after, path), { found: true, value: null })
        }
        // (b) Nothing else changes, and the arguments given are left as they were.
        const removed = nulls.filter(([, leftOut]) => leftOut).map(([path]) => path)
        assert.deepStrictEqual(after, without(args, removed))
        assert.deepStrictEqual(args, given)
        // (c) No property that is optional and does not take null is null any more.
        for (const path of removed) assert.isFalse(at(after, path).found)
        // (d) Removing again removes nothing.
        assert.deepStrictEqual(remove(after), after)
      }),
      { numRuns: 500 },
    )
  })

  it("follows recursive $refs and tuples, and keeps what it cannot read for sure", () => {
    const schema = {
      type: "object",
      properties: {
        tree: { $ref: "#/$defs/Node" },
        pair: {
          type: "array",
          prefixItems: [{ type: "object", properties: { x: { type: "number" } } }],
          items: { type: "object", properties: { y: { type: "number" } } },
        },
        remote: { $ref: "other.json#/Thing" },
        map: { type: "object", additionalProperties: { type: "number" } },
        not: { not: { type: "null" } },
      },
      $defs: {
        Node: {
          type: "object",
          properties: { label: { type: "string" }, kids: { type: "array", items: { $ref: "#" } } },
        },
      },
    }
    const args = {
      tree: { label: null, kids: [{ tree: { label: null, kids: null } }] },
      pair: [
        { x: null, y: null },
        { x: null, y: null },
      ],
      remote: null,
      map: { k: null },
      not: null,
    }
    assert.deepStrictEqual(leftOutNulls(schema)(args), {
      tree: { kids: [{ tree: {} }] },
      pair: [{ y: null }, { x: null }],
      remote: null,
      map: { k: null },
      not: null,
    })
  })

  it("takes the branch of a union that the value's tag or kind singles out, and no other", () => {
    const shapes = {
      type: "object",
      properties: {
        shape: {
          oneOf: [
            {
              type: "object",
              properties: { kind: { const: "circle" }, radius: { type: "number" } },
              required: ["kind"],
            },
            {
              type: "object",
              properties: { kind: { enum: ["box"] }, radius: { type: ["number", "null"] } },
              required: ["kind"],
            },
          ],
        },
        list: {
          anyOf: [
            { type: "object", properties: { a: { type: "number" } } },
            { type: "array", items: { type: "object", properties: { b: { type: "number" } } } },
          ],
        },
        either: {
          anyOf: [
            { type: "object", properties: { a: { type: "number" } } },
            { type: "object", properties: { b: { type: "number" } } },
          ],
        },
      },
    }
    const remove = leftOutNulls(shapes)
    assert.deepStrictEqual(remove({ shape: { kind: "circle", radius: null } }), {
      shape: { kind: "circle" },
    })
    assert.deepStrictEqual(remove({ shape: { kind: "box", radius: null } }), {
      shape: { kind: "box", radius: null },
    })
    assert.deepStrictEqual(remove({ shape: { kind: "star", radius: null } }), {
      shape: { kind: "star", radius: null },
    })
    assert.deepStrictEqual(remove({ list: { a: null, b: null } }), { list: { b: null } })
    assert.deepStrictEqual(remove({ list: [{ a: null, b: null }] }), { list: [{ a: null }] })
    // Two branches take objects and nothing tells them apart: each null may be meant.
    assert.deepStrictEqual(remove({ either: { a: null, b: null } }), {
      either: { a: null, b: null },
    })
  })

  it("keeps a key named __proto__ a key", () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"object","properties":{"n":{"type":"number"}}}}}',
    )
    const after = leftOutNulls(schema)(JSON.parse('{"__proto__":{"n":null,"m":1}}'))
    assert.deepStrictEqual(Object.keys(after), ["__proto__"])
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(after, "__proto__")?.value, { m: 1 })
    assert.strictEqual(Object.getPrototypeOf(after), Object.prototype)
  })

  it("plans a schema whose unions multiply without end, within its bound", () => {
    // Each level adds X or Y to what the value must fit: 2^60 sets, were each planned.
    const levels = 60
    const $defs: Record<string, unknown> = {}
    for (let i = 0; i < levels; i++) {
      const next = i + 1 < levels ? [{ $ref: `#/$defs/D${i + 1}` }] : []
      $defs[`D${i}`] = {
        anyOf: [
          { allOf: [{ properties: { [`x${i}`]: { type: "number" } } }, ...next] },
          { allOf: [{ properties: { [`y${i}`]: { type: "number" } } }, ...next] },
        ],
      }
    }
    const schema = {
      type: "object",
      properties: { top: { type: "number" } },
      allOf: [{ $ref: "#/$defs/D0" }],
      $defs,
    }
    assert.deepStrictEqual(leftOutNulls(schema)({ top: null, x0: null }), { x0: null })
  })

  it("walks large arguments in one pass", () => {
    const schema = {
      type: "object",
      properties: {
        rows: { type: "array", items: { type: "object", properties: { n: { type: "number" } } } },
        wide: { type: "object", properties: { n: { type: "number" } } },
      },
    }
    const count = 100_000
    const wide: Record<string, unknown> = { n: null }
    for (let i = 0; i < count; i++) wide[`k${i}`] = i
    const rows = Array.from({ length: count }, (_, i) => ({ n: null, i }))
    const after = leftOutNulls(schema)({ rows, wide })
    const cleaned = after.rows as ReadonlyArray<Record<string, unknown>>
    assert.strictEqual(cleaned.length, count)
    assert.deepStrictEqual(cleaned[count - 1], { i: count - 1 })
    assert.strictEqual(Object.keys(after.wide as object).length, count)
    assert.isFalse(Object.hasOwn(after.wide as object, "n"))
  })

  it("changes nothing for a schema with nothing to remove, or for nulls nested too deep", () => {
    const args = { a: null, b: [null] }
    assert.strictEqual(leftOutNulls({ type: "object" })(args), args)
    assert.strictEqual(leftOutNulls(true)(args), args)
    const deep = { type: "object", properties: { a: { $ref: "#" }, n: { type: "number" } } }
    let value: Record<string, unknown> = { n: null }
    for (let i = 0; i < Json.maxDepth + 10; i++) value = { a: value }
    let after: unknown = leftOutNulls(deep)(value)
    for (let i = 0; i < Json.maxDepth + 10; i++) after = (after as { a: unknown }).a
    assert.deepStrictEqual(after, { n: null })
  })
})

describe("leftOutNullsByTool", () => {
  it("makes a tool's function at its first call, once, and none for a tool never called", () => {
    const read: Array<string> = []
    const tool = (name: string) => {
      const made = Tool.make(name, "", {
        type: "object",
        properties: { tail: { type: "number" } },
      })
      return Object.defineProperty({ ...made }, "inputSchema", {
        get: () => {
          read.push(name)
          return made.inputSchema
        },
      })
    }
    const byTool = leftOutNullsByTool([tool("read"), tool("list")])
    assert.deepStrictEqual(read, [])
    assert.deepStrictEqual(byTool.get("read")?.({ tail: null }), {})
    assert.deepStrictEqual(byTool.get("read")?.({ tail: null, path: null }), { path: null })
    assert.deepStrictEqual(read, ["read"])
    assert.isUndefined(byTool.get("other"))
  })
})
