/**
 * Tools made fit for Chat Completions servers: what OpenAI's function calling refuses in a tool
 * (an MCP server's or one written by hand) is found and, where that changes nothing a tool takes,
 * fixed, with a report of each change for the caller to log. The encoder sends tools as they are;
 * fitting them is the caller's step, done once when the tools are listed (DECISIONS.md, D53,
 * D54).
 *
 * @since 0.2.0
 * @module
 */
import { Json, JsonSchema, SvirError, Text, Tool } from "@svir/core"
import * as Effect from "effect/Effect"

/**
 * The longest description OpenAI takes for a tool, in characters: a longer one is refused with
 * `string_above_max_length` (D53).
 *
 * @since 0.2.0
 * @category constants
 */
export const descriptionLimit = 1024

/**
 * One change made to a tool, or one thing wrong with it: the tool's name, where (a JSON Pointer
 * into the `function` object of the wire: `/description`, `/parameters/properties/tags`), and what
 * and why, in words for a log.
 *
 * @since 0.2.0
 * @category models
 */
export interface Change {
  readonly tool: string
  readonly path: string
  readonly message: string
}

/**
 * Options of {@link fit} and {@link problems}. `strict`: put the schema in the strict form
 * (`JsonSchema.strict`) and ask for it with `strict: true`; by default, as the tool asks.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly strict?: boolean | undefined
}

/**
 * Tools made fit, and every change that made them so.
 *
 * @since 0.2.0
 * @category models
 */
export interface Fitted {
  readonly tools: ReadonlyArray<Tool.Tool>
  readonly changes: ReadonlyArray<Change>
}

/** D53: the keywords OpenAI refuses at the top of function parameters. */
const topLevelRefused = ["anyOf", "oneOf", "allOf", "enum", "not"] as const
/** Those of them that only add conditions to an object: dropping them only lets more through. */
const topLevelDropped = new Set(["anyOf", "oneOf", "not"])

const isStrict = (tool: Tool.Tool, options: Options | undefined): boolean =>
  options?.strict ?? tool.strict === true

const typeIncludes = (node: { readonly [key: string]: unknown }, type: string): boolean =>
  node.type === type || (Array.isArray(node.type) && node.type.includes(type))

const usesRefs = (node: { readonly [key: string]: unknown }): boolean =>
  typeof node.$ref === "string" || "$defs" in node || "definitions" in node

/** The encoder sends a tool with no schema, or `{}`, as an object with no properties. */
const isEmpty = (schema: Tool.JsonSchema): boolean => Object.keys(schema).length === 0

const parameters = (path: string): string => `/parameters${path}`

/**
 * Where and why Chat Completions servers would refuse a tool as it is; empty when they would
 * not. It changes nothing: a tool {@link fit} gave back always passes. It checks the name
 * (`^[a-zA-Z0-9_-]{1,64}$`), the description's length ({@link descriptionLimit}), that the
 * parameters are one object with properties and no `anyOf`, `oneOf`, `allOf`, `enum` or `not` at
 * the top, that no `$ref` or `$defs` is left, and that every array says its items; with `strict`
 * (or a tool that asks for it), that the schema is in the strict form.
 *
 * @example
 * ```ts
 * import { Tool } from "@svir/core"
 * import { ToolSchema } from "@svir/openai-codec"
 *
 * const tags = Tool.make("tags", "Tag a note.", {
 *   type: "object",
 *   properties: { tags: { type: "array" } },
 * })
 * ToolSchema.problems([tags])
 * // [{ tool: "tags", path: "/parameters/properties/tags", message: "an array without items" }]
 * ```
 *
 * @since 0.2.0
 * @category validation
 */
export const problems = (tools: Iterable<Tool.Tool>, options?: Options): ReadonlyArray<Change> =>
  Array.from(tools).flatMap((tool) => problemsOf(tool, options))

const problemsOf = (tool: Tool.Tool, options: Options | undefined): ReadonlyArray<Change> => {
  const found: Array<Change> = []
  const problem = (path: string, message: string) => found.push({ tool: tool.name, path, message })
  const nameProblem = Tool.nameProblem(tool.name)
  if (nameProblem !== undefined) problem("/name", nameProblem)
  if (tool.description.length > descriptionLimit) {
    problem("/description", `a description longer than ${descriptionLimit} characters`)
  }
  const schema = tool.inputSchema
  const strict = isStrict(tool, options)
  if (isEmpty(schema) && !strict) return found
  if (Json.valueDepth(schema, Json.maxDepth) > Json.maxDepth) {
    problem("/parameters", `parameters nested deeper than ${Json.maxDepth} levels`)
    return found
  }
  if (schema.type !== "object") problem("/parameters", "parameters that are not an object")
  else if (!Json.isObject(schema.properties)) problem("/parameters", "an object with no properties")
  for (const keyword of topLevelRefused) {
    if (keyword in schema) problem("/parameters", `${keyword} at the top of the parameters`)
  }
  JsonSchema.mapNodes(schema, (node, path) => {
    if (usesRefs(node)) problem(parameters(path), "a $ref or definitions")
    if (!strict && typeIncludes(node, "array") && !("items" in node)) {
      problem(parameters(path), "an array without items")
    }
    return node
  })
  if (strict) {
    for (const { path, message } of JsonSchema.strictProblems(schema)) {
      problem(parameters(path), message)
    }
  }
  return found
}

const withTool =
  (tool: string, prefix: string) =>
  (change: JsonSchema.Change): Change => ({
    tool,
    path: `${prefix}${change.path}`,
    message: change.message,
  })

const unsupported = (tool: Tool.Tool, message: string) =>
  SvirError.make("Unsupported", `the tool ${tool.name} cannot be sent: ${message}`)

/** D53: the top of the parameters made one object with properties, or why it cannot be. */
const fitTop = (
  schema: Tool.JsonSchema,
  changes: Array<JsonSchema.Change>,
): Tool.JsonSchema | string => {
  let out = { ...schema }
  if (out.type === undefined && Json.isObject(out.properties)) {
    out = { type: "object", ...out }
    changes.push({ path: "", message: 'added type "object": the parameters have properties' })
  }
  if (out.type !== "object") {
    return `function parameters must be an object (type "object"), not ${
      out.type === undefined ? "a schema with no type" : `type ${JSON.stringify(out.type)}`
    }: describe the arguments as an object with one property for each`
  }
  for (const keyword of topLevelRefused) {
    if (!(keyword in out)) continue
    if (!topLevelDropped.has(keyword) || !Json.isObject(out.properties)) {
      return `OpenAI refuses ${keyword} at the top of function parameters: make them one object with a property for each argument`
    }
    const { [keyword]: _dropped, ...rest } = out
    out = rest
    changes.push({
      path: "",
      message: `dropped ${keyword} from the top of the parameters, which OpenAI refuses there; the tool still checks its arguments`,
    })
  }
  if (!Json.isObject(out.properties)) {
    out = { ...out, properties: {} }
    changes.push({ path: "", message: "added properties: {}, which OpenAI wants on an object" })
  }
  return out
}

/** D53: every array says its items; `{}` (any value) is what an array without them held. */
const withItems = (schema: Tool.JsonSchema, changes: Array<JsonSchema.Change>): Tool.JsonSchema =>
  JsonSchema.mapNodes(schema, (node, path) => {
    if (!typeIncludes(node, "array") || "items" in node) return node
    changes.push({
      path,
      message: "added items: {} to an array without items, which OpenAI refuses",
    })
    return { ...node, items: {} }
  })

/** D53: the description cut to the limit, with a mark where it was cut. */
const fitDescription = (tool: Tool.Tool, changes: Array<Change>): string => {
  const { description } = tool
  if (description.length <= descriptionLimit) return description
  changes.push({
    tool: tool.name,
    path: "/description",
    message: `cut the description from ${description.length} to ${descriptionLimit} characters, the most OpenAI takes`,
  })
  return Text.shorten(description, descriptionLimit - 1)
}

/**
 * A tool fit for Chat Completions servers, and each change made, or an Unsupported error that
 * says why it cannot be. In this order: `$ref`s are inlined and the definitions dropped
 * (`JsonSchema.inline`; a recursive `$ref` is refused); the parameters get `type: "object"` and
 * `properties` where they lack them, and lose an `anyOf`, `oneOf` or `not` at the top (the tool
 * still checks its arguments); an array without items gets `items: {}`; with `strict` (or a tool
 * that asks for it), the schema is put in the strict form (`JsonSchema.strict`) and the tool asks
 * for it; a description longer than {@link descriptionLimit} characters is cut, marked with "…".
 * A name servers refuse, parameters that are not an object (`type: "string"`), and an `allOf` or
 * `enum` at the top are refused: fixing them would change how the tool is called. A tool with
 * nothing to fix comes back as it is, with no change.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Tool } from "@svir/core"
 * import { ToolSchema } from "@svir/openai-codec"
 *
 * const think = Tool.make("sequentialthinking", "A detailed tool for thinking. ".repeat(100), {
 *   type: "object",
 *   properties: { thought: { $ref: "#/$defs/Thought" } },
 *   $defs: { Thought: { type: "string" } },
 * })
 * const { tools, changes } = Effect.runSync(ToolSchema.fit([think]))
 * tools[0]!.description.length // 1024
 * changes.map((change) => change.path)
 * // ["/parameters/properties/thought", "/parameters", "/description"]
 * ```
 *
 * @since 0.2.0
 * @category fitting
 */
export const fit = (
  tools: Iterable<Tool.Tool>,
  options?: Options,
): Effect.Effect<Fitted, SvirError.SvirError> =>
  Effect.map(
    Effect.forEach(tools, (tool) => fitOne(tool, options)),
    (each) => ({
      tools: each.map((fitted) => fitted.tool),
      changes: each.flatMap((fitted) => fitted.changes),
    }),
  )

const fitOne = (
  tool: Tool.Tool,
  options: Options | undefined,
): Effect.Effect<
  { readonly tool: Tool.Tool; readonly changes: ReadonlyArray<Change> },
  SvirError.SvirError
> =>
  Effect.gen(function* () {
    const nameProblem = Tool.nameProblem(tool.name)
    if (nameProblem !== undefined) return yield* unsupported(tool, nameProblem)
    const strict = isStrict(tool, options)
    const changes: Array<Change> = []
    // The encoder sends no schema, or `{}`, as an object with no properties.
    let schema = strict && isEmpty(tool.inputSchema) ? Tool.noArguments : tool.inputSchema
    if (!isEmpty(schema)) {
      const made: Array<JsonSchema.Change> = []
      const inlined = yield* Effect.mapError(JsonSchema.inline(schema), (error) =>
        unsupported(tool, error.message),
      )
      made.push(...inlined.changes)
      const top = fitTop(inlined.schema, made)
      if (typeof top === "string") return yield* unsupported(tool, top)
      schema = strict ? top : withItems(top, made)
      changes.push(...made.map(withTool(tool.name, "/parameters")))
      if (strict) {
        const strictForm = yield* Effect.mapError(JsonSchema.strict(schema), (error) =>
          unsupported(tool, error.message),
        )
        schema = strictForm.schema
        changes.push(...strictForm.changes.map(withTool(tool.name, "/parameters")))
      }
    }
    if (strict && tool.strict !== true) {
      changes.push({
        tool: tool.name,
        path: "/strict",
        message: "asks for strict mode (strict: true)",
      })
    }
    const description = fitDescription(tool, changes)
    if (changes.length === 0) return { tool, changes }
    return {
      tool: { ...tool, description, inputSchema: schema, ...(strict && { strict: true }) },
      changes,
    }
  })
