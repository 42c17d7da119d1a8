/**
 * When the loop stops: conditions checked after each step that made calls, and the reason a
 * loop gives for having stopped.
 *
 * @since 0.2.0
 * @module
 */
import type { Completion } from "@svir/core"
import type * as Step from "./Step.js"

/**
 * The bound on steps when the caller sets none: Vercel's AI SDK stops its agent at 20 steps.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultMaxSteps = 20

/**
 * What a condition sees: every step so far (the last one just finished, its calls answered)
 * and their usage summed, `undefined` while no answer had usage counts (the server sent none).
 *
 * @since 0.2.0
 * @category models
 */
export interface State {
  readonly steps: ReadonlyArray<Step.Step>
  readonly usage: Completion.Usage | undefined
}

/**
 * Whether the loop stops after the step just finished, although the model made calls. The loop
 * also stops, without asking, when an answer makes no call and when `maxSteps` is reached.
 *
 * @example
 * ```ts
 * import type { Stop } from "@svir/loop"
 *
 * // Any function of the state is a condition.
 * const threeLookups: Stop.Condition = ({ steps }) =>
 *   steps.flatMap((step) => step.calls).filter((call) => call.name === "lookup").length >= 3
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type Condition = (state: State) => boolean

/**
 * Stops after a step that called one of these tools (Vercel's `hasToolCall`): for a tool that
 * gives the final answer.
 *
 * @example
 * ```ts
 * import { Stop } from "@svir/loop"
 *
 * const stopWhen = Stop.hasToolCall("final_answer")
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const hasToolCall =
  (...names: ReadonlyArray<string>): Condition =>
  ({ steps }) =>
    steps.at(-1)?.calls.some((call) => names.includes(call.name)) ?? false

/**
 * Stops once the steps have used this many tokens in all (`usage.total`, summed). The check
 * comes after each step, so the last step can go past the budget. A server that reports no
 * usage never reaches it: ask for usage in streamed answers with `Request.includeUsage(true)`.
 *
 * @example
 * ```ts
 * import { Stop } from "@svir/loop"
 *
 * const stopWhen = Stop.tokenBudget(50_000)
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const tokenBudget =
  (tokens: number): Condition =>
  ({ usage }) =>
    usage !== undefined && usage.total >= tokens

/**
 * Stops after a step for which the predicate holds.
 *
 * @example
 * ```ts
 * import { Stop } from "@svir/loop"
 *
 * const stopWhen = Stop.when((step) => step.results.every((result) => result.isError))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const when =
  (predicate: (step: Step.Step) => boolean): Condition =>
  ({ steps }) => {
    const last = steps.at(-1)
    return last !== undefined && predicate(last)
  }

/**
 * Why the loop stopped: the model `Answered` without a call; `MaxSteps` was reached; the
 * `Condition` at `index` of `stopWhen` held; or the loop was `Aborted` in step `step`, `during`
 * the model's answer or the answering of the calls.
 *
 * @example
 * ```ts
 * import type { Stop } from "@svir/loop"
 *
 * const describe = (stop: Stop.Reason): string => {
 *   switch (stop._tag) {
 *     case "Answered":
 *       return "the model answered"
 *     case "MaxSteps":
 *       return `the model kept calling tools for ${stop.maxSteps} steps`
 *     case "Condition":
 *       return `stop condition ${stop.index} held`
 *     case "Aborted":
 *       return `aborted in step ${stop.step}, during the ${stop.during}`
 *   }
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type Reason =
  | { readonly _tag: "Answered" }
  | { readonly _tag: "MaxSteps"; readonly maxSteps: number }
  | { readonly _tag: "Condition"; readonly index: number }
  | { readonly _tag: "Aborted"; readonly step: number; readonly during: "model" | "tools" }
