/**
 * The answer to one call.
 *
 * @since 0.2.0
 * @module
 */
import type * as Parts from "./internal/parts.js"
import * as ToolCall from "./ToolCall.js"

/**
 * Why a call failed, for code to read (the content says it in words, for the model):
 *
 * - `unknown_tool`: no tool has the name;
 * - `invalid_arguments`: the arguments do not fit the tool's schema (ours or the server's);
 * - `denied`: a permission or an approval refused the call;
 * - `timed_out`: the call took longer than its time limit and was stopped;
 * - `interrupted`: the call was stopped before it answered;
 * - `handler_failed`: the tool ran and failed (a handler's error, an MCP tool's `isError`);
 * - `server_refused`: the MCP server refused the call, or could not be reached.
 *
 * @since 0.2.0
 * @category models
 */
export type Failure =
  | "unknown_tool"
  | "invalid_arguments"
  | "denied"
  | "timed_out"
  | "interrupted"
  | "handler_failed"
  | "server_refused"

/**
 * The answer to one call: the call's id, the content as text, and whether the call failed.
 * `attachments` carries images or files a tool produced, for wires that can carry them.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolResult {
  readonly callId: string
  readonly content: string
  readonly isError: boolean
  readonly attachments?: ReadonlyArray<Parts.ImagePart | Parts.FilePart> | undefined
  /**
   * Why the call failed, when it did: set by core, the registry and the MCP bridge. A failed
   * result made by `error` without one says `handler_failed`.
   *
   * @since 0.2.0
   */
  readonly failure?: Failure | undefined
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
 * @since 0.2.0
 * @category constructors
 */
export const make = (callId: string, content: string): ToolResult => ({
  callId,
  content,
  isError: false,
})

/**
 * A failed result. Its content is exactly the message, nothing added: the wire's encoder marks
 * the failure the way its protocol does. `failure` says why, for code (`handler_failed` when left
 * out).
 *
 * @example
 * ```ts
 * import { ToolResult } from "@svir/core"
 *
 * ToolResult.error("call_1", "no weather station in Atlantis").failure // "handler_failed"
 * ToolResult.error("call_1", "not today", "denied").failure // "denied"
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const error = (
  callId: string,
  message: string,
  failure: Failure = "handler_failed",
): ToolResult => ({
  callId,
  content: message,
  isError: true,
  failure,
})

/**
 * Whether a result failed for one of the reasons given.
 *
 * @example
 * ```ts
 * import { ToolResult } from "@svir/core"
 *
 * const result = ToolResult.unknownTool("call_1", "weathr", ["weather"])
 * ToolResult.failedFor(result, ["unknown_tool", "invalid_arguments"]) // true
 * ToolResult.failedFor(ToolResult.make("call_1", "ok"), ["unknown_tool"]) // false
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const failedFor = (result: ToolResult, failures: ReadonlyArray<Failure>): boolean =>
  result.isError && failures.includes(result.failure ?? "handler_failed")

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
 * @since 0.2.0
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
    "unknown_tool",
  )
