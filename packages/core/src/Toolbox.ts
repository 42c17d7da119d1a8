/**
 * The contract of anything that lists tools and answers calls.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as SvirError from "./SvirError.js"
import type * as Tool from "./Tool.js"
import * as ToolCall from "./ToolCall.js"
import * as ToolResult from "./ToolResult.js"

/**
 * Lists tools and answers calls. `call` never fails: what went wrong is a failed
 * {@link ToolResult.ToolResult} the model can read. `R` is the services the tools need; a toolbox
 * cannot run until the caller provides them.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Tool, Toolbox, ToolResult } from "@svir/core"
 *
 * const clock: Toolbox.Toolbox = Toolbox.make({
 *   tools: [Tool.make("now", "The current time, UTC.")],
 *   call: (call) =>
 *     Effect.succeed(
 *       call.name === "now"
 *         ? ToolResult.make(call.id, new Date().toISOString())
 *         : ToolResult.error(call.id, `no tool named ${call.name}`),
 *     ),
 * })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface Toolbox<R = never> {
  /** The tools offered now. */
  readonly tools: Effect.Effect<ReadonlyArray<Tool.Tool>, never, R>
  /** Answers one call. Never fails. */
  readonly call: (call: ToolCall.ToolCall) => Effect.Effect<ToolResult.ToolResult, never, R>
}

/**
 * Makes a toolbox from a fixed list of tools, or an effect that lists them, and a `call`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <R = never, R2 = never>(options: {
  readonly tools: ReadonlyArray<Tool.Tool> | Effect.Effect<ReadonlyArray<Tool.Tool>, never, R2>
  readonly call: (call: ToolCall.ToolCall) => Effect.Effect<ToolResult.ToolResult, never, R>
}): Toolbox<R | R2> => ({
  tools: Effect.isEffect(options.tools) ? options.tools : Effect.succeed(options.tools),
  call: options.call,
})

/**
 * Answers one call, and turns a failure, a defect or an interruption inside the toolbox into a
 * failed result, so that every call gets exactly one result. The defect is logged as an error;
 * neither what the handler threw nor a logger that throws can stop the answer.
 *
 * @since 0.1.0
 * @category combinators
 */
export const callSafely = <R>(
  toolbox: Toolbox<R>,
  call: ToolCall.ToolCall,
): Effect.Effect<ToolResult.ToolResult, never, R> =>
  Effect.suspend(() => toolbox.call(call)).pipe(
    Effect.catchCause((cause) => {
      const what = Cause.hasInterruptsOnly(cause)
        ? `tool ${ToolCall.shownName(call.name)} was interrupted`
        : `tool ${ToolCall.shownName(call.name)} failed unexpectedly`
      return Effect.as(
        Effect.ignoreCause(Effect.logError(what, describeCause(cause))),
        ToolResult.error(call.id, what),
      )
    }),
  )

/**
 * The cause as text for a log line. A handler can throw anything, including values that throw
 * when read (a revoked Proxy, a `message` or `stack` getter that throws), so this never lets the
 * logger read the values itself and never throws (DECISIONS.md, D3).
 */
const describeCause = (cause: Cause.Cause<unknown>): string => {
  try {
    return Cause.pretty(cause)
  } catch {
    return cause.reasons
      .map((reason) =>
        Cause.isInterruptReason(reason)
          ? "interrupted"
          : describeValue(Cause.isFailReason(reason) ? reason.error : reason.defect),
      )
      .join("\n")
  }
}

const describeValue = (value: unknown): string => {
  try {
    return String(value)
  } catch {
    return `a value that cannot be shown as text (${typeof value})`
  }
}

/**
 * Answers every call, one after another, and gives the results in the order of the calls. With
 * `concurrency` (a number, or `"unbounded"`), that many calls run at once; the order of the
 * results stays that of the calls.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolCall, Toolbox } from "@svir/core"
 *
 * declare const toolbox: Toolbox.Toolbox
 * const calls = [ToolCall.make("a", "now"), ToolCall.make("b", "now")]
 * const results = Toolbox.callAll(toolbox, calls, { concurrency: 4 })
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const callAll = <R>(
  toolbox: Toolbox<R>,
  calls: Iterable<ToolCall.ToolCall>,
  options: { readonly concurrency?: number | "unbounded" | undefined } = {},
): Effect.Effect<ReadonlyArray<ToolResult.ToolResult>, never, R> =>
  Effect.forEach(calls, (call) => callSafely(toolbox, call), {
    concurrency: options.concurrency ?? 1,
  })

/**
 * One toolbox that offers the tools of several. A call goes to the toolbox that offers its name.
 * Two toolboxes that offer the same name are an Unsupported error that names the tool.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Toolbox } from "@svir/core"
 *
 * declare const files: Toolbox.Toolbox
 * declare const notes: Toolbox.Toolbox
 * const both = Toolbox.combine([files, notes]) // Effect<Toolbox, SvirError>
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const combine = <R>(
  toolboxes: ReadonlyArray<Toolbox<R>>,
): Effect.Effect<Toolbox<R>, SvirError.SvirError, R> =>
  Effect.gen(function* () {
    const lists = yield* Effect.forEach(toolboxes, (toolbox) => toolbox.tools)
    const clash = findClash(lists)
    if (clash !== undefined) {
      return yield* SvirError.make(
        "Unsupported",
        `two toolboxes offer a tool named ${clash}: give one of them a prefix`,
      )
    }
    const current = Effect.forEach(toolboxes, (toolbox) => toolbox.tools)
    return make({
      tools: Effect.map(current, (lists) => lists.flat()),
      call: (call) =>
        Effect.flatMap(current, (lists) => {
          const owner = lists.findIndex((tools) => tools.some((tool) => tool.name === call.name))
          return owner === -1
            ? Effect.succeed(
                ToolResult.unknownTool(
                  call.id,
                  call.name,
                  lists.flat().map((tool) => tool.name),
                ),
              )
            : callSafely(toolboxes[owner]!, call)
        }),
    })
  })

const findClash = (lists: ReadonlyArray<ReadonlyArray<Tool.Tool>>): string | undefined => {
  const seen = new Set<string>()
  for (const tools of lists) {
    for (const name of new Set(tools.map((tool) => tool.name))) {
      if (seen.has(name)) return name
      seen.add(name)
    }
  }
  return undefined
}
