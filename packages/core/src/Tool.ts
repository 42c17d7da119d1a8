/**
 * A description of a tool for the model.
 *
 * @since 0.2.0
 * @module
 */
import * as Effect from "effect/Effect"
import * as SvirError from "./SvirError.js"

/**
 * A JSON Schema object, as sent to the model.
 *
 * @since 0.2.0
 * @category models
 */
export type JsonSchema = { readonly [key: string]: unknown }

/**
 * A tool the model may call: a name, a description and the JSON Schema of its arguments.
 * `strict` asks servers that support it (OpenAI's structured outputs) to hold the model's
 * arguments to the schema exactly; the schema must then be in the strict form (every property
 * required, objects closed), such as `@svir/registry`'s `Tools.definitions(tools, { strict: true })`
 * gives.
 *
 * @since 0.2.0
 * @category models
 */
export interface Tool {
  readonly name: string
  readonly description: string
  readonly inputSchema: JsonSchema
  readonly strict?: boolean | undefined
}

/**
 * The schema of a tool that takes no arguments: an object with no properties.
 *
 * @since 0.2.0
 * @category constructors
 */
export const noArguments: JsonSchema = { type: "object", properties: {} }

/**
 * Describes a tool. A tool that takes no arguments needs no schema.
 *
 * @example
 * ```ts
 * import { Tool } from "@svir/core"
 *
 * const lookup = Tool.make("lookup", "Find an order by its number.", {
 *   type: "object",
 *   properties: { id: { type: "integer", description: "The order number" } },
 *   required: ["id"],
 * })
 * const now = Tool.make("now", "The current time, UTC.")
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (name: string, description: string, inputSchema?: JsonSchema): Tool => ({
  name,
  description,
  inputSchema: inputSchema ?? noArguments,
})

const namePattern = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * Why a name is not accepted by servers (`^[a-zA-Z0-9_-]{1,64}$`), or `undefined` when it is.
 *
 * @example
 * ```ts
 * import { Tool } from "@svir/core"
 *
 * Tool.nameProblem("read file")
 * // 'tool name "read file" has " " at position 4: a name is 1 to 64 characters of a-z, A-Z, 0-9, _ and -'
 * Tool.nameProblem("read_file") // undefined
 * ```
 *
 * @since 0.2.0
 * @category validation
 */
export const nameProblem = (name: string): string | undefined => {
  if (namePattern.test(name)) return undefined
  const rule = "a name is 1 to 64 characters of a-z, A-Z, 0-9, _ and -"
  if (name.length === 0) return `a tool name is empty: ${rule}`
  const chars = Array.from(name)
  if (chars.length > 64) {
    return `tool name "${name.slice(0, 70)}…" is ${chars.length} characters long: ${rule}`
  }
  const position = chars.findIndex((char) => !/^[a-zA-Z0-9_-]$/.test(char))
  return `tool name "${name}" has ${JSON.stringify(chars[position])} at position ${position}: ${rule}`
}

/**
 * Succeeds with the tool when its name is accepted, or fails with an Unsupported error that says
 * why.
 *
 * @since 0.2.0
 * @category validation
 */
export const validate = (tool: Tool): Effect.Effect<Tool, SvirError.SvirError> => {
  const problem = nameProblem(tool.name)
  return problem === undefined
    ? Effect.succeed(tool)
    : Effect.fail(SvirError.make("Unsupported", problem))
}
