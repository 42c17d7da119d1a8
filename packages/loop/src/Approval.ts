/**
 * Approval of calls before they run, for any Toolbox: a service that allows a call, denies it,
 * or asks someone first.
 *
 * @since 0.2.0
 * @module
 */
import { Guard, Toolbox, type ToolCall } from "@svir/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * Whether a call may run: core's `Guard.Decision`, the type the registry's `Permission` uses too.
 * A denied call gets the failed result `permission denied: REASON`, which the model reads.
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
 * @example
 * ```ts
 * import { Approval } from "@svir/loop"
 *
 * Approval.deny("deleting is not allowed here") // { _tag: "Deny", reason: "deleting is not allowed here" }
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const deny: (reason: string) => Decision = Guard.deny

/**
 * Who decides whether a call of a guarded toolbox runs: rules, a prompt in a terminal, a button
 * in a UI. `decide` may take as long as asking takes; the call waits, and its time limit stands
 * still meanwhile (`Toolbox.paused`).
 *
 * @example
 * ```ts
 * import { Approval } from "@svir/loop"
 * import { Effect, Layer } from "effect"
 *
 * const readOnly = Layer.succeed(Approval.Approver, {
 *   decide: (call) =>
 *     Effect.succeed(call.name === "read" ? Approval.allow : Approval.deny("read-only session")),
 * })
 * ```
 *
 * @since 0.2.0
 * @category services
 */
export class Approver extends Context.Service<
  Approver,
  { readonly decide: (call: ToolCall.ToolCall) => Effect.Effect<Decision> }
>()("@svir/loop/Approval/Approver") {}

/**
 * An {@link Approver} from a function. The services the function uses are taken when the layer
 * is built.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Approval } from "@svir/loop"
 *
 * // Reads run; anything else is asked about (here, the answer is always no).
 * const approver = Approval.layer((call) =>
 *   call.name.startsWith("read")
 *     ? Approval.allow
 *     : Effect.succeed(Approval.deny(`${call.name} needs a person's yes`)),
 * )
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = <R = never>(
  decide: (call: ToolCall.ToolCall) => Decision | Effect.Effect<Decision, never, R>,
): Layer.Layer<Approver, never, R> =>
  Layer.effect(
    Approver,
    Effect.map(Effect.context<R>(), (context) =>
      Approver.of({
        decide: (call) => {
          const decision = decide(call)
          return Effect.isEffect(decision)
            ? Effect.provideContext(decision, context)
            : Effect.succeed(decision)
        },
      }),
    ),
  )

/**
 * The toolbox with every call put to the {@link Approver} first, through core's `Guard.guard`: an
 * allowed call is answered by the toolbox, a denied one gets `permission denied: REASON` and never
 * reaches it, and a call of a name the toolbox does not offer is answered as unknown without
 * asking. The toolbox then needs an `Approver`: running it without one does not compile. It works
 * for any Toolbox (a registry, an MCP server's tools, one of your own), in the loop or in a loop
 * you write.
 *
 * @example
 * ```ts
 * import type { Toolbox } from "@svir/core"
 * import { Approval } from "@svir/loop"
 *
 * declare const files: Toolbox.Toolbox
 * const guarded = Approval.guard(files) // Toolbox<Approval.Approver>
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const guard = <R>(toolbox: Toolbox.Toolbox<R>): Toolbox.Toolbox<R | Approver> =>
  Guard.guard(toolbox, {
    decide: (_tool, call) =>
      Effect.flatMap(Effect.service(Approver), (approver) =>
        // Asking may take as long as a person takes: the call's time limit stands still meanwhile.
        Toolbox.paused(approver.decide(call)),
      ),
  })
