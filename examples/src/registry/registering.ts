import { Tools } from "@svir/registry"
import { Effect } from "effect"
import { tools as fetchTools } from "./fetchUrl.js"
import { tools as searchTools } from "./search.js"

// Adding is a chain that returns a new registry; a name added again replaces the earlier tool.
export const configured = Tools.empty.pipe(
  Tools.addTool(
    { name: "ping", description: "Check the registry answers.", inputSchema: { type: "object" } },
    () => "pong",
  ),
)

// Registries built apart (a plugin's, a toolset's) are merged; a name both offer is a typed
// error, where polaris panics.
export const registry = Effect.gen(function* () {
  const withSearch = yield* Tools.merge(configured, searchTools)
  return yield* Tools.merge(withSearch, fetchTools)
})

export const clash = Tools.merge(searchTools, searchTools).pipe(
  Effect.catchTag("ToolClash", (error) => Effect.succeed(error.message)),
)
