import {
  type Tool as McpTool,
  type StandardSchemaV1,
  specTypeSchemas,
} from "@modelcontextprotocol/client"
import { Json, Text, Tool } from "@svir/core"
import * as ToolName from "../ToolName.js"
import type { OutputCheck, OutputChecks } from "./outputCheck.js"
import { type ParamHeader, paramHeadersOf } from "./paramHeaders.js"
import { schemaProblem } from "./schemaBounds.js"
import type { SkippedTool } from "./skippedTool.js"

/** The tools of one listing as offered, the way back to the server's names, and those left out. */
export interface OfferedTools {
  /** In code unit order of their offered names (D53). */
  readonly tools: ReadonlyArray<Tool.Tool>
  readonly serverNames: ReadonlyMap<string, string>
  /** Every tool of the listing that is not offered, in the order of the listing. */
  readonly skipped: ReadonlyArray<SkippedTool>
  /** The indexes of the skipped tools that the server listed wrongly, which are warned about. */
  readonly refused: ReadonlySet<number>
  /** The tools offered, as the SDK's schema reads them. */
  readonly admitted: ReadonlyArray<McpTool>
  /**
   * The check of the structured content of each offered tool that has an output schema (D42),
   * compiled at the tool's first call (D50).
   */
  readonly outputChecks: OutputChecks
  /** The server's names of the tools called as tasks (D45). */
  readonly taskTools: ReadonlySet<string>
  /** The arguments each tool's calls mirror into `Mcp-Param-*` headers, by server name (D51). */
  readonly paramHeaders: ReadonlyMap<string, ReadonlyArray<ParamHeader>>
  /**
   * For how long, in milliseconds, the listing may be offered without listing again: the
   * server's `ttlMs`, within the bounds of D53; `undefined` when the server gave none (then until
   * it reports a change).
   */
  readonly ttlMillis?: number | undefined
}

/** No tools: what a server without the tools capability offers. */
export const noTools: OfferedTools = {
  tools: [],
  serverNames: new Map(),
  skipped: [],
  refused: new Set(),
  admitted: [],
  outputChecks: new Map(),
  taskTools: new Set(),
  paramHeaders: new Map(),
}

/**
 * The check of a tool's structured content, to be compiled from its output schema, or why it
 * cannot be compiled, as the reason the tool is left out.
 */
export type OutputCompiler = (tool: McpTool) => OutputCheck | string

// A zod message names the path and what was expected; three are enough to find the fault.
const maxIssues = 3
const maxReasonChars = 300

/**
 * The entries of a listing, each taken or left out on its own (D20), under the names of
 * `ToolName.offeredAll`, `<prefix>__<name>` with a prefix, and sorted by those names (D53). With
 * `mirrorsParams` (a 2026-07-28 connection over HTTP), a tool whose `x-mcp-header` marks break
 * SEP-2243's rules is left out too, and the headers of the others are kept (D51).
 */
export const offerTools = (
  entries: ReadonlyArray<unknown>,
  prefix: string | undefined,
  compileOutput: OutputCompiler,
  serverRunsTasks: boolean,
  mirrorsParams: boolean,
): OfferedTools => {
  const admitted: Array<McpTool> = []
  const outputChecks = new Map<string, OutputCheck>()
  const taskTools = new Set<string>()
  const paramHeaders = new Map<string, ReadonlyArray<ParamHeader>>()
  const skipped: Array<SkippedTool> = []
  const refused = new Set<number>()
  const names = new Set<string>()
  entries.forEach((entry, index) => {
    const taken = admit(entry, names, compileOutput, mirrorsParams)
    if ("tool" in taken) {
      admitted.push(taken.tool)
      names.add(taken.tool.name)
      if (taken.check !== undefined) outputChecks.set(taken.tool.name, taken.check)
      if (asTask(taken.tool, serverRunsTasks)) taskTools.add(taken.tool.name)
      if (taken.headers !== undefined && taken.headers.length > 0) {
        paramHeaders.set(taken.tool.name, taken.headers)
      }
      return
    }
    skipped.push({
      name: Json.isObject(entry) && typeof entry.name === "string" ? entry.name : undefined,
      index,
      reason: Text.shorten(taken.reason, maxReasonChars),
    })
    if (taken.listedWrongly) refused.add(index)
  })
  const offeredNames = ToolName.offeredAll(
    admitted.map((tool) => tool.name),
    prefix,
  )
  const serverNames = new Map<string, string>()
  const tools = admitted
    .map((mcpTool, i) => {
      const name = offeredNames[i]!
      serverNames.set(name, mcpTool.name)
      return Tool.make(name, mcpTool.description ?? mcpTool.title ?? "", {
        ...mcpTool.inputSchema,
      })
    })
    // In the order of the offered names, which differ and depend on no order (D24): the same
    // tools are offered alike however the server orders and pages them (D53).
    .sort((a, b) => (a.name < b.name ? -1 : 1))
  return { tools, serverNames, skipped, refused, admitted, outputChecks, taskTools, paramHeaders }
}

/**
 * A tool that requires tasks is called as one; a tool that takes either is, when the server says
 * it runs `tools/call` as tasks, since a task's time limit counts from its last sign of life (D45).
 */
const asTask = (tool: McpTool, serverRunsTasks: boolean): boolean => {
  const support = tool.execution?.taskSupport
  return support === "required" || (support === "optional" && serverRunsTasks)
}

/**
 * The tool, or why it is left out: `listedWrongly` tells a tool the server lists wrongly from one
 * it lists well that the bridge does not support.
 */
type Admission =
  | {
      readonly tool: McpTool
      readonly check?: OutputCheck | undefined
      readonly headers?: ReadonlyArray<ParamHeader> | undefined
    }
  | { readonly reason: string; readonly listedWrongly: boolean }

const refuse = (reason: string): Admission => ({ reason, listedWrongly: true })

const admit = (
  entry: unknown,
  names: ReadonlySet<string>,
  compileOutput: OutputCompiler,
  mirrorsParams: boolean,
): Admission => {
  if (!Json.isObject(entry)) return refuse("it is not a JSON object")
  if (typeof entry.name !== "string") return refuse("its name is not a string")
  // A schema this deep could not be written out or walked by a codec, or compiled by the SDK,
  // without overflowing the stack (D4); zod's checks of a tool stop at the schema's first level.
  for (const [field, label] of schemaFields) {
    if (Json.valueDepth(entry[field], Json.maxDepth) > Json.maxDepth) {
      return refuse(`its ${label} nests deeper than ${Json.maxDepth} levels`)
    }
  }
  const parsed = specTypeSchemas.Tool["~standard"].validate(entry)
  if (parsed.issues !== undefined)
    return refuse(`the MCP SDK refuses it: ${describeIssues(parsed.issues)}`)
  const tool = parsed.value
  if (names.has(tool.name)) return refuse("an earlier tool of the server has the same name")
  const marks = mirrorsParams ? paramHeadersOf(tool.inputSchema) : { headers: [] }
  if ("problem" in marks) return refuse(`its input schema breaks SEP-2243: ${marks.problem}`)
  if (tool.outputSchema !== undefined) {
    // Said before compiling, in the words of D40, though the bridge's validator refuses it too.
    const over = schemaProblem(tool.outputSchema)
    if (over !== undefined) return refuse(`its output schema is not compiled: ${over}`)
    const check = compileOutput(tool)
    return typeof check === "string" ? refuse(check) : { tool, check, headers: marks.headers }
  }
  return { tool, headers: marks.headers }
}

const schemaFields = [
  ["inputSchema", "input schema"],
  ["outputSchema", "output schema"],
] as const

const describeIssues = (issues: ReadonlyArray<StandardSchemaV1.Issue>): string => {
  const described = issues
    .slice(0, maxIssues)
    .map((issue) => `${issuePath(issue) || "the tool"}: ${issue.message}`)
  const more = issues.length - maxIssues
  return more > 0 ? `${described.join("; ")} (and ${more} more)` : described.join("; ")
}

/** Where an issue lies in the tool, as `inputSchema.type`. */
const issuePath = (issue: StandardSchemaV1.Issue): string =>
  (issue.path ?? [])
    .map((segment) => String(typeof segment === "object" ? segment.key : segment))
    .join(".")
