import { assert, describe, it } from "@effect/vitest"
import { Completion, ToolCall } from "@svir/core"
import { StructuredOutput } from "@svir/registry"
import { Effect, Exit, Schema } from "effect"
import * as fc from "fast-check"
import { zodResponseFormat } from "openai/helpers/zod"
import * as z from "zod"

const City = Schema.Struct({
  name: Schema.String,
  country: Schema.String.annotate({ description: "ISO 3166 code" }),
  population: Schema.optional(Schema.Int),
  districts: Schema.Array(
    Schema.Struct({ name: Schema.String, area: Schema.optionalKey(Schema.Finite) }),
  ),
})

const city = Effect.runSync(StructuredOutput.make("city", City, { description: "A city." }))

const answer = (text: string, fields: Partial<Completion.Completion> = {}) =>
  Completion.make({ text, finish: "stop", ...fields })

/** The reason a decoding failed with, and its message. */
const failed = <A>(effect: Effect.Effect<A, StructuredOutput.OutputError>) => {
  const exit = Effect.runSyncExit(effect)
  assert.isTrue(Exit.isFailure(exit), "expected the answer to be refused")
  const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
  if (reason?._tag !== "Fail") throw new Error("expected a failure")
  return reason.error
}

describe("StructuredOutput.make", () => {
  it("sends the strict JSON Schema of an Effect Schema, with strict: true", () => {
    assert.deepStrictEqual(city.responseFormat, {
      _tag: "JsonSchema",
      name: "city",
      description: "A city.",
      strict: true,
      schema: {
        type: "object",
        properties: {
          name: { type: "string" },
          country: { type: "string", description: "ISO 3166 code" },
          population: { anyOf: [{ type: "integer" }, { type: "null" }] },
          districts: {
            type: "array",
            items: {
              type: "object",
              properties: { name: { type: "string" }, area: { type: ["number", "null"] } },
              required: ["name", "area"],
              additionalProperties: false,
            },
          },
        },
        required: ["name", "country", "population", "districts"],
        additionalProperties: false,
      },
    })
    assert.deepStrictEqual(
      city.changes.map((change) => change.path),
      ["/properties/districts/items/properties/area", "/properties/population"],
    )
  })

  it("keeps a recursive schema's $defs, and inlines the others", () => {
    interface Node {
      readonly name: string
      readonly children: ReadonlyArray<Node>
    }
    const Node: Schema.Codec<Node> = Schema.Struct({
      name: Schema.String,
      children: Schema.Array(Schema.suspend((): Schema.Codec<Node> => Node)),
    }).annotate({ identifier: "Node" })
    const tree = Effect.runSync(StructuredOutput.make("tree", Node))
    assert.deepStrictEqual(tree.responseFormat.schema.properties, {
      name: { type: "string" },
      children: { type: "array", items: { $ref: "#/$defs/Node" } },
    })
    assert.property(tree.responseFormat.schema, "$defs")
    const Place = Schema.Struct({ name: Schema.String }).annotate({ identifier: "Place" })
    const trip = Effect.runSync(
      StructuredOutput.make("trip", Schema.Struct({ from: Place, to: Place })),
    )
    assert.notProperty(trip.responseFormat.schema, "$defs")
    const value = Effect.runSync(
      StructuredOutput.decode(
        tree,
        answer('{"name": "a", "children": [{"name": "b", "children": []}]}'),
      ),
    )
    assert.deepStrictEqual(value, { name: "a", children: [{ name: "b", children: [] }] })
  })

  it("refuses a name servers refuse, and a schema that cannot be strict, saying why", () => {
    const refusal = (effect: Effect.Effect<unknown, { readonly message: string }>) => {
      const exit = Effect.runSyncExit(effect)
      const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      return reason?._tag === "Fail" ? reason.error.message : "succeeded"
    }
    assert.include(
      refusal(StructuredOutput.make("the city", City)),
      'output name "the city" has " "',
    )
    assert.strictEqual(
      refusal(StructuredOutput.make("word", Schema.String)),
      'the output word: the schema cannot be put in strict form: at #: the root must be an object (type "object"), not type "string"',
    )
    assert.include(
      refusal(
        StructuredOutput.make("counts", z.object({ counts: z.record(z.string(), z.number()) })),
      ),
      "at #/properties/counts: an object that takes keys it does not name",
    )
  })
})

describe("StructuredOutput.decode", () => {
  it("gives the schema's type, a null for an optional field read as left out", () => {
    const value = Effect.runSync(
      StructuredOutput.decode(
        city,
        answer(
          '{"name": "Kyoto", "country": "JP", "population": null, "districts": [{"name": "Gion", "area": null}]}',
        ),
      ),
    )
    // `Schema.optional` reads null as undefined, as Effect's JSON codec does; `optionalKey` leaves
    // the key out.
    assert.deepStrictEqual(value, {
      name: "Kyoto",
      country: "JP",
      population: undefined,
      districts: [{ name: "Gion" }],
    })
  })

  it("says why an answer cannot be read, with the reason's own data", () => {
    const refused = failed(
      StructuredOutput.decode(city, answer("", { refusal: "I can't help with that." })),
    )
    assert.deepStrictEqual(
      refused.reason,
      new StructuredOutput.Refused({ refusal: "I can't help with that." }),
    )
    assert.strictEqual(refused.message, 'the model refused: "I can\'t help with that."')
    assert.strictEqual(
      failed(StructuredOutput.decode(city, answer("", { finish: "refusal" }))).message,
      "the model refused to answer",
    )

    const cut = failed(StructuredOutput.decode(city, answer('{"name": "Ky', { finish: "length" })))
    assert.deepStrictEqual(cut.reason, new StructuredOutput.Truncated({ text: '{"name": "Ky' }))

    const filtered = failed(StructuredOutput.decode(city, answer("", { finish: "content_filter" })))
    assert.strictEqual(filtered.reason._tag, "Filtered")

    const calledTools = failed(
      StructuredOutput.decode(
        city,
        answer("", { finish: "tool_calls", calls: [ToolCall.make("1", "lookup", "{}")] }),
      ),
    )
    assert.strictEqual(calledTools.message, "the answer has no text: the model called lookup")

    const prose = failed(StructuredOutput.decode(city, answer("Kyoto is in Japan.")))
    assert.strictEqual(prose.reason._tag, "NotJson")
    assert.strictEqual(
      prose.message,
      'the answer is not JSON (the text is not valid JSON): "Kyoto is in Japan."',
    )
    const huge = failed(StructuredOutput.decode(city, answer("x".repeat(100_000))))
    assert.isBelow(huge.message.length, 200)

    const wrong = failed(
      StructuredOutput.decode(city, answer('{"name": "Kyoto", "country": 81, "districts": [{}]}')),
    )
    assert.strictEqual(wrong.reason._tag, "Mismatch")
    if (wrong.reason._tag === "Mismatch") {
      assert.deepStrictEqual(
        wrong.reason.issues.map((issue) => issue.path),
        [["country"], ["districts", 0, "name"]],
      )
    }
  })

  it.effect("a reason is matched with Effect.catchReason", () =>
    Effect.gen(function* () {
      const text = yield* StructuredOutput.decode(city, answer("", { refusal: "No." })).pipe(
        Effect.map((value) => value.name),
        Effect.catchReason("OutputError", "Refused", (reason) =>
          Effect.succeed(`refused: ${reason.refusal}`),
        ),
        Effect.catchTag("OutputError", (error) => Effect.succeed(error.reason._tag)),
      )
      assert.strictEqual(text, "refused: No.")
    }),
  )

  it("reads a zod schema's answer with zod, refusing keys its closed schema does not name", () => {
    const Weather = z.object({ city: z.string(), celsius: z.number(), note: z.string().optional() })
    const weather = Effect.runSync(StructuredOutput.make("weather", Weather))
    assert.deepStrictEqual(
      Effect.runSync(
        StructuredOutput.decode(weather, answer('{"city": "Oslo", "celsius": -3, "note": null}')),
      ),
      { city: "Oslo", celsius: -3 },
    )
    const extra = failed(
      StructuredOutput.decode(
        weather,
        answer('{"city": "Oslo", "celsius": -3, "note": null, "wind": 4}'),
      ),
    )
    assert.include(extra.message, "wind: Unexpected key")
  })
})

// zod schemas and values that fit them: objects, arrays, enums, literals, nullable fields,
// unions (anyOf) and discriminated unions (oneOf in zod's JSON Schema).

interface Case {
  readonly schema: z.ZodType
  readonly value: fc.Arbitrary<unknown>
}

const leafCase: fc.Arbitrary<Case> = fc.constantFrom<Case>(
  { schema: z.string(), value: fc.string({ maxLength: 5 }) },
  { schema: z.number(), value: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { schema: z.boolean(), value: fc.boolean() },
  { schema: z.enum(["red", "green"]), value: fc.constantFrom("red", "green") },
  { schema: z.literal("fixed"), value: fc.constant("fixed") },
  { schema: z.string().describe("A note."), value: fc.string({ maxLength: 5 }) },
)

const objectOf = (fields: ReadonlyArray<readonly [string, Case]>): Case => ({
  schema: z.object(Object.fromEntries(fields.map(([name, field]) => [name, field.schema]))),
  value: fc.record(Object.fromEntries(fields.map(([name, field]) => [name, field.value]))),
})

const zodCase: fc.Arbitrary<Case> = fc.letrec<{ case: Case; object: Case }>((tie) => ({
  case: fc.oneof(
    { depthSize: "small", maxDepth: 3 },
    leafCase,
    tie("object"),
    tie("case").map((item) => ({
      schema: z.array(item.schema),
      value: fc.array(item.value, { maxLength: 3 }),
    })),
    tie("case").map((item) => ({
      schema: item.schema.nullable(),
      value: fc.option(item.value, { nil: null }),
    })),
    fc.tuple(leafCase, tie("object")).map(([a, b]) => ({
      schema: z.union([a.schema, b.schema]),
      value: fc.oneof(a.value, b.value),
    })),
    fc.tuple(tie("case"), tie("case")).map(([a, b]) => ({
      schema: z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("a"), a: a.schema }),
        z.object({ kind: z.literal("b"), b: b.schema }),
      ]),
      value: fc.oneof(
        fc.record({ kind: fc.constant("a"), a: a.value }),
        fc.record({ kind: fc.constant("b"), b: b.value }),
      ),
    })),
  ),
  object: fc
    .uniqueArray(fc.tuple(fc.constantFrom("id", "title", "items", "meta"), tie("case")), {
      selector: ([name]) => name,
      maxLength: 4,
    })
    .map(objectOf),
})).object

describe("StructuredOutput properties", () => {
  it("sends the JSON Schema the OpenAI SDK's zodResponseFormat sends for the same zod schema", () => {
    fc.assert(
      fc.property(zodCase, ({ schema }) => {
        const { $schema: _dialect, ...theirs } = zodResponseFormat(schema as z.ZodObject, "out")
          .json_schema.schema as Record<string, unknown>
        const ours = Effect.runSync(StructuredOutput.make("out", schema as z.ZodObject))
        assert.deepStrictEqual(ours.responseFormat.schema, theirs)
      }),
      { numRuns: 300 },
    )
  })

  it("an answer that fits decodes to what zod parses it to", () => {
    fc.assert(
      fc.property(
        zodCase.chain((item) => fc.tuple(fc.constant(item.schema), item.value)),
        ([schema, value]) => {
          const output = Effect.runSync(StructuredOutput.make("out", schema as z.ZodObject))
          const text = JSON.stringify(value)
          const decoded = Effect.runSync(StructuredOutput.decode(output, answer(text)))
          assert.deepStrictEqual(decoded, schema.parse(JSON.parse(text)))
        },
      ),
      { numRuns: 300 },
    )
  })

  it("an Effect Schema answer with null for its optional fields decodes as if they were left out", () => {
    const Row = Schema.Struct({
      id: Schema.Int,
      label: Schema.optional(Schema.String),
      score: Schema.optionalKey(Schema.Finite),
      tags: Schema.optionalKey(Schema.Array(Schema.String)),
    })
    const row = Effect.runSync(StructuredOutput.make("row", Row))
    fc.assert(
      fc.property(
        fc.record(
          {
            id: fc.integer(),
            label: fc.string(),
            score: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
            tags: fc.array(fc.string(), { maxLength: 3 }),
          },
          { requiredKeys: ["id"] },
        ),
        (value) => {
          // What a strict-mode model sends: every field, null for those it leaves out.
          const sent = { label: null, score: null, tags: null, ...value }
          const decoded = Effect.runSync(StructuredOutput.decode(row, answer(JSON.stringify(sent))))
          const expected = { label: undefined, ...JSON.parse(JSON.stringify(value)) }
          assert.deepStrictEqual(decoded, expected)
        },
      ),
      { numRuns: 300 },
    )
  })
})
