/**
 * The contract of anything that lists tools and answers calls.
 *
 * @since 0.2.0
 * @module
 */
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as CallTime from "./internal/callTime.js"
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
 * @since 0.2.0
 * @category models
 */
export interface Toolbox<R = never> {
  /** An Effect that gives the tools offered now. */
  readonly tools: Effect.Effect<ReadonlyArray<Tool.Tool>, never, R>
  /** Answers one call. Never fails. */
  readonly call: (call: ToolCall.ToolCall) => Effect.Effect<ToolResult.ToolResult, never, R>
}

/**
 * Makes a toolbox from a fixed list of tools, or an effect that lists them, and a `call`.
 *
 * @since 0.2.0
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
 * How long a call may take when the caller gives no `timeout`: 60 seconds, the MCP bridge's
 * default for one call. A handler that never settles would otherwise hold its caller, and a loop,
 * for ever (D27).
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultTimeout: Duration.Duration = Duration.seconds(60)

/**
 * Runs `effect`, a wait for someone (an approval, a confirmation, an answer to a form), with the
 * time limit of the call it is part of standing still: a person who takes five minutes to decide
 * does not make the call time out. Outside a call with a time limit it is `effect` itself. The
 * permission guards of `@svir/registry` and `@svir/loop` wrap their questions in it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Toolbox } from "@svir/core"
 *
 * declare const askInTerminal: (question: string) => Effect.Effect<boolean>
 * const approved = Toolbox.paused(askInTerminal("Delete notes.txt?"))
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const paused = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.service(CallTime.CurrentCallTime), (time) => time.pause(effect))

/**
 * Gives the call under way its whole time limit again: it showed it is still working (the MCP
 * bridge calls it for each progress notification of a server). Outside a call with a time limit
 * it does nothing.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Toolbox } from "@svir/core"
 *
 * declare const copyPart: (part: number) => Effect.Effect<void>
 * const copyAll = Effect.forEach([1, 2, 3], (part) =>
 *   Effect.andThen(copyPart(part), Toolbox.progressed),
 * )
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const progressed: Effect.Effect<void> = Effect.flatMap(
  Effect.service(CallTime.CurrentCallTime),
  (time) => Effect.sync(() => time.restart()),
)

/**
 * Bounds on answering one call. `timeout`: a call that takes longer is stopped and gets a failed
 * result that says so. Longer than zero; {@link defaultTimeout} when left out; `Infinity` (or
 * `"Infinity"`, `Duration.infinity`) for none. Anything else (`NaN`, zero, a negative number, a
 * text that is not a duration) is a mistake in the program: the call dies with a `SvirError` of
 * kind `Config` naming the option.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallOptions {
  readonly timeout?: Duration.Input | undefined
}

/**
 * Bounds on answering several calls: those of {@link CallOptions}, and `concurrency`, how many
 * calls run at once: a whole number, 1 or more, `Infinity` or `"unbounded"`; one at a time when
 * left out. Anything else (`0`, a negative number, `NaN`, a fraction) dies with a `Config` error,
 * before any call runs.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallAllOptions extends CallOptions {
  readonly concurrency?: number | "unbounded" | undefined
}

/**
 * The options of {@link callAll}, checked: the timeout as a Duration (infinite for none) and the
 * concurrency as a number (infinite for unbounded).
 *
 * @since 0.2.0
 * @category models
 */
export interface Bounds {
  readonly timeout: Duration.Duration
  readonly concurrency: number
}

/**
 * Checks the options of {@link callAll}: the {@link Bounds} they give, or a `Config` error that
 * names the option that cannot be a bound. For a caller that answers calls its own way (a loop)
 * and must refuse what `callAll` refuses.
 *
 * @example
 * ```ts
 * import { Toolbox } from "@svir/core"
 * import { Result } from "effect"
 *
 * Result.isSuccess(Toolbox.bounds({ concurrency: 4 })) // true
 * // A Config error that names `timeout`.
 * Result.isFailure(Toolbox.bounds({ timeout: 0 })) // true
 * ```
 *
 * @since 0.2.0
 * @category validation
 */
export const bounds = (options: CallAllOptions): Result.Result<Bounds, SvirError.SvirError> => {
  const { concurrency = 1 } = options
  const count = concurrency === "unbounded" ? Number.POSITIVE_INFINITY : concurrency
  // A JavaScript caller can pass anything, "4" included: only a number is counted.
  if (!(count === Number.POSITIVE_INFINITY || (Number.isSafeInteger(count) && count >= 1))) {
    return Result.fail(
      SvirError.make(
        "Config",
        `concurrency must be a whole number, 1 or more, Infinity or "unbounded"; got ${String(concurrency)}`,
      ),
    )
  }
  return Result.map(timeoutOf(options), (timeout) => ({ timeout, concurrency: count }))
}

const timeoutOf = (options: CallOptions): Result.Result<Duration.Duration, SvirError.SvirError> => {
  if (options.timeout === undefined) return Result.succeed(defaultTimeout)
  const timeout = Option.getOrUndefined(Duration.fromInput(options.timeout))
  // `Duration.fromInput` reads NaN as zero: the comparison refuses both.
  return timeout !== undefined && Duration.toMillis(timeout) > 0
    ? Result.succeed(timeout)
    : Result.fail(
        SvirError.make(
          "Config",
          `timeout must be a duration longer than zero, or Infinity; got ${String(options.timeout)}`,
        ),
      )
}

/**
 * Answers one call, and turns a failure, a defect or an interruption inside the toolbox into a
 * failed result, so that every call gets exactly one result. The defect is logged as an error;
 * neither what the handler threw nor a logger that throws can stop the answer. A call that takes
 * longer than `timeout` ({@link defaultTimeout} when left out) is stopped, and its result says so.
 *
 * A toolbox that answers through other toolboxes (`combine`, a permission guard) calls them with
 * `timeout: Infinity`: the bound is its caller's to set, once.
 *
 * @since 0.2.0
 * @category combinators
 */
export const callSafely = <R>(
  toolbox: Toolbox<R>,
  call: ToolCall.ToolCall,
  options: CallOptions = {},
): Effect.Effect<ToolResult.ToolResult, never, R> =>
  Effect.suspend(() => {
    const timeout = timeoutOf(options)
    return Result.isFailure(timeout)
      ? Effect.die(timeout.failure)
      : answerWithin(toolbox, call, timeout.success)
  })

const answerWithin = <R>(
  toolbox: Toolbox<R>,
  call: ToolCall.ToolCall,
  timeout: Duration.Duration,
): Effect.Effect<ToolResult.ToolResult, never, R> => {
  const answer = answerSafely(toolbox, call)
  if (!Duration.isFinite(timeout)) return answer
  return Effect.map(CallTime.within(answer, timeout), (result) =>
    Option.getOrElse(result, () =>
      ToolResult.error(
        call.id,
        `tool ${ToolCall.shownName(call.name)} did not answer within ${Duration.format(timeout)} and was stopped`,
        "timed_out",
      ),
    ),
  )
}

const answerSafely = <R>(
  toolbox: Toolbox<R>,
  call: ToolCall.ToolCall,
): Effect.Effect<ToolResult.ToolResult, never, R> =>
  Effect.suspend(() => toolbox.call(call)).pipe(
    Effect.catchCause((cause) => {
      const interrupted = Cause.hasInterruptsOnly(cause)
      const what = interrupted
        ? `tool ${ToolCall.shownName(call.name)} was interrupted`
        : `tool ${ToolCall.shownName(call.name)} failed unexpectedly`
      return Effect.as(
        Effect.ignoreCause(Effect.logError(what, describeCause(cause))),
        ToolResult.error(call.id, what, interrupted ? "interrupted" : "handler_failed"),
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
 * `concurrency`, that many calls run at once; the order of the results stays that of the calls.
 * Each call is bounded by `timeout`, {@link defaultTimeout} when left out (see
 * {@link CallAllOptions}). Options that cannot be a bound die with a `Config` error before any
 * call runs.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolCall, Toolbox } from "@svir/core"
 *
 * declare const toolbox: Toolbox.Toolbox
 * const calls = [ToolCall.make("a", "now"), ToolCall.make("b", "now")]
 * const results = Toolbox.callAll(toolbox, calls, { concurrency: 4, timeout: "10 seconds" })
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const callAll = <R>(
  toolbox: Toolbox<R>,
  calls: Iterable<ToolCall.ToolCall>,
  options: CallAllOptions = {},
): Effect.Effect<ReadonlyArray<ToolResult.ToolResult>, never, R> =>
  Effect.suspend(() => {
    const checked = bounds(options)
    if (Result.isFailure(checked)) return Effect.die(checked.failure)
    const { timeout, concurrency } = checked.success
    return Effect.forEach(calls, (call) => answerWithin(toolbox, call, timeout), { concurrency })
  })

/** The bound of a call a toolbox passes on to another: its own caller's bound holds (D27). */
const unbounded: CallOptions = { timeout: Duration.infinity }

/**
 * Two toolboxes, or two registries, that offer the same tool names where they are joined
 * (`Toolbox.combine`, the registry's `Tools.merge`): a clash is a mistake to fix, not a tool to
 * replace silently. `names` lists every clashing name, in the order they were found.
 *
 * @example
 * ```ts
 * import { Toolbox } from "@svir/core"
 *
 * Toolbox.ToolClash.of(["search", "read"]).message
 * // "two toolboxes offer tools named search, read: rename one, or give one of them a prefix"
 * ```
 *
 * @since 0.2.0
 * @category errors
 */
export class ToolClash extends Data.TaggedError("ToolClash")<{
  readonly names: ReadonlyArray<string>
  readonly message: string
}> {
  /** The clash of these names, in the one wording every join uses. */
  static of(names: ReadonlyArray<string>): ToolClash {
    const shown = names.map(ToolCall.shownName).join(", ")
    const what = names.length === 1 ? "a tool" : "tools"
    return new ToolClash({
      names,
      message: `two toolboxes offer ${what} named ${shown}: rename one, or give one of them a prefix`,
    })
  }
}

/**
 * One toolbox that offers the tools of several. Two toolboxes that offer the same name when they
 * are combined are a {@link ToolClash} that names every clashing tool.
 *
 * The members' lists are read again each time the tools are listed or a call is answered, so a
 * member whose list changes (an MCP server's) is followed, and each name stays owned by one member
 * (D26):
 *
 * - A name belongs to the first member that listed it, for as long as any member lists it. A tool
 *   another member lists later under that name is left out, and logged once as a warning.
 * - A name its owner stops listing is offered by no one, and its calls are answered as unknown,
 *   while another member still lists it; once no member lists it, the next member to list it
 *   owns it.
 * - A name is offered once, and a call goes only to the name's owner, and only while the owner
 *   lists it in the lists read for that call.
 *
 * Give a member a prefix (an MCP server's `prefix` option) to keep its names apart.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Toolbox } from "@svir/core"
 *
 * declare const files: Toolbox.Toolbox
 * declare const notes: Toolbox.Toolbox
 * const both = Toolbox.combine([files, notes]) // Effect<Toolbox, ToolClash>
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const combine = <R>(
  toolboxes: ReadonlyArray<Toolbox<R>>,
): Effect.Effect<Toolbox<R>, ToolClash, R> =>
  Effect.gen(function* () {
    const lists = yield* Effect.forEach(toolboxes, (toolbox) => toolbox.tools)
    const clashes = findClashes(lists)
    if (clashes.length > 0) return yield* ToolClash.of(clashes)
    const owners = makeOwners()
    owners.read(lists)
    const current = Effect.flatMap(
      Effect.forEach(toolboxes, (toolbox) => toolbox.tools),
      (lists) => {
        const reading = owners.read(lists)
        return reading.leftOut.length === 0
          ? Effect.succeed(reading)
          : Effect.as(
              Effect.ignoreCause(
                Effect.forEach(reading.leftOut, (text) => Effect.logWarning(text)),
              ),
              reading,
            )
      },
    )
    return make({
      tools: Effect.map(current, (reading) => reading.offered),
      call: (call) =>
        Effect.flatMap(current, (reading) => {
          const owner = reading.routes.get(call.name)
          return owner === undefined
            ? Effect.succeed(
                ToolResult.unknownTool(
                  call.id,
                  call.name,
                  reading.offered.map((tool) => tool.name),
                ),
              )
            : callSafely(toolboxes[owner]!, call, unbounded)
        }),
    })
  })

const findClashes = (lists: ReadonlyArray<ReadonlyArray<Tool.Tool>>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const clashes = new Set<string>()
  for (const tools of lists) {
    for (const name of new Set(tools.map((tool) => tool.name))) {
      if (seen.has(name)) clashes.add(name)
      seen.add(name)
    }
  }
  return [...clashes]
}

/** What one reading of the members' lists gives. */
interface Reading {
  /** The tools offered, each name once, in the members' order. */
  readonly offered: ReadonlyArray<Tool.Tool>
  /** The member that answers each name offered. */
  readonly routes: ReadonlyMap<string, number>
  /** A warning for each tool left out that was not left out at the reading before. */
  readonly leftOut: ReadonlyArray<string>
}

/**
 * Who owns each name of a combination, kept from one reading of the lists to the next. It holds
 * only names listed at the last reading, so a member that keeps listing new names cannot make it
 * grow without bound (D26).
 */
const makeOwners = () => {
  const owners = new Map<string, number>()
  let clashes = new Set<string>()
  const read = (lists: ReadonlyArray<ReadonlyArray<Tool.Tool>>): Reading => {
    const listed = new Set(lists.flatMap((tools) => tools.map((tool) => tool.name)))
    // A name that no member lists any more is free again.
    for (const name of owners.keys()) if (!listed.has(name)) owners.delete(name)
    const offered: Array<Tool.Tool> = []
    const routes = new Map<string, number>()
    const now = new Set<string>()
    const leftOut: Array<string> = []
    lists.forEach((tools, member) => {
      for (const tool of tools) {
        const owner = owners.get(tool.name) ?? member
        owners.set(tool.name, owner)
        if (owner === member) {
          if (!routes.has(tool.name)) {
            routes.set(tool.name, member)
            offered.push(tool)
          }
          continue
        }
        const key = `${member} ${tool.name}`
        if (now.has(key)) continue
        now.add(key)
        if (!clashes.has(key)) {
          leftOut.push(
            `Toolbox.combine: the tool named ${ToolCall.shownName(tool.name)} of toolbox ${member + 1} is left out: toolbox ${owner + 1} offered that name first (give one of them a prefix)`,
          )
        }
      }
    })
    clashes = now
    return { offered, routes, leftOut }
  }
  return { read }
}
