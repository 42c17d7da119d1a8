/**
 * Permissions: a policy, provided as a service, that decides whether a tool is offered and whether
 * a call of it may run, and may ask someone first.
 *
 * @since 0.2.0
 * @module
 */
import { Guard, type Tool, Toolbox, type ToolCall } from "@svir/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Entry, toEffect } from "./internal/entry.js"
import { fromEntries, isTools } from "./internal/registry.js"
import type * as Tools from "./Tools.js"

/**
 * Whether a call may run: core's `Guard.Decision`, the type the loop's `Approval` uses too. A
 * denied call gets the failed result `permission denied: REASON`.
 *
 * @since 0.2.0
 * @category models
 */
export type Decision = Guard.Decision

/**
 * The call may run (core's `Guard.allow`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const allow: Decision = Guard.allow

/**
 * The call may not run, for the reason given (core's `Guard.deny`; the model reads it).
 *
 * @since 0.2.0
 * @category constructors
 */
export const deny: (reason: string) => Decision = Guard.deny

/**
 * The policy a guarded registry asks: `visible` decides whether a tool is offered to the model
 * (a hidden tool is answered as if it did not exist), `decide` whether a call may run.
 *
 * @since 0.2.0
 * @category services
 */
export class Policy extends Context.Service<
  Policy,
  {
    readonly visible: (tool: Tool.Tool) => Effect.Effect<boolean>
    readonly decide: (tool: Tool.Tool, call: ToolCall.ToolCall) => Effect.Effect<Decision>
  }
>()("@svir/registry/Permission/Policy") {}

/**
 * Whom a policy asks when a call needs a person's yes: a prompt in a terminal, a button in a UI.
 * Answers `true` to let the call run. Asked through {@link confirm}, the call's time limit stands
 * still while the person decides (`Toolbox.paused`).
 *
 * @since 0.2.0
 * @category services
 */
export class Confirm extends Context.Service<
  Confirm,
  {
    readonly ask: (question: string, call: ToolCall.ToolCall) => Effect.Effect<boolean>
  }
>()("@svir/registry/Permission/Confirm") {}

/**
 * Asks {@link Confirm} and allows the call on yes; on no, denies it saying what was asked. For
 * use in a policy's `decide`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const confirm = (
  question: string,
  call: ToolCall.ToolCall,
): Effect.Effect<Decision, never, Confirm> =>
  Effect.flatMap(Effect.service(Confirm), (confirmer) =>
    // The call's time limit stands still while the person decides.
    Effect.map(Toolbox.paused(confirmer.ask(question, call)), (yes) =>
      yes ? allow : deny(`not confirmed: ${question}`),
    ),
  )

/**
 * The rules of a policy. Each may answer at once or through an Effect that uses services (such as
 * {@link Confirm}); a rule left out allows everything.
 *
 * @since 0.2.0
 * @category models
 */
export interface Rules<R> {
  readonly visible?: ((tool: Tool.Tool) => boolean | Effect.Effect<boolean, never, R>) | undefined
  readonly decide?:
    | ((tool: Tool.Tool, call: ToolCall.ToolCall) => Decision | Effect.Effect<Decision, never, R>)
    | undefined
}

/**
 * A {@link Policy} from rules. The services the rules use are taken when the layer is built.
 *
 * @example
 * ```ts
 * import { Permission } from "@svir/registry"
 *
 * const policy = Permission.layer({
 *   visible: (tool) => tool.name !== "admin",
 *   decide: (tool, call) =>
 *     tool.name === "delete_file"
 *       ? Permission.confirm(`delete with ${call.arguments}?`, call)
 *       : Permission.allow,
 * })
 * // Layer<Policy, never, Confirm>
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = <R = never>(rules: Rules<R>): Layer.Layer<Policy, never, R> =>
  Layer.effect(
    Policy,
    Effect.map(Effect.context<R>(), (context) => {
      const lift = <A>(answer: A | Effect.Effect<A, never, R>): Effect.Effect<A> =>
        Effect.isEffect(answer)
          ? Effect.provideContext(answer as Effect.Effect<A, never, R>, context)
          : Effect.succeed(answer)
      return Policy.of({
        visible: (tool) =>
          rules.visible === undefined ? Effect.succeed(true) : lift(rules.visible(tool)),
        decide: (tool, call) =>
          rules.decide === undefined ? Effect.succeed(allow) : lift(rules.decide(tool, call)),
      })
    }),
  )

/**
 * Guards every tool of a toolbox with the {@link Policy}: hidden tools are not offered and are
 * answered as unknown, denied calls get `permission denied: ...` and never reach the toolbox. The
 * toolbox then needs a `Policy`: calling it without one does not compile. Any toolbox can be
 * guarded: a registry (which stays a registry; guard it once it has all its tools, as tools added
 * after are not guarded), an MCP server's, one made with `Toolbox.make` or `Toolbox.combine`. A
 * toolbox that is not a registry is asked for its tools on each call, to find the tool the policy
 * decides on, as `Toolbox.combine` does (R8). Around `Toolbox.combine`, that is the tool of the
 * member that owns the name, the one the call then goes to: a combination offers each name once.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Tool, Toolbox, ToolResult } from "@svir/core"
 * import { Permission } from "@svir/registry"
 *
 * const files = Toolbox.make({
 *   tools: [Tool.make("delete_file", "Delete a file.")],
 *   call: (call) => Effect.succeed(ToolResult.make(call.id, "deleted")),
 * })
 * const guarded = Permission.guard(files) // Toolbox<Policy>
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const guard = <T extends Toolbox.Toolbox<unknown>>(toolbox: T): Guarded<T> =>
  (isTools(toolbox) ? guardRegistry(toolbox) : guardToolbox(toolbox)) as Guarded<T>

/**
 * What {@link guard} gives: a registry for a registry, a toolbox for any other toolbox, each
 * needing a {@link Policy} besides what it needed.
 *
 * @since 0.2.0
 * @category models
 */
export type Guarded<T> =
  T extends Tools.Tools<infer R>
    ? Tools.Tools<R | Policy>
    : T extends Toolbox.Toolbox<infer R>
      ? Toolbox.Toolbox<R | Policy>
      : never

const guardRegistry = <R>(tools: Tools.Tools<R>): Tools.Tools<R | Policy> => {
  const entries = new Map<string, Entry<R | Policy>>()
  for (const [name, entry] of tools.entries) {
    const visible = Effect.flatMap(Effect.service(Policy), (policy) => policy.visible(entry.tool))
    entries.set(name, {
      tool: entry.tool,
      visible:
        entry.visible === undefined
          ? visible
          : Effect.flatMap(entry.visible, (shown) => (shown ? visible : Effect.succeed(false))),
      answer: (call) =>
        Effect.flatMap(Effect.service(Policy), (policy) =>
          Effect.flatMap(policy.decide(entry.tool, call), (decision) =>
            decision._tag === "Allow"
              ? toEffect(entry.answer(call))
              : Effect.succeed(Guard.denied(call, decision.reason)),
          ),
        ),
    })
  }
  return fromEntries(entries)
}

/** R8: any toolbox, guarded through its contract alone (`tools` and `call`), by core's guard. */
const guardToolbox = <R>(toolbox: Toolbox.Toolbox<R>): Toolbox.Toolbox<R | Policy> =>
  Guard.guard(toolbox, {
    visible: (tool) => Effect.flatMap(Effect.service(Policy), (policy) => policy.visible(tool)),
    decide: (tool, call) =>
      Effect.flatMap(Effect.service(Policy), (policy) => policy.decide(tool, call)),
  })
