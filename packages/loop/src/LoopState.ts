/**
 * The loop's state as data: what it carries from one step to the next, a versioned value that
 * encodes to JSON and holds no secret, and the step function that takes it one step further with
 * the model and the tools behind two functions passed in (D15).
 *
 * @since 0.2.0
 * @module
 */
import { Completion, Request, type ToolCall, type ToolResult } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import * as Schema from "effect/Schema"
import type * as Step from "./Step.js"
import type * as Stop from "./Stop.js"

/**
 * What the loop carries between steps: the conversation so far (`request`, ready to send), the
 * steps taken (their number is the next step's index; stop conditions read them), their usage
 * summed, the answer whose calls await their results (`pending`), and why the loop stopped, once
 * it has. It holds no key and no header: those stay with the transport.
 *
 * @example
 * ```ts
 * import type { LoopState } from "@svir/loop"
 *
 * declare const state: LoopState.LoopState
 * const index = state.steps.length // the next step's
 * const awaiting = state.pending?.calls ?? [] // calls without their results yet
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface LoopState {
  readonly version: 1
  readonly request: Request.Request
  readonly steps: ReadonlyArray<Step.Step>
  readonly usage: Completion.Usage | undefined
  readonly pending: Completion.Completion | undefined
  readonly stop: Stop.Reason | undefined
}

/**
 * The state of a loop that has not begun: the first request, no step.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 * import { LoopState } from "@svir/loop"
 *
 * const state = LoopState.initial(Request.make("qwen3").pipe(Request.user("Where is order 42?")))
 * state.steps.length // 0
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const initial = (request: Request.Request): LoopState => ({
  version: 1,
  request,
  steps: [],
  usage: undefined,
  pending: undefined,
  stop: undefined,
})

/**
 * A call and the result it got (the call as answered: mended, if a repair hook mended it).
 *
 * @example
 * ```ts
 * import { ToolCall, ToolResult } from "@svir/core"
 * import type { LoopState } from "@svir/loop"
 *
 * const call = ToolCall.make("call_1", "now")
 * const answer: LoopState.Answer = { call, result: ToolResult.make(call.id, "noon") }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Answer {
  readonly call: ToolCall.ToolCall
  readonly result: ToolResult.ToolResult
}

/**
 * The two seams of a step: `complete` gets the model's answer to a request, `answer` answers one
 * call of it. In a durable workflow each is an activity.
 *
 * @example
 * ```ts
 * import type { Client } from "@svir/client"
 * import { type Toolbox, Toolbox as Toolboxes } from "@svir/core"
 * import type { LoopState } from "@svir/loop"
 * import { Effect } from "effect"
 *
 * declare const client: Client.Service
 * declare const toolbox: Toolbox.Toolbox
 * const seams: LoopState.Seams<unknown, never> = {
 *   complete: client.complete,
 *   answer: (call) =>
 *     Effect.map(Toolboxes.callSafely(toolbox, call), (result) => ({ call, result })),
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Seams<E, R> {
  readonly complete: (request: Request.Request) => Effect.Effect<Completion.Completion, E, R>
  readonly answer: (
    call: ToolCall.ToolCall,
    position: number,
    request: Request.Request,
  ) => Effect.Effect<Answer, never, R>
}

/**
 * When a step ends the loop: `maxSteps`, the conditions of `stopWhen` (checked after a step
 * that made calls), and how many calls of a step are answered at once.
 *
 * @example
 * ```ts
 * import { LoopState, Stop } from "@svir/loop"
 *
 * const bounds: LoopState.Bounds = {
 *   maxSteps: Stop.defaultMaxSteps,
 *   conditions: [Stop.tokenBudget(50_000)],
 *   concurrency: 4,
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Bounds {
  readonly maxSteps: number
  readonly conditions: ReadonlyArray<Stop.Condition>
  readonly concurrency: number | "unbounded"
}

/**
 * Takes the loop one step further: without a pending answer, asks the model (`complete`) and
 * keeps its answer as pending; with one, answers its calls (`answer`, one result per call, in
 * their order), appends the assistant turn and the results, and says whether the loop stops. A
 * stopped state is given back as it is.
 *
 * @example
 * ```ts
 * import { Completion, Request, ToolResult } from "@svir/core"
 * import { LoopState } from "@svir/loop"
 * import { Effect } from "effect"
 *
 * const seams: LoopState.Seams<never, never> = {
 *   complete: () => Effect.succeed(Completion.make({ text: "Shipped.", finish: "stop" })),
 *   answer: (call) => Effect.succeed({ call, result: ToolResult.make(call.id, "done") }),
 * }
 * const bounds = { maxSteps: 20, conditions: [], concurrency: 1 }
 * const state = LoopState.initial(Request.make("qwen3").pipe(Request.user("Where is order 42?")))
 * const answered = LoopState.step(state, seams, bounds).pipe(
 *   Effect.flatMap((next) => LoopState.step(next, seams, bounds)),
 * ) // its stop: { _tag: "Answered" }
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const step = <E, R>(
  state: LoopState,
  seams: Seams<E, R>,
  bounds: Bounds,
): Effect.Effect<LoopState, E, R> => {
  if (state.stop !== undefined) return Effect.succeed(state)
  const pending = state.pending
  if (pending === undefined) {
    return Effect.map(seams.complete(state.request), (completion) => ({
      ...state,
      pending: completion,
    }))
  }
  return Effect.forEach(
    pending.calls,
    (call, position) => seams.answer(call, position, state.request),
    { concurrency: bounds.concurrency },
  ).pipe(Effect.map((answers) => stopped(record(state, pending, answers), bounds)))
}

/**
 * Ends a step: records it and appends its assistant turn (with the calls as answered) and its
 * results to the conversation, all at once.
 *
 * @example
 * ```ts
 * import { Completion, Request, ToolCall, ToolResult } from "@svir/core"
 * import { LoopState } from "@svir/loop"
 *
 * const call = ToolCall.make("call_1", "now")
 * const completion = Completion.make({ calls: [call], finish: "tool_calls" })
 * const state = LoopState.initial(Request.make("qwen3").pipe(Request.user("Time?")))
 * const next = LoopState.record(state, completion, [{ call, result: ToolResult.make(call.id, "noon") }])
 * next.request.messages.length // 3
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const record = (
  state: LoopState,
  completion: Completion.Completion,
  answers: ReadonlyArray<Answer>,
): LoopState => {
  const calls = answers.map((answer) => answer.call)
  const results = answers.map((answer) => answer.result)
  const step: Step.Step = {
    index: state.steps.length,
    request: state.request,
    completion,
    calls,
    results,
  }
  const usage = completion.usage
  return {
    version: 1,
    request: state.request.pipe(
      Request.assistant({ ...completion, calls }),
      Request.toolResults(results),
    ),
    steps: [...state.steps, step],
    usage:
      usage === undefined
        ? state.usage
        : state.usage === undefined
          ? usage
          : Completion.addUsage(state.usage, usage),
    pending: undefined,
    stop: state.stop,
  }
}

/** The ends of D3: an answer without calls, `maxSteps`, a condition that holds. */
const stopped = (state: LoopState, bounds: Bounds): LoopState => {
  const last = state.steps.at(-1)
  if (last === undefined) return state
  if (last.calls.length === 0) return { ...state, stop: { _tag: "Answered" } }
  if (state.steps.length >= bounds.maxSteps) {
    return { ...state, stop: { _tag: "MaxSteps", maxSteps: bounds.maxSteps } }
  }
  const met = bounds.conditions.findIndex((condition) =>
    condition({ steps: state.steps, usage: state.usage }),
  )
  return met === -1 ? state : { ...state, stop: { _tag: "Condition", index: met } }
}

const Json = Schema.Unknown

/**
 * The JSON form of a {@link LoopState}. Core has no Schemas of its values, so messages,
 * completions, calls and results are kept as JSON values that {@link decode} reads back as they
 * were written (bytes of images and files as base64), with the shape checked here kept minimal.
 * A step's request is the conversation's first `messages` messages, so a state grows with the
 * conversation, not with its square.
 *
 * @example
 * ```ts
 * import { LoopState } from "@svir/loop"
 * import { Schema } from "effect"
 *
 * const isState = Schema.is(LoopState.Encoded) // the frame only: version, steps, counts
 * ```
 *
 * @since 0.2.0
 * @category schemas
 */
export const Encoded = Schema.Struct({
  version: Schema.Literal(1),
  request: Schema.Struct({
    settings: Schema.Record(Schema.String, Json),
    messages: Schema.Array(Json),
  }),
  steps: Schema.Array(
    Schema.Struct({
      messages: Schema.Number,
      completion: Json,
      calls: Schema.Array(Json),
      results: Schema.Array(Json),
    }),
  ),
  usage: Schema.NullOr(Json),
  pending: Schema.NullOr(Json),
  stop: Schema.NullOr(Json),
})

/**
 * The JSON form of a {@link LoopState}.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 * import { LoopState } from "@svir/loop"
 *
 * const stored: LoopState.Encoded = LoopState.encode(LoopState.initial(Request.make("qwen3")))
 * stored.version // 1
 * ```
 *
 * @since 0.2.0
 * @category schemas
 */
export type Encoded = typeof Encoded.Type

/**
 * One of core's values (a message, a completion, a call, a result) as a JSON value, the way
 * {@link encode} writes it: bytes of images and files as an object tagged `Bytes` with their
 * base64 (core's values hold no other object with that tag), fields that are `undefined` left
 * out. {@link fromJson} reads it back.
 *
 * @example
 * ```ts
 * import { Completion } from "@svir/core"
 * import { LoopState } from "@svir/loop"
 *
 * const stored = JSON.stringify(LoopState.toJson(Completion.make({ text: "Hi", finish: "stop" })))
 * const again = LoopState.fromJson(JSON.parse(stored)) as Completion.Completion
 * ```
 *
 * @since 0.2.0
 * @category encoding
 */
export const toJson = (value: unknown): unknown => {
  if (value instanceof Uint8Array) return { _tag: "Bytes", base64: Base64.encode(value) }
  if (Array.isArray(value)) return value.map(toJson)
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [key, field] of Object.entries(value)) {
      if (field !== undefined) out[key] = toJson(field)
    }
    return out
  }
  return value
}

/**
 * A value written by {@link toJson}, read back: objects tagged `Bytes` become bytes again. The
 * value's shape is not checked: give it only what {@link toJson} wrote.
 *
 * @example
 * ```ts
 * import { ToolResult } from "@svir/core"
 * import { LoopState } from "@svir/loop"
 *
 * const result = ToolResult.make("call_1", "noon")
 * const again = LoopState.fromJson(LoopState.toJson(result)) as ToolResult.ToolResult
 * ```
 *
 * @since 0.2.0
 * @category encoding
 */
export const fromJson = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(fromJson)
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>
    if (record._tag === "Bytes" && typeof record.base64 === "string") {
      const bytes = Base64.decode(record.base64)
      if (bytes._tag === "Success") return bytes.success
    }
    const out: Record<string, unknown> = {}
    for (const [key, field] of Object.entries(record)) out[key] = fromJson(field)
    return out
  }
  return value
}

/**
 * The state as JSON: what `JSON.stringify` writes and {@link decode} reads back.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 * import { LoopState } from "@svir/loop"
 *
 * const state = LoopState.initial(Request.make("qwen3").pipe(Request.user("Hi")))
 * const text = JSON.stringify(LoopState.encode(state))
 * ```
 *
 * @since 0.2.0
 * @category encoding
 */
export const encode = (state: LoopState): Encoded => {
  const { messages, pipe: _, ...settings } = state.request
  return {
    version: 1,
    request: {
      settings: toJson(settings) as Record<string, unknown>,
      messages: messages.map(toJson),
    },
    steps: state.steps.map((step) => ({
      messages: step.request.messages.length,
      completion: toJson(step.completion),
      calls: step.calls.map(toJson),
      results: step.results.map(toJson),
    })),
    usage: state.usage === undefined ? null : toJson(state.usage),
    pending: state.pending === undefined ? null : toJson(state.pending),
    stop: state.stop === undefined ? null : toJson(state.stop),
  }
}

/** A request with these settings and messages. */
const requestOf = (
  settings: Readonly<Record<string, unknown>>,
  messages: ReadonlyArray<unknown>,
): Request.Request => {
  const base = { ...Request.make(String(settings.model)), ...settings } as Request.Request
  return Request.messages(base, messages as never)
}

/**
 * Reads a state written by {@link encode} (after `JSON.parse`): a value of another version or
 * shape fails with the Schema's error.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 * import { LoopState } from "@svir/loop"
 * import { Effect } from "effect"
 *
 * const state = LoopState.initial(Request.make("qwen3").pipe(Request.user("Hi")))
 * const again = LoopState.decode(JSON.parse(JSON.stringify(LoopState.encode(state))))
 * // Effect<LoopState.LoopState, Schema.SchemaError>
 * const refused = LoopState.decode({ version: 2 }) // fails
 * ```
 *
 * @since 0.2.0
 * @category encoding
 */
export const decode = (input: unknown): Effect.Effect<LoopState, Schema.SchemaError> =>
  Effect.map(Schema.decodeUnknownEffect(Encoded)(input), (encoded): LoopState => {
    const settings = fromJson(encoded.request.settings) as Record<string, unknown>
    const messages = encoded.request.messages.map(fromJson)
    const request = requestOf(settings, messages)
    return {
      version: 1,
      request,
      steps: encoded.steps.map(
        (step, index): Step.Step => ({
          index,
          request: requestOf(settings, messages.slice(0, step.messages)),
          completion: fromJson(step.completion) as Completion.Completion,
          calls: step.calls.map(fromJson) as Array<ToolCall.ToolCall>,
          results: step.results.map(fromJson) as Array<ToolResult.ToolResult>,
        }),
      ),
      usage: encoded.usage === null ? undefined : (fromJson(encoded.usage) as Completion.Usage),
      pending:
        encoded.pending === null ? undefined : (fromJson(encoded.pending) as Completion.Completion),
      stop: encoded.stop === null ? undefined : (fromJson(encoded.stop) as Stop.Reason),
    }
  })
