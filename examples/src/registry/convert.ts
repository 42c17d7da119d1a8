import { Tools } from "@svir/registry"
import { Schema } from "effect"

const Convert = Schema.Struct({
  amount: Schema.Finite.annotate({ description: "The amount to convert." }),
  from: Schema.String.annotate({
    description: "The currency to convert from, as a three-letter code.",
  }),
  to: Schema.String.annotate({
    description: "The currency to convert to, as a three-letter code.",
  }),
})

const convert = async (args: typeof Convert.Type) =>
  `${args.amount} ${args.from} is about ${args.amount} ${args.to}`

export const tools = () =>
  Tools.empty.pipe(Tools.add("convert", "Convert an amount between currencies.", Convert, convert))
