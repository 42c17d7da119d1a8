/**
 * The answer to one call.
 *
 * @since 0.1.0
 * @module
 */
import type * as Parts from "./internal/parts.js"
import * as ToolCall from "./ToolCall.js"

/**
 * The answer to one call: the call's id, the content as text, and whether the call failed.
 * `attachments` carries images or files a tool produced, for wires that can carry them.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResult {
  readonly callId: string
  readonly content: string
  readonly isError: boolean
  readonly attachments?: ReadonlyArray<Parts.ImagePart | Parts.FilePart> | undefined
}

/**
 * A successful result.
 *
 * @example
 * ```ts
 * import { ToolResult } from "@svir/core"
 *
 * ToolResult.make("call_1", "order 42 is shipped")
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (callId: string, content: string): ToolResult => ({
  callId,
  content,
  isError: false,
})

/**
 * A failed result. Its content is exactly the message, nothing added: the wire's encoder marks
 * the failure the way its protocol does.
 *
 * @example
 * ```ts
 * import { ToolResult } from "@svir/core"
 *
 * ToolResult.error("call_1", "no weather station in Atlantis")
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const error = (callId: string, message: string): ToolResult => ({
  callId,
  content: message,
  isError: true,
})

/**
 * The failed result of a call to a name no tool has: it names the tools that exist, so the model
 * can correct itself.
 *
 * @example
 * ```ts
 * import { ToolResult } from "@svir/core"
 *
 * ToolResult.unknownTool("call_1", "weathr", ["weather", "now"]).content
 * // "no tool named weathr; the tools are: weather, now"
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const unknownTool = (
  callId: string,
  name: string,
  available: ReadonlyArray<string>,
): ToolResult =>
  error(
    callId,
    available.length === 0
      ? `no tool named ${ToolCall.shownName(name)}; there are no tools`
      : `no tool named ${ToolCall.shownName(name)}; the tools are: ${available.join(", ")}`,
  )
