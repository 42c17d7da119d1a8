import { Tool } from "@svir/core"
import { Tools } from "@svir/registry"
import { Schema } from "effect"

const Lookup = Schema.Struct({ id: Schema.Int })

export const tools = () => {
  const lookup = Tool.make("lookup", "Find an order by its number.", {
    type: "object",
    properties: { id: { type: "integer", description: "The order number" } },
    required: ["id"],
  })
  // A tool that takes no arguments needs no schema.
  const now = Tool.make("now", "The current time, UTC.")

  return Tools.empty.pipe(
    Tools.addTool(lookup, Lookup, async (args) => `order ${args.id} is shipped`),
    Tools.addTool(now, async () => "2026-01-01T00:00:00Z"),
  )
}
