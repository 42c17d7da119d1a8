import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { Request } from "../src/index.js"

const base = Request.make("m").pipe(Request.user("Hi"))

/** Each option's function, the field it sets, values it accepts and values it refuses. */
const options: ReadonlyArray<{
  readonly name: string
  readonly set: (request: Request.Request, value: never) => Request.Request
  readonly field: keyof Request.Request
  readonly valid: fc.Arbitrary<unknown>
  readonly invalid: fc.Arbitrary<unknown>
}> = [
  {
    name: "seed",
    set: Request.seed,
    field: "seed",
    valid: fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    invalid: fc.oneof(
      fc.double({ noInteger: true }),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53),
    ),
  },
  {
    name: "topP",
    set: Request.topP,
    field: "topP",
    valid: fc.double({ min: 0, max: 1, noNaN: true }),
    invalid: fc.oneof(
      fc.double({ min: 1, minExcluded: true }),
      // -0 is 0, which is in range.
      fc.double({ max: 0, maxExcluded: true }).filter((p) => p < 0),
      fc.constant(Number.NaN),
    ),
  },
  {
    name: "stop",
    set: Request.stop,
    field: "stop",
    valid: fc.oneof(
      fc.string({ minLength: 1 }),
      fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 4 }),
    ),
    invalid: fc.oneof(
      fc.constant(""),
      fc.constant([]),
      fc.array(fc.string({ minLength: 1 }), { minLength: 5, maxLength: 8 }),
      fc
        .array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 3 })
        .map((list) => [...list, ""]),
    ),
  },
  ...(["presencePenalty", "frequencyPenalty"] as const).map((name) => ({
    name,
    set: Request[name],
    field: name,
    valid: fc.double({ min: -2, max: 2, noNaN: true }),
    invalid: fc.oneof(
      fc.double({ min: 2, minExcluded: true }),
      fc.double({ max: -2, maxExcluded: true }),
      fc.constant(Number.NaN),
    ),
  })),
]

describe("Request options", () => {
  it("each function sets its field, and the request can be sent with any value in range", () => {
    for (const option of options) {
      fc.assert(
        fc.property(option.valid, (value) => {
          const request = option.set(base, value as never)
          assert.deepStrictEqual(request[option.field], value, option.name)
          assert.isUndefined(Request.problem(request), option.name)
        }),
      )
    }
  })

  it("a value out of range is refused, saying which option", () => {
    for (const option of options) {
      fc.assert(
        fc.property(option.invalid, (value) => {
          const why = Request.problem(option.set(base, value as never))
          assert.isString(why, `${option.name} ${JSON.stringify(value)}`)
        }),
      )
    }
    assert.strictEqual(
      Request.problem(Request.presencePenalty(base, 2.5)),
      "presence penalty must be between -2 and 2, not 2.5",
    )
    assert.strictEqual(
      Request.problem(Request.stop(base, ["a", "b", "c", "d", "e"])),
      "stop takes 1 to 4 sequences, not 5",
    )
  })

  it.effect("validate refuses an option out of range with Unsupported", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Request.validate(Request.topP(base, 1.5)))
      assert.strictEqual(error.reason._tag, "Unsupported")
      assert.strictEqual(error.message, "top p must be between 0 and 1, not 1.5")
    }),
  )

  it("parallel tool calls is set as given", () => {
    const request = base.pipe(Request.parallelToolCalls(false))
    assert.strictEqual(request.parallelToolCalls, false)
    assert.isUndefined(Request.problem(request))
  })

  it("extra fields add up; a field given again replaces it; the request keeps its messages", () => {
    const first = base.pipe(Request.extra({ top_k: 20, provider: { order: ["a"] } }))
    const second = first.pipe(Request.extra({ top_k: 40, min_p: 0.05 }))
    assert.deepStrictEqual(first.extra, { top_k: 20, provider: { order: ["a"] } })
    assert.deepStrictEqual(second.extra, { top_k: 40, provider: { order: ["a"] }, min_p: 0.05 })
    assert.deepStrictEqual(second.messages, base.messages)
  })

  it("a new request sets none of the options", () => {
    const set = Object.entries(Request.make("m")).flatMap(([field, value]) =>
      value === undefined ? [] : [field],
    )
    assert.deepStrictEqual(set, ["model", "messages", "tools", "toolChoice"])
  })

  it("codec options merge by codec name; each codec's are kept apart", () => {
    const request = base.pipe(
      Request.codecOptions("openai-chat", { serviceTier: "flex", logprobs: true }),
      Request.codecOptions("anthropic-messages", { topK: 5 }),
      Request.codecOptions("openai-chat", { logprobs: false, user: "u-1" }),
    )
    assert.deepStrictEqual(Request.codecOptionsOf(request, "openai-chat"), {
      serviceTier: "flex",
      logprobs: false,
      user: "u-1",
    })
    assert.deepStrictEqual(Request.codecOptionsOf(request, "anthropic-messages"), { topK: 5 })
    assert.isUndefined(Request.codecOptionsOf(request, "other"))
    assert.isUndefined(Request.codecOptionsOf(base, "openai-chat"))
    assert.deepStrictEqual(request.messages, base.messages)
    assert.isUndefined(Request.problem(request))
  })

  it("codec options are data-first too, and leave the request they came from as it was", () => {
    const first = Request.codecOptions(base, "openai-chat", { serviceTier: "flex" })
    const second = Request.codecOptions(first, "openai-chat", { serviceTier: "priority" })
    assert.deepStrictEqual(Request.codecOptionsOf(first, "openai-chat"), { serviceTier: "flex" })
    assert.deepStrictEqual(Request.codecOptionsOf(second, "openai-chat"), {
      serviceTier: "priority",
    })
    assert.isUndefined(base.codecOptions)
  })

  it("codec options are read by own name only, whatever the name", () => {
    for (const name of ["toString", "constructor", "hasOwnProperty", "__proto__"]) {
      assert.isUndefined(Request.codecOptionsOf(base, name), name)
      const given = Request.codecOptions(base, name, { a: 1 })
      assert.deepStrictEqual(Request.codecOptionsOf(given, name), { a: 1 }, name)
      assert.isUndefined(Request.codecOptionsOf(given, "openai-chat"), name)
      // The options stay a plain record: a name never reaches the prototype.
      assert.strictEqual(Object.getPrototypeOf(given.codecOptions), Object.prototype, name)
    }
  })

  it("merging codec options is a right-biased union of the records given", () => {
    const entries = fc.array(fc.tuple(fc.string(), fc.jsonValue()), { maxLength: 5 })
    fc.assert(
      fc.property(fc.array(entries, { maxLength: 4 }), (given) => {
        const request = given.reduce(
          (acc, options) => Request.codecOptions(acc, "w", Object.fromEntries(options)),
          base,
        )
        const last = new Map(given.flatMap((options) => [...new Map(options)]))
        const expected = given.length === 0 ? undefined : Object.fromEntries(last)
        assert.deepStrictEqual(Request.codecOptionsOf(request, "w"), expected)
      }),
    )
  })
})
