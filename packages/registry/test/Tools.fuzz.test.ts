import { assert, describe, it } from "@effect/vitest"
import { fc } from "@fast-check/vitest"
import { Json, Tool, ToolCall } from "@svir/core"
import { Tools } from "@svir/registry"
import { Effect, Exit, Logger, Result, Schema } from "effect"
import * as z from "zod"

const numRuns = Number(process.env.SVIR_FUZZ_RUNS ?? 10_000)

/** The most characters a failed result may have, whatever the call. */
const maxFailedContent = 2_048

const Guest = Schema.Struct({ name: Schema.String, age: Schema.optionalKey(Schema.Int) })
const Booking = Schema.Struct({
  city: Schema.String,
  nights: Schema.Int,
  price: Schema.Number,
  breakfast: Schema.optionalKey(Schema.Boolean),
  guests: Schema.Array(Guest),
})
// The oracle says the same with the bound JSON has anyway: a finite number.
const BookingOracle = Schema.Struct({ ...Booking.fields, price: Schema.Finite })

const ZodBooking = z.object({
  city: z.string(),
  nights: z.number().int(),
  price: z.number(),
  breakfast: z.boolean().optional(),
  guests: z.array(z.object({ name: z.string(), age: z.number().int().optional() })),
})
// zod's own strict objects refuse unknown keys: the oracle for what the registry must refuse.
const ZodOracle = z.strictObject({
  ...ZodBooking.shape,
  guests: z.array(z.strictObject({ name: z.string(), age: z.number().int().optional() })),
})

/** A strict-mode `null` for an optional field reads as left out: `breakfast`, and each `age`. */
const withoutNulls = (json: unknown): unknown => {
  if (!Json.isObject(json)) return json
  const out: Record<string, unknown> = { ...json }
  if (out.breakfast === null) delete out.breakfast
  const guests = out.guests
  if (Array.isArray(guests)) {
    out.guests = guests.map((guest) => {
      if (!Json.isObject(guest) || guest.age !== null) return guest
      const { age: _age, ...kept } = guest
      return kept
    })
  }
  return out
}

/** What the handler of `name` must receive for `text`, or `undefined` when the call is invalid. */
const expected = (name: string, text: string): { readonly value: unknown } | undefined => {
  const read = ToolCall.readJson(text)
  if (Result.isFailure(read)) return undefined
  if (name === "raw") return { value: read.success }
  const json = withoutNulls(read.success)
  if (name === "book") {
    const exit = Schema.decodeUnknownExit(BookingOracle, { onExcessProperty: "error" })(json)
    return Exit.isSuccess(exit) ? { value: exit.value } : undefined
  }
  const parsed = ZodOracle.safeParse(json)
  return parsed.success ? { value: parsed.data } : undefined
}

const validBooking = fc.record(
  {
    city: fc.string({ maxLength: 8 }),
    nights: fc.integer({ min: -5, max: 30 }),
    price: fc.double({ noNaN: true, noDefaultInfinity: true }),
    breakfast: fc.oneof(fc.boolean(), fc.constant(null)),
    guests: fc.array(
      fc.record(
        { name: fc.string({ maxLength: 4 }), age: fc.oneof(fc.nat(99), fc.constant(null)) },
        { requiredKeys: ["name"] },
      ),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: ["city", "nights", "price", "guests"] },
)

const deepText = fc
  .integer({ min: Json.maxDepth - 4, max: 3 * Json.maxDepth })
  .map((depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`)

const oddValue = fc.oneof(
  fc.constantFrom(null, "", "NaN", "Infinity", 1.5, -0, 2 ** 53, true, [], {}, [null], {
    age: null,
  }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ maxLength: 20_000 }).map((text) => text.repeat(3)),
  deepText.map((text) => JSON.parse(text)),
)

const bookingKeys = ["city", "nights", "price", "breakfast", "guests", "other", "__proto__"]

/** A valid booking, with up to three changes: a field set to an odd value, left out, or added. */
const mutatedBooking = fc
  .tuple(
    validBooking,
    fc.array(fc.tuple(fc.constantFrom(...bookingKeys), fc.option(oddValue)), { maxLength: 3 }),
    fc.boolean(),
  )
  .map(([booking, changes, inGuest]) => {
    const out: Record<string, unknown> = { ...booking }
    const target =
      inGuest && Array.isArray(out.guests) && out.guests.length > 0
        ? (out.guests[0] as Record<string, unknown>)
        : out
    for (const [key, value] of changes) {
      if (value === null) delete target[key]
      else Object.defineProperty(target, key, { value, enumerable: true, configurable: true })
    }
    return JSON.stringify(out)
  })

const argumentsText = fc.oneof(
  { weight: 6, arbitrary: mutatedBooking },
  { weight: 1, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.json() },
  { weight: 1, arbitrary: deepText },
  { weight: 1, arbitrary: mutatedBooking.map((text) => text.slice(0, text.length >> 1)) },
)

const toolName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom("book", "zbook", "raw") },
  { weight: 1, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.string({ minLength: 1_000, maxLength: 5_000 }) },
)

const call = fc.tuple(toolName, argumentsText)

describe("fuzzing", () => {
  it("any calls: one result each, in order; bounded failures; a valid call's exact arguments", () => {
    const received = new Map<string, unknown>()
    const record = (args: unknown, call: ToolCall.ToolCall) => {
      received.set(call.id, args)
      return "ok"
    }
    const tools = Tools.empty.pipe(
      Tools.add("book", "Book.", Booking, record),
      Tools.add("zbook", "Book, with zod.", ZodBooking, record),
      Tools.addTool(Tool.make("raw", "Raw."), record),
    )
    const silent = Logger.layer([])
    let valid = 0
    let all = 0
    fc.assert(
      fc.property(
        fc.array(call, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(1, 3),
        (specs, concurrency) => {
          received.clear()
          const calls = specs.map(([name, text], i) => ToolCall.make(`call_${i}`, name, text))
          const results = Effect.runSync(
            Tools.callAll(tools, calls, { concurrency }).pipe(Effect.provide(silent)),
          )
          assert.deepStrictEqual(
            results.map((result) => result.callId),
            calls.map((call) => call.id),
          )
          const alone = Effect.runSync(Tools.call(tools, calls[0]!).pipe(Effect.provide(silent)))
          assert.deepStrictEqual(alone, results[0])
          calls.forEach((call, i) => {
            const result = results[i]!
            const known = ["book", "zbook", "raw"].includes(call.name)
            const want = known ? expected(call.name, call.arguments) : undefined
            all++
            if (want !== undefined) valid++
            if (want === undefined) {
              assert.isTrue(result.isError)
              assert.isFalse(received.has(call.id))
              assert.isAtMost(result.content.length, maxFailedContent)
            } else {
              assert.deepStrictEqual([result.isError, result.content], [false, "ok"])
              assert.deepStrictEqual(received.get(call.id), want.value)
            }
          })
        },
      ),
      { numRuns, seed: 7 },
    )
    // Mostly-valid arguments: a good share of calls must reach their handler.
    assert.isAbove(valid / all, 0.2)
  }, 120_000)
})
