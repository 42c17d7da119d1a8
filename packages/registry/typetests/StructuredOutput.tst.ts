import type { Completion, SvirError } from "@svir/core"
import { StructuredOutput } from "@svir/registry"
import { Effect, Schema } from "effect"
import { describe, expect, test } from "tstyche"
import * as z from "zod"

const City = Schema.Struct({
  name: Schema.String,
  population: Schema.optionalKey(Schema.Int),
})

declare const answer: Completion.Completion

describe("StructuredOutput", () => {
  test("make gives the form of the schema's Type, or a SvirError", () => {
    expect(StructuredOutput.make("city", City)).type.toBe<
      Effect.Effect<
        StructuredOutput.StructuredOutput<{ readonly name: string; readonly population?: number }>,
        SvirError.SvirError
      >
    >()
  })

  test("decode gives the Effect Schema's Type, or an OutputError", () => {
    const read = (city: StructuredOutput.StructuredOutput<typeof City.Type>) =>
      StructuredOutput.decode(city, answer)
    expect(read).type.toBe<
      (
        city: StructuredOutput.StructuredOutput<typeof City.Type>,
      ) => Effect.Effect<
        { readonly name: string; readonly population?: number },
        StructuredOutput.OutputError
      >
    >()
  })

  test("what make and decode give together is the schema's Type", () => {
    const program = Effect.gen(function* () {
      const city = yield* StructuredOutput.make("city", City)
      const value = yield* StructuredOutput.decode(city, answer)
      expect(value).type.toBe<typeof City.Type>()
      expect(value.population).type.toBe<number | undefined>()
      return value
    })
    expect(program).type.toBe<
      Effect.Effect<
        { readonly name: string; readonly population?: number },
        SvirError.SvirError | StructuredOutput.OutputError
      >
    >()
  })

  test("decode gives a zod schema's output", () => {
    const Person = z.object({ name: z.string(), age: z.number().optional() })
    const program = Effect.gen(function* () {
      const person = yield* StructuredOutput.make("person", Person)
      return yield* StructuredOutput.decode(person, answer)
    })
    expect(program).type.toBe<
      Effect.Effect<
        { name: string; age?: number | undefined },
        SvirError.SvirError | StructuredOutput.OutputError
      >
    >()
  })

  test("a field the schema does not have is not on the decoded value", () => {
    expect((city: StructuredOutput.StructuredOutput<typeof City.Type>) =>
      Effect.map(StructuredOutput.decode(city, answer), (value) => value.country),
    ).type.toRaiseError("Property 'country' does not exist")
  })

  test("the reasons an answer cannot be read are five", () => {
    expect<StructuredOutput.OutputError["reason"]["_tag"]>().type.toBe<
      "Refused" | "Truncated" | "Filtered" | "NotJson" | "Mismatch"
    >()
  })
})
