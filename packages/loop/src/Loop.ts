/**
 * The tool loop: send the request, stream the answer's events, answer its calls with a Toolbox,
 * append the assistant turn and the results, repeat until the model answers without a call or a
 * stop condition holds.
 *
 * @since 0.2.0
 * @module
 */
import {
  type Completion,
  type Event as ModelEvent,
  type Request,
  SvirError,
  Toolbox,
  ToolCall,
  ToolResult,
} from "@svir/core"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { type Callback, notify } from "./internal/notify.js"
import { invokeAgent } from "./internal/telemetry.js"
import * as LoopState from "./LoopState.js"
import type * as Step from "./Step.js"
import * as Stop from "./Stop.js"
import * as StreamCompletion from "./StreamCompletion.js"

/**
 * What sends a request: a function that streams the answer's events (`client.stream`) or one
 * that gives the whole completion (`client.complete`), of `@svir/client` or your own transport.
 * A stream's pieces become events of the loop; a whole completion gives none.
 *
 * @example
 * ```ts
 * import type { Client } from "@svir/client"
 * import { Completion, type Request } from "@svir/core"
 * import type { Loop } from "@svir/loop"
 * import { Effect } from "effect"
 *
 * declare const client: Client.Service
 * const streamed: Loop.Send<unknown, never> = client.stream
 * const whole: Loop.Send<unknown, never> = client.complete
 * // A transport of your own, or a fake in a test.
 * const fake: Loop.Send<never, never> = (request: Request.Request) =>
 *   Effect.succeed(Completion.make({ text: `${request.messages.length} messages`, finish: "stop" }))
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type Send<E, R> = (
  request: Request.Request,
) => Stream.Stream<ModelEvent.Event, E, R> | Effect.Effect<Completion.Completion, E, R>

/**
 * A call the repair hook is asked to mend: the call, what is wrong with it (the failed result's
 * text, or why its arguments are not JSON) and the request whose answer made it, which carries
 * the tools offered.
 *
 * @since 0.2.0
 * @category models
 */
export interface Broken {
  readonly call: ToolCall.ToolCall
  readonly problem: string
  readonly request: Request.Request
}

/**
 * Mends a broken call (Vercel's `experimental_repairToolCall`): gives the call to answer in its
 * place, or `undefined` to leave the failed result for the model. The mended call keeps the
 * model's call id.
 *
 * @example
 * ```ts
 * import { ToolCall } from "@svir/core"
 * import type { Loop } from "@svir/loop"
 * import { Effect } from "effect"
 *
 * // Models often misspell this one; anything else is left for the model to correct.
 * const repair: Loop.Repair<never> = ({ call }) =>
 *   Effect.succeed(
 *     call.name === "look_up" ? ToolCall.make(call.id, "lookup", call.arguments) : undefined,
 *   )
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type Repair<R> = (broken: Broken) => Effect.Effect<ToolCall.ToolCall | undefined, never, R>

/**
 * What the loop needs: the `send` function, the `toolbox` that answers the calls, and the first
 * `request` (with the tools offered and the user's message). Optional: `maxSteps` (default
 * {@link Stop.defaultMaxSteps}, always in force), `stopWhen` (conditions checked after each step
 * that made calls; any one stops the loop), `concurrency` of the calls of one step (one at a
 * time by default; a whole number, 1 or more, `Infinity` or `"unbounded"`; results keep the
 * calls' order), `timeout` of each call (core's `Toolbox.defaultTimeout`, 60 seconds, by
 * default; `Infinity` for none: a call that takes longer gets a failed result that says so, and
 * the loop goes on), `repair`, and `abort`: when that Effect completes, the loop stops where it is
 * and says where. Each function may need services of its own; the loop needs them all.
 *
 * A `maxSteps`, `concurrency` or `timeout` that cannot be a bound (`0`, a negative number, `NaN`,
 * a fraction where a count is meant) is a `Config` error, before anything is sent.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options<E, RSend, RTools, RRepair = never, RAbort = never> {
  readonly send: Send<E, RSend>
  readonly toolbox: Toolbox.Toolbox<RTools>
  readonly request: Request.Request
  readonly maxSteps?: number | undefined
  readonly stopWhen?: Stop.Condition | ReadonlyArray<Stop.Condition> | undefined
  readonly concurrency?: number | "unbounded" | undefined
  readonly timeout?: Duration.Input | undefined
  readonly repair?: Repair<RRepair> | undefined
  readonly abort?: Effect.Effect<unknown, never, RAbort> | undefined
}

/**
 * A step begins: `request` is about to be sent. `index` is the step's, 0 for the first.
 *
 * @since 0.2.0
 * @category models
 */
export interface StepStarted {
  readonly _tag: "StepStarted"
  readonly index: number
  readonly request: Request.Request
}

/**
 * A call of step `index` is about to be answered.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallStarted {
  readonly _tag: "CallStarted"
  readonly index: number
  readonly call: ToolCall.ToolCall
}

/**
 * A call of step `index` was answered: the call as answered (mended, if the repair hook mended
 * it) and its result.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallFinished {
  readonly _tag: "CallFinished"
  readonly index: number
  readonly call: ToolCall.ToolCall
  readonly result: ToolResult.ToolResult
}

/**
 * A step is over: the step itself, whose completion has the usage and the finish reason.
 *
 * @since 0.2.0
 * @category models
 */
export interface StepFinished extends Step.Step {
  readonly _tag: "StepFinished"
}

/**
 * The loop is over, with its result. Always the last event.
 *
 * @since 0.2.0
 * @category models
 */
export interface Finished {
  readonly _tag: "Finished"
  readonly result: Result
}

/**
 * An event of the loop: every event of `@svir/core`'s streamed answers but `Completed` (text,
 * reasoning, refusal, pieces of calls, ...; the completion is in `StepFinished`), and the loop's
 * own. In order: `StepStarted`, the model's pieces, `CallStarted` and `CallFinished` for each
 * call, `StepFinished`; again for each step; `Finished` last.
 *
 * @example
 * ```ts
 * import type { Loop } from "@svir/loop"
 *
 * const show = (event: Loop.Event): string | undefined => {
 *   switch (event._tag) {
 *     case "TextDelta":
 *       return event.text
 *     case "CallFinished":
 *       return `\n${event.call.name}: ${event.result.content}\n`
 *     case "StepFinished":
 *       return `\n(step ${event.index}: ${event.completion.usage?.total ?? "?"} tokens)\n`
 *     default:
 *       return undefined
 *   }
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type Event =
  | Exclude<ModelEvent.Event, ModelEvent.Completed>
  | StepStarted
  | CallStarted
  | CallFinished
  | StepFinished
  | Finished

/**
 * What the loop did: `text` and `completion` of the last answer (`undefined` only when the loop
 * was aborted before any answer came), every step, their usage summed (`undefined` when no answer
 * had counts), why it stopped, and `request`: the conversation so far, ready for the next user
 * message.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 * import type { Loop } from "@svir/loop"
 *
 * declare const result: Loop.Result
 * if (result.stop._tag === "MaxSteps") console.log(`stopped after ${result.stop.maxSteps} steps`)
 * // The conversation goes on from where the loop left it.
 * const next = result.request.pipe(Request.user("And order 43?"))
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Result {
  readonly text: string
  readonly completion: Completion.Completion | undefined
  readonly steps: ReadonlyArray<Step.Step>
  /**
   * The usage of every step's answer, summed ({@link Step.totalUsage}). `undefined` when no
   * answer had counts: the server sent none (a streamed answer has them only when the request
   * asks, which the client does unless its `includeUsage` is `false`; lenient mode leaves out
   * counts it cannot read), or the loop was aborted before the first answer came. An answer cut
   * off by `abort` is not counted.
   */
  readonly usage: Completion.Usage | undefined
  readonly stop: Stop.Reason
  readonly request: Request.Request
}

/**
 * Runs the loop and gives its {@link Result}; `onEvent` (optional, a plain function or one
 * that returns an Effect) gets every {@link Event} as it happens. Interrupting the fiber stops
 * the request in flight and the running handlers; the `abort` option stops them too and gives
 * a result that says where it stopped. Transport and protocol failures are the error; a tool
 * that fails is a result the model reads.
 *
 * @example
 * ```ts
 * import type { Client } from "@svir/client"
 * import type { Request, Toolbox } from "@svir/core"
 * import { Loop, Stop } from "@svir/loop"
 *
 * declare const client: Client.Service
 * declare const toolbox: Toolbox.Toolbox
 * declare const request: Request.Request
 *
 * const result = Loop.run({
 *   send: client.stream,
 *   toolbox,
 *   request,
 *   maxSteps: 8,
 *   stopWhen: [Stop.hasToolCall("final_answer"), Stop.tokenBudget(50_000)],
 *   onEvent: (event) => {
 *     if (event._tag === "TextDelta") process.stdout.write(event.text)
 *   },
 * })
 * // Effect<Loop.Result, SvirError>
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const run = <E, RSend, RTools, RRepair = never, RAbort = never, REvent = never>(
  options: Options<E, RSend, RTools, RRepair, RAbort> & {
    readonly onEvent?: Callback<Event, REvent> | undefined
  },
): Effect.Effect<Result, E | SvirError.SvirError, RSend | RTools | RRepair | RAbort | REvent> =>
  runLoop<E, RSend | RTools | RRepair | RAbort | REvent>(options)

/** {@link run}, with one type for all the services the caller's functions need. */
const runLoop = <E, R>(
  options: Options<E, R, R, R, R> & { readonly onEvent?: Callback<Event, R> | undefined },
): Effect.Effect<Result, E | SvirError.SvirError, R> =>
  Effect.suspend(() => {
    const maxSteps = options.maxSteps ?? Stop.defaultMaxSteps
    if (!(Number.isInteger(maxSteps) && maxSteps > 0)) {
      return Effect.fail(
        SvirError.make("Config", `maxSteps must be a positive whole number, not ${maxSteps}`),
      )
    }
    const bounds = Toolbox.bounds(options)
    if (bounds._tag === "Failure") return Effect.fail(bounds.failure)
    const emit = (event: Event) => notify(options.onEvent, event)
    const conditions = options.stopWhen === undefined ? [] : [options.stopWhen].flat()
    const limits = { maxSteps, conditions, concurrency: bounds.success.concurrency }
    const progress: Progress = { state: LoopState.initial(options.request), answers: [] }
    const steps = takeSteps(options, limits, bounds.success, emit, progress)
    const abort = options.abort
    // The steps race the abort, which interrupts them (the request, the handlers) and waits for
    // them to stop before the result is read from what they got done (D6).
    const stopped =
      abort === undefined
        ? steps
        : Effect.raceFirst(steps, Effect.as(abort, undefined)).pipe(
            Effect.map((result) => result ?? aborted(progress)),
          )
    return invokeAgent(Effect.tap(stopped, (result) => emit({ _tag: "Finished", result })))
  })

/**
 * Runs a loop of your own (steps taken with `LoopState.step`, say) in the one `invoke_agent`
 * span `run` uses (D10), with its steps and their usage summed read from what it gives; the
 * model calls and tool calls made inside are its children. With no tracer that exports, the
 * loop runs as it is.
 *
 * @example
 * ```ts
 * import { Loop, type LoopState } from "@svir/loop"
 * import type { Effect } from "effect"
 *
 * declare const mine: Effect.Effect<LoopState.LoopState>
 * const traced = Loop.traced(mine) // one span, with the steps and the usage of the state
 * ```
 *
 * @since 0.2.0
 * @category tracing
 */
export const traced = <
  A extends {
    readonly steps: ReadonlyArray<Step.Step>
    readonly usage: Completion.Usage | undefined
  },
  E,
  R,
>(
  loop: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> => invokeAgent(loop)

/**
 * The loop as a stream of its {@link Event}s, `Finished` (with the result) last. Ending the
 * stream early (`Stream.take`, an interrupted consumer) stops the request and the handlers.
 * The stream waits for a slow consumer.
 *
 * @example
 * ```ts
 * import type { Client } from "@svir/client"
 * import type { Request, Toolbox } from "@svir/core"
 * import { Loop } from "@svir/loop"
 * import { Console, Effect, Stream } from "effect"
 *
 * declare const client: Client.Service
 * declare const toolbox: Toolbox.Toolbox
 * declare const request: Request.Request
 *
 * const printed = Loop.stream({ send: client.stream, toolbox, request }).pipe(
 *   Stream.runForEach((event) => {
 *     switch (event._tag) {
 *       case "TextDelta":
 *         return Effect.sync(() => process.stdout.write(event.text))
 *       case "CallFinished":
 *         return Console.error(`${event.call.name}: ${event.result.content}`)
 *       default:
 *         return Effect.void
 *     }
 *   }),
 * )
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const stream = <E, RSend, RTools, RRepair = never, RAbort = never>(
  options: Options<E, RSend, RTools, RRepair, RAbort>,
): Stream.Stream<Event, E | SvirError.SvirError, RSend | RTools | RRepair | RAbort> =>
  Stream.callback<Event, E | SvirError.SvirError, RSend | RTools | RRepair | RAbort>(
    (queue) =>
      run({ ...options, onEvent: (event) => Queue.offer(queue, event) }).pipe(
        Effect.andThen(Queue.end(queue)),
      ),
    { bufferSize: 16, strategy: "suspend" },
  )

/**
 * What the loop has done so far, kept where an abort can read it: the state, and the answers so
 * far of the calls being answered, by the calls' positions.
 */
interface Progress {
  state: LoopState.LoopState
  answers: Array<LoopState.Answer | undefined>
}

/**
 * Takes steps until one of the ends of D3: an answer without calls, `maxSteps`, a condition. Each
 * turn of the loop is `LoopState.step`, with the events sent from its two seams (D15).
 */
const takeSteps = <E, R>(
  options: Options<E, R, R, R, R>,
  limits: LoopState.Bounds,
  bounds: Toolbox.Bounds,
  emit: (event: Event) => Effect.Effect<void, never, R>,
  progress: Progress,
): Effect.Effect<Result, E | SvirError.SvirError, R> =>
  Effect.gen(function* () {
    const seams: LoopState.Seams<E | SvirError.SvirError, R> = {
      complete: (request) => complete(options.send, request, emit),
      answer: (call, position, request) =>
        Effect.gen(function* () {
          const index = progress.state.steps.length
          yield* emit({ _tag: "CallStarted", index, call })
          const answer = yield* answerCall(options, request, call, bounds)
          progress.answers[position] = answer
          yield* emit({ _tag: "CallFinished", index, ...answer })
          return answer
        }),
    }
    for (;;) {
      const state = progress.state
      if (state.stop !== undefined) return resultOf(state, state.stop)
      if (state.pending === undefined) {
        yield* emit({ _tag: "StepStarted", index: state.steps.length, request: state.request })
      }
      progress.answers = []
      const next = yield* LoopState.step(state, seams, limits)
      progress.state = next
      const step = next.steps.at(-1)
      if (step !== undefined && next.steps.length > state.steps.length) {
        yield* emit({ _tag: "StepFinished", ...step })
      }
    }
  })

/** One answer: streamed, with its pieces as events, or whole. */
const complete = <E, R>(
  send: Send<E, R>,
  request: Request.Request,
  emit: (event: Event) => Effect.Effect<void, never, R>,
): Effect.Effect<Completion.Completion, E | SvirError.SvirError, R> =>
  Effect.suspend(() => {
    const answer = send(request)
    return Stream.isStream(answer)
      ? StreamCompletion.run(answer, (event) =>
          event._tag === "Completed" ? undefined : emit(event),
        )
      : answer
  })

/** A failed result whose arguments do not fit, or whose name no tool has (its kind, not its words). */
const isRepairable = (result: ToolResult.ToolResult): boolean =>
  ToolResult.failedFor(result, ["invalid_arguments", "unknown_tool"])

/**
 * Answers a call. With a repair hook, a call whose arguments are not JSON goes to the hook
 * before the toolbox sees it, and a call the toolbox answers as invalid or unknown goes to it
 * after; a mended call is answered in its place, once (D5). Each answer has the whole timeout.
 */
const answerCall = <E, R>(
  options: Options<E, R, R, R, R>,
  request: Request.Request,
  call: ToolCall.ToolCall,
  bounds: Toolbox.Bounds,
): Effect.Effect<LoopState.Answer, never, R> =>
  Effect.gen(function* () {
    const { repair } = options
    const answer = (call: ToolCall.ToolCall) =>
      Toolbox.callSafely(options.toolbox, call, { timeout: bounds.timeout })
    if (repair === undefined) return { call, result: yield* answer(call) }
    const read = ToolCall.readJson(call.arguments)
    let result: ToolResult.ToolResult | undefined
    let problem: string | undefined
    if (read._tag === "Failure") {
      problem = `invalid arguments: ${read.failure.message}`
    } else {
      result = yield* answer(call)
      if (isRepairable(result)) problem = result.content
    }
    const mended = problem === undefined ? undefined : yield* repair({ call, problem, request })
    if (mended !== undefined) {
      const again = ToolCall.make(call.id, mended.name, mended.arguments)
      return { call: again, result: yield* answer(again) }
    }
    return { call, result: result ?? (yield* answer(call)) }
  })

/** The result of the loop so far, stopped for `stop`. */
const resultOf = (state: LoopState.LoopState, stop: Stop.Reason): Result => {
  const completion = state.steps.at(-1)?.completion
  return {
    text: completion?.text ?? "",
    completion,
    steps: state.steps,
    usage: state.usage,
    stop,
    request: state.request,
  }
}

/**
 * The result of an aborted loop. Aborted while answering calls, the step is recorded with the
 * results it got and `tool NAME was interrupted` for the others, so that every call of the
 * conversation has its result (D6).
 */
const aborted = (progress: Progress): Result => {
  const state = progress.state
  const step = state.steps.length
  const pending = state.pending
  if (pending === undefined) return resultOf(state, { _tag: "Aborted", step, during: "model" })
  const answers = pending.calls.map(
    (call, position) =>
      progress.answers[position] ?? {
        call,
        result: ToolResult.error(
          call.id,
          `tool ${ToolCall.shownName(call.name)} was interrupted`,
          "interrupted",
        ),
      },
  )
  return resultOf(LoopState.record(state, pending, answers), {
    _tag: "Aborted",
    step,
    during: "tools",
  })
}
