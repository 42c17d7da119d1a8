/**
 * @since 0.2.0
 * @packageDocumentation
 */

/**
 * The arguments of a tool: the schema they are decoded with, and the JSON Schema the model sees.
 *
 * @since 0.2.0
 */
export * as Arguments from "./Arguments.js"

/**
 * Permissions: a policy that hides tools, denies calls, or asks someone first.
 *
 * @since 0.2.0
 */
export * as Permission from "./Permission.js"

/**
 * Typed structured output: a strict JSON Schema response format from a schema, and the answer
 * decoded to its type.
 *
 * @since 0.2.0
 */
export * as StructuredOutput from "./StructuredOutput.js"

/**
 * A registry of tools and their handlers, a Toolbox you build by chaining.
 *
 * @since 0.2.0
 */
export * as Tools from "./Tools.js"

/**
 * Several tools that share one state object.
 *
 * @since 0.2.0
 */
export * as Toolset from "./Toolset.js"
