import { Tools } from "@svir/registry"
import { Data, Effect, Schema } from "effect"

class NoStation extends Data.TaggedError("NoStation")<{ readonly message: string }> {}

const City = Schema.Struct({ city: Schema.String })

export const tools = Tools.empty.pipe(
  // A string is the text the model reads.
  Tools.add("greet", "Say hello.", City, ({ city }) => `hello, ${city}`),
  // Any other JSON value is written as JSON: {"city":"Lisbon","celsius":21}
  Tools.add("weather", "The weather in a city.", City, ({ city }) => ({ city, celsius: 21 })),
  // An Effect that fails is a failed result whose content is the error's message.
  Tools.add("station", "The weather station of a city.", City, ({ city }) =>
    city === "Atlantis"
      ? Effect.fail(new NoStation({ message: "no weather station in Atlantis" }))
      : Effect.succeed(`station ${city}-1`),
  ),
)
