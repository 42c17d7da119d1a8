/**
 * Deciding whether a call may run, for any Toolbox: one decision type and one guard. The
 * registry's `Permission` (a policy that can also hide tools) and the loop's `Approval` (someone
 * who says yes or no) are two services over it.
 *
 * @since 0.2.0
 * @module
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Tool from "./Tool.js"
import * as Toolbox from "./Toolbox.js"
import type * as ToolCall from "./ToolCall.js"
import * as ToolResult from "./ToolResult.js"

/**
 * Whether a call may run. A denied call gets the failed result `permission denied: REASON`
 * (`failure: "denied"`), which the model reads.
 *
 * @since 0.2.0
 * @category models
 */
export type Decision =
  | { readonly _tag: "Allow" }
  | { readonly _tag: "Deny"; readonly reason: string }

/**
 * The call may run.
 *
 * @since 0.2.0
 * @category constructors
 */
export const allow: Decision = { _tag: "Allow" }

/**
 * The call may not run, for the reason given (the model reads it).
 *
 * @example
 * ```ts
 * import { Guard } from "@svir/core"
 *
 * Guard.deny("deleting is not allowed here") // { _tag: "Deny", reason: "deleting is not allowed here" }
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const deny = (reason: string): Decision => ({ _tag: "Deny", reason })

/**
 * The failed result of a denied call: `permission denied: REASON`, of kind `denied`.
 *
 * @example
 * ```ts
 * import { Guard, ToolCall } from "@svir/core"
 *
 * Guard.denied(ToolCall.make("call_1", "delete"), "read-only session").content
 * // "permission denied: read-only session"
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const denied = (call: ToolCall.ToolCall, reason: string): ToolResult.ToolResult =>
  ToolResult.error(call.id, `permission denied: ${reason}`, "denied")

/**
 * What a guard asks: `visible` whether a tool is offered (left out, every tool is), `decide`
 * whether a call of an offered tool may run.
 *
 * @since 0.2.0
 * @category models
 */
export interface Rules<R> {
  readonly visible?: ((tool: Tool.Tool) => Effect.Effect<boolean, never, R>) | undefined
  readonly decide: (tool: Tool.Tool, call: ToolCall.ToolCall) => Effect.Effect<Decision, never, R>
}

/**
 * The toolbox with its rules in front: it offers the tools `visible` lets through; a call of a
 * name it does not offer is answered as unknown, a denied call gets {@link denied}, and neither
 * reaches the toolbox. The toolbox is asked for its tools on each call, to find the tool the rules
 * decide on (an MCP server's list may change). The call's time limit is its caller's, counted
 * once: a rule that asks a person runs its question in `Toolbox.paused`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Guard, Tool, Toolbox, ToolResult } from "@svir/core"
 *
 * const files = Toolbox.make({
 *   tools: [Tool.make("read", "Read a file."), Tool.make("delete", "Delete a file.")],
 *   call: (call) => Effect.succeed(ToolResult.make(call.id, "done")),
 * })
 * const readOnly = Guard.guard(files, {
 *   decide: (tool) =>
 *     Effect.succeed(tool.name === "read" ? Guard.allow : Guard.deny("read-only session")),
 * })
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const guard = <R, R2>(
  toolbox: Toolbox.Toolbox<R>,
  rules: Rules<R2>,
): Toolbox.Toolbox<R | R2> => {
  const { visible } = rules
  const offered =
    visible === undefined
      ? toolbox.tools
      : Effect.flatMap(toolbox.tools, (tools) => Effect.filter(tools, visible))
  return Toolbox.make({
    tools: offered,
    call: (call) =>
      Effect.flatMap(offered, (tools) => {
        const tool = tools.find((tool) => tool.name === call.name)
        if (tool === undefined) {
          const names = tools.map((tool) => tool.name)
          return Effect.succeed(ToolResult.unknownTool(call.id, call.name, names))
        }
        return Effect.flatMap(rules.decide(tool, call), (decision) =>
          decision._tag === "Allow"
            ? // The caller of the guarded toolbox bounds the call's time, once.
              Toolbox.callSafely(toolbox, call, { timeout: Duration.infinity })
            : Effect.succeed(denied(call, decision.reason)),
        )
      }),
  })
}
