import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import { Json, Tool } from "@svir/core"
import * as ToolName from "../ToolName.js"

/** The tools of one listing as offered, and the way back from offered names to the server's. */
export interface OfferedTools {
  readonly tools: ReadonlyArray<Tool.Tool>
  readonly serverNames: ReadonlyMap<string, string>
  /** Offered names given by two of the server's tools: only the first is kept. */
  readonly duplicates: ReadonlyArray<string>
  /** Tools left out because their input schema nests deeper than `Json.maxDepth`. */
  readonly tooDeep: ReadonlyArray<string>
}

/** No tools: what a server without the tools capability offers. */
export const noTools: OfferedTools = {
  tools: [],
  serverNames: new Map(),
  duplicates: [],
  tooDeep: [],
}

/** The server's tools under their offered names, `<prefix>__<name>` with a prefix. */
export const offerTools = (
  mcpTools: ReadonlyArray<McpTool>,
  prefix: string | undefined,
): OfferedTools => {
  const tools: Array<Tool.Tool> = []
  const serverNames = new Map<string, string>()
  const duplicates: Array<string> = []
  const tooDeep: Array<string> = []
  for (const mcpTool of mcpTools) {
    // A tool that requires task-based execution cannot be answered by `tools/call` alone.
    if (mcpTool.execution?.taskSupport === "required") continue
    // A schema this deep could not be written out or walked by a codec without overflowing the
    // stack; the server's other tools stay usable (DECISIONS.md D4).
    if (Json.valueDepth(mcpTool.inputSchema, Json.maxDepth) > Json.maxDepth) {
      tooDeep.push(mcpTool.name)
      continue
    }
    const name = ToolName.offered(mcpTool.name, prefix)
    if (serverNames.has(name)) {
      duplicates.push(name)
      continue
    }
    serverNames.set(name, mcpTool.name)
    tools.push(
      Tool.make(name, mcpTool.description ?? mcpTool.title ?? "", { ...mcpTool.inputSchema }),
    )
  }
  return { tools, serverNames, duplicates, tooDeep }
}
