// The second example of the README, compiled by the type check.
import { type SvirError, Toolbox } from "@svir/core"
import { Effect, type Scope } from "effect"
import { McpToolbox } from "../../src/index.js"

/** Two servers over stdio, one over HTTP and a registry, as one toolbox. */
export const everything = (
  registry: Toolbox.Toolbox,
): Effect.Effect<Toolbox.Toolbox, SvirError.SvirError | Toolbox.ToolClash, Scope.Scope> =>
  Effect.gen(function* () {
    const files = yield* McpToolbox.stdio(
      { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/srv/notes"] },
      { prefix: "files" },
    )
    const memory = yield* McpToolbox.stdio(
      { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] },
      { prefix: "memory" },
    )
    const docs = yield* McpToolbox.http(
      { url: "http://127.0.0.1:3000/mcp", headers: { Authorization: "Bearer secret" } },
      { prefix: "docs" },
    )
    // Two toolboxes that offer the same name are a ToolClash naming every such name.
    return yield* Toolbox.combine([files, memory, docs, registry])
  })
