/**
 * Questions a tool asks before it can answer a call, taken by the caller rather than answered
 * inside the call (D44). A tool answers its own questions by default (the MCP bridge asks its
 * `Elicitation` service); a caller that cannot hold a call open while a person answers (a durable
 * run, `@svir/workflow`) runs the call with {@link taking}, gets the {@link Question} back, and
 * runs the call again later with the {@link Answers}. Only tools that can ask without holding
 * anything open take part: an MCP server of revision 2026-07-28, whose `input_required` result
 * carries its state (`requestState`) for the next call.
 *
 * @since 0.2.0
 * @module
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type { ToolResult } from "./ToolResult.js"

/**
 * What a tool asked: its requests, by its own keys, as JSON (for an MCP tool, the server's
 * `inputRequests`: a form, a listing of roots), and the state it wants back with the answers, as
 * it came.
 *
 * @example
 * ```ts
 * import type { ToolInput } from "@svir/core"
 *
 * const question: ToolInput.Question = {
 *   requests: {
 *     confirm: {
 *       method: "elicitation/create",
 *       params: { message: "Cancel order 3?", requestedSchema: { type: "object", properties: {} } },
 *     },
 *   },
 *   state: "opaque-state-of-the-server",
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Question {
  readonly requests: { readonly [key: string]: unknown }
  readonly state?: string | undefined
}

/**
 * The answers to a {@link Question}: a response for each of its keys, as JSON (for an MCP tool,
 * the `inputResponses`: `{ action: "accept", content }` for a form), and the question's state,
 * as it came.
 *
 * @example
 * ```ts
 * import type { ToolInput } from "@svir/core"
 *
 * const answers: ToolInput.Answers = {
 *   responses: { confirm: { action: "accept", content: { confirm: true } } },
 *   state: "opaque-state-of-the-server",
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Answers {
  readonly responses: { readonly [key: string]: unknown }
  readonly state?: string | undefined
}

/**
 * How a call under {@link taking} ended: with its result, or with the question its tool asked.
 *
 * @example
 * ```ts
 * import type { ToolInput } from "@svir/core"
 *
 * const shown = (outcome: ToolInput.Outcome) =>
 *   outcome._tag === "Answered" ? outcome.result.content : Object.keys(outcome.question.requests)
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Answered"; readonly result: ToolResult }
  | { readonly _tag: "Asked"; readonly question: Question }

/**
 * The caller that takes a call's questions: the answers this run of the call carries, if any,
 * and `ask`, which hands a question to the caller and ends the call.
 *
 * @since 0.2.0
 * @category models
 */
export interface Taker {
  readonly answers: Answers | undefined
  readonly ask: (question: Question) => Effect.Effect<never>
}

/**
 * The caller that takes the current call's questions; `undefined` when the tool answers its
 * questions itself, as it does outside {@link taking}. A tool that can ask reads it.
 *
 * @example
 * ```ts
 * import { ToolInput } from "@svir/core"
 * import { Effect } from "effect"
 *
 * const asks = Effect.map(Effect.service(ToolInput.Current), (taker) => taker !== undefined)
 * Effect.runSync(asks) // false
 * ```
 *
 * @since 0.2.0
 * @category references
 */
export const Current: Context.Reference<Taker | undefined> = Context.Reference<Taker | undefined>(
  "@svir/core/ToolInput",
  { defaultValue: () => undefined },
)

/**
 * Runs `call` with its questions taken here: a tool that asks ends the call, which gives the
 * question as `Asked` (the tool's work in flight is interrupted, and nothing is held open);
 * otherwise the result, as `Answered`. `answers` are those of the question the last run of the
 * same call asked; the tool reads them and goes on.
 *
 * @example
 * ```ts
 * import { Toolbox, ToolCall, ToolInput } from "@svir/core"
 *
 * declare const toolbox: Toolbox.Toolbox
 * const call = ToolCall.make("call_1", "cancel_order", '{"id":3}')
 * const first = ToolInput.taking(Toolbox.callSafely(toolbox, call))
 * // later, with a person's answers to what the first run asked:
 * const again = ToolInput.taking(Toolbox.callSafely(toolbox, call), {
 *   responses: { confirm: { action: "accept", content: { confirm: true } } },
 * })
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const taking = <E, R>(
  call: Effect.Effect<ToolResult, E, R>,
  answers?: Answers,
): Effect.Effect<Outcome, E, R> =>
  Effect.flatMap(Deferred.make<Question>(), (asked) => {
    const taker: Taker = {
      answers,
      ask: (question) => Effect.andThen(Deferred.succeed(asked, question), Effect.never),
    }
    return Effect.raceFirst(
      Effect.map(
        Effect.provideService(call, Current, taker),
        (result): Outcome => ({ _tag: "Answered", result }),
      ),
      Effect.map(Deferred.await(asked), (question): Outcome => ({ _tag: "Asked", question })),
    )
  })
