/**
 * Whether the model decides to call a tool, or must, or may not.
 *
 * @since 0.2.0
 * @module
 */

/**
 * `Auto`: the model decides (the default). `None`: it may not call a tool. `Required`: it must
 * call at least one of the tools offered. `Tool`: it must call the named tool.
 *
 * @since 0.2.0
 * @category models
 */
export type ToolChoice =
  | { readonly _tag: "Auto" }
  | { readonly _tag: "None" }
  | { readonly _tag: "Required" }
  | { readonly _tag: "Tool"; readonly name: string }

/**
 * The model decides. The default.
 *
 * @since 0.2.0
 * @category constructors
 */
export const auto: ToolChoice = { _tag: "Auto" }

/**
 * The model may not call a tool; the tools stay offered.
 *
 * @since 0.2.0
 * @category constructors
 */
export const none: ToolChoice = { _tag: "None" }

/**
 * The model must call at least one of the tools offered.
 *
 * @since 0.2.0
 * @category constructors
 */
export const required: ToolChoice = { _tag: "Required" }

/**
 * The model must call this tool, which the request must offer.
 *
 * @example
 * ```ts
 * import { ToolChoice } from "@svir/core"
 *
 * ToolChoice.tool("label")
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const tool = (name: string): ToolChoice => ({ _tag: "Tool", name })
