import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Result, Schema } from "effect"
import * as fc from "fast-check"
import { Json, ToolCall } from "../src/index.js"

const runs = Number(process.env.SVIR_FUZZ_RUNS ?? 10_000)

/** The longest message a model may be sent about its arguments. */
const maxMessage = 4_096

const Args = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  note: Schema.optional(Schema.String),
  tags: Schema.Array(Schema.String),
})

interface Tree {
  readonly value: number
  readonly children?: ReadonlyArray<Tree>
}
const Tree = Schema.Struct({
  value: Schema.Number,
  children: Schema.optionalKey(Schema.Array(Schema.suspend((): Schema.Codec<Tree> => Tree))),
})

const schemas: ReadonlyArray<Schema.Decoder<unknown>> = [Args, Tree, Schema.Unknown]

const finite = fc.double({ noNaN: true, noDefaultInfinity: true })

const validArgs = fc.record(
  { id: fc.integer(), name: fc.string(), note: fc.string(), tags: fc.array(fc.string()) },
  { requiredKeys: ["id", "name", "tags"] },
)

const looseArgs = fc.record(
  {
    id: fc.oneof(fc.integer(), finite, fc.string(), fc.constant(null)),
    name: fc.oneof(fc.string(), fc.integer()),
    note: fc.oneof(fc.string(), fc.boolean()),
    tags: fc.oneof(fc.array(fc.string()), fc.array(fc.jsonValue({ maxDepth: 2 }))),
  },
  { requiredKeys: [] },
)

const tree = (value: fc.Arbitrary<unknown>) =>
  fc.letrec<{ tree: unknown }>((tie) => ({
    tree: fc.record(
      { value, children: fc.array(tie("tree"), { maxLength: 3 }) },
      { requiredKeys: ["value"] },
    ),
  })).tree

/** Argument objects close to what a model writes for `Args` or `Tree`, some of the wrong type. */
const argumentValue: fc.Arbitrary<unknown> = fc.oneof(
  validArgs,
  looseArgs,
  tree(finite),
  tree(fc.oneof(finite, fc.string())),
  fc.jsonValue({ maxDepth: 4 }),
)

/** Small edits that usually break JSON: remove, insert or replace a character, or cut the text. */
const edits = {
  remove: (text: string, at: number) => text.slice(0, at) + text.slice(at + 1),
  insert: (text: string, at: number, char: string) => text.slice(0, at) + char + text.slice(at),
  replace: (text: string, at: number, char: string) =>
    text.slice(0, at) + char + text.slice(at + 1),
  cut: (text: string, at: number) => text.slice(0, at),
  none: (text: string) => text,
}

const mutated = fc
  .record({
    value: argumentValue,
    edit: fc.constantFrom(...Object.values(edits), edits.none, edits.none),
    at: fc.nat(),
    char: fc.constantFrom(...'{}[]",:\\1-.e \u0000', "😀"),
  })
  .map(({ value, edit, at, char }) => {
    const text = JSON.stringify(value) ?? ""
    return edit(text, at % (text.length + 1), char)
  })

/** Nesting around the limit and far past it, closed or not, valid for `Tree` when closed. */
const deep = fc
  .record({
    levels: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 300, max: 100_000 })),
    shape: fc.constantFrom(
      { open: "[", close: "]" },
      { open: '{"a":', close: "}" },
      { open: '{"value":1,"children":[', close: "]}" },
    ),
    inner: fc.constantFrom('{"value":2}', "1", "", "x"),
    closed: fc.boolean(),
  })
  .map(({ levels, shape, inner, closed }) => {
    const times = shape.close.length === 2 ? Math.ceil(levels / 2) : levels
    return shape.open.repeat(times) + inner + (closed ? shape.close.repeat(times) : "")
  })

/** Large arguments: long strings, long arrays of the wrong type, in and out of objects. */
const hugeShapes = {
  name: (size: number) => JSON.stringify({ id: 1, name: "x".repeat(size), tags: [] }),
  tags: (size: number) =>
    JSON.stringify({ id: 1, name: "n", tags: Array.from({ length: size / 8 }, () => "t") }),
  wrongTags: (size: number) =>
    JSON.stringify({ id: "1", name: 2, tags: Array.from({ length: size / 2 }, () => 1) }),
  bare: (size: number) => JSON.stringify("y".repeat(size)),
  broken: (size: number) => `{"name": "${"z".repeat(size)}" "id": 1}`,
}

const huge = fc
  .record({
    size: fc.integer({ min: 10_000, max: 100_000 }),
    shape: fc.constantFrom(...Object.values(hugeShapes)),
  })
  .map(({ size, shape }) => shape(size))

const argumentsText = fc.oneof(
  { arbitrary: fc.string(), weight: 4 },
  { arbitrary: fc.string({ unit: "binary" }), weight: 1 },
  { arbitrary: mutated, weight: 12 },
  { arbitrary: deep, weight: 2 },
  { arbitrary: huge, weight: 1 },
)

/** What reading and decoding should give, by `JSON.parse` and the schema, within the limit. */
const oracle = (text: string, schema: Schema.Decoder<unknown>): Result.Result<unknown, void> => {
  if (text.trim() === "")
    return Schema.decodeUnknownResult(schema)({}).pipe(Result.mapError(() => {}))
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return Result.failVoid
  }
  return Schema.decodeUnknownResult(schema)(json).pipe(Result.mapError(() => {}))
}

describe("ToolCall fuzzing", () => {
  it("reads and decodes any arguments to a value or an ArgumentsError with a short message", () => {
    fc.assert(
      fc.property(argumentsText, (text) => {
        const tooDeep = Json.textDepth(text, Json.maxDepth) > Json.maxDepth
        const read = ToolCall.readJson(text)
        if (Result.isFailure(read)) assert.isAtMost(read.failure.message.length, maxMessage)
        for (const schema of schemas) {
          const exit = Effect.runSyncExit(ToolCall.parse(ToolCall.make("c", "t", text), schema))
          if (Exit.isFailure(exit)) {
            const error = Cause.findErrorOption(exit.cause)
            assert.isTrue(
              error._tag === "Some",
              `not an ArgumentsError: ${Cause.pretty(exit.cause)}`,
            )
            if (error._tag === "Some") {
              assert.strictEqual(error.value._tag, "ArgumentsError")
              assert.isAtMost(error.value.message.length, maxMessage)
              if (tooDeep)
                assert.strictEqual(error.value.message, "arguments nest deeper than 128 levels")
            }
          }
          if (tooDeep) {
            assert.isTrue(Exit.isFailure(exit))
            continue
          }
          const expected = oracle(text, schema)
          assert.strictEqual(Exit.isSuccess(exit), Result.isSuccess(expected), text.slice(0, 200))
          if (Exit.isSuccess(exit) && Result.isSuccess(expected)) {
            assert.deepStrictEqual(exit.value, expected.success)
          }
        }
      }),
      { numRuns: runs, seed: 7_070 },
    )
  }, 120_000)
})
