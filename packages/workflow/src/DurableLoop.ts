/**
 * The tool-calling loop as a durable workflow on Effect's workflow engine (D1): each model call
 * and each tool call an activity whose result is recorded, approvals that wait as durable
 * deferreds, waits before a retry as durable sleeps. A run started in one process finishes in
 * another after a crash, and a tool call whose result was recorded is never run again.
 *
 * @since 0.2.0
 * @module
 */
import {
  type Completion,
  Guard,
  IdempotencyKey,
  type Request,
  SvirError,
  type Toolbox,
  Toolbox as Toolboxes,
  type ToolCall,
  ToolInput,
  ToolResult,
} from "@svir/core"
import { type Approval, Loop, LoopState, Stop, StreamCompletion } from "@svir/loop"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Headers from "effect/http/Headers"
import * as HttpTraceContext from "effect/http/HttpTraceContext"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import * as Activity from "effect/workflow/Activity"
import * as DurableClock from "effect/workflow/DurableClock"
import * as DurableDeferred from "effect/workflow/DurableDeferred"
import * as Workflow from "effect/workflow/Workflow"
import type { WorkflowEngine, WorkflowInstance } from "effect/workflow/WorkflowEngine"
import { argumentsDigest } from "./internal/digest.js"

/**
 * A model call that failed for good: after the retries its kind allows, or at once for a kind
 * that sending again cannot help. It is what the run fails with, kept in storage as it is, so it
 * holds the kind, the status and the message of the error, never its cause.
 *
 * @example
 * ```ts
 * import { DurableLoop } from "@svir/workflow"
 *
 * const failure = new DurableLoop.ModelFailure({
 *   kind: "RateLimited",
 *   message: "rate limited",
 *   retryable: true,
 *   attempts: 4,
 * })
 * ```
 *
 * @since 0.2.0
 * @category errors
 */
export class ModelFailure extends Schema.TaggedError<ModelFailure>()("ModelFailure", {
  /** The SvirError's reason (`RateLimited`, `Server`, ...), or `Other` for another error. */
  kind: Schema.String,
  message: Schema.String,
  status: Schema.optional(Schema.Number),
  /** Whether sending the same request again could have helped. */
  retryable: Schema.Boolean,
  retryAfterMillis: Schema.optional(Schema.Number),
  /** How many times the request was sent. */
  attempts: Schema.Number,
}) {}

/**
 * Why an approval was not delivered: the token is not one this package wrote, or it was made for
 * another call, or for the same call with other arguments.
 *
 * @example
 * ```ts
 * import { DurableLoop } from "@svir/workflow"
 *
 * const refused = new DurableLoop.ApprovalRefused({ message: "the token is for other arguments" })
 * ```
 *
 * @since 0.2.0
 * @category errors
 */
export class ApprovalRefused extends Data.TaggedError("ApprovalRefused")<{
  readonly message: string
}> {}

/**
 * Why answers to a tool's question were not delivered: the token is not one this package wrote
 * for a question, or it was made for another call, or for the same call with other arguments.
 *
 * @example
 * ```ts
 * import { DurableLoop } from "@svir/workflow"
 *
 * const refused = new DurableLoop.AnswerRefused({ message: "the token is for other arguments" })
 * ```
 *
 * @since 0.2.0
 * @category errors
 */
export class AnswerRefused extends Data.TaggedError("AnswerRefused")<{
  readonly message: string
}> {}

/**
 * A tool that asked a question before it can answer a call (an MCP server's `input_required`,
 * D12): the token that resumes the call with the answers ({@link answer}), the call, its step,
 * how many of its questions were answered before this one, and the requests by the tool's keys
 * (for an MCP tool, the server's `inputRequests`: a form to fill, roots to list). Given to
 * `onInput` once per question (at least once: see D4).
 *
 * @example
 * ```ts
 * import type { DurableLoop } from "@svir/workflow"
 *
 * const show = (asked: DurableLoop.InputRequest) =>
 *   `${asked.call.name} asks ${Object.keys(asked.requests).join(", ")}: answer with ${asked.token}`
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface InputRequest {
  readonly token: string
  readonly call: ToolCall.ToolCall
  readonly step: number
  readonly round: number
  readonly requests: { readonly [key: string]: unknown }
}

/**
 * A call that waits for a person: the token that resumes it ({@link approve}), the call as the
 * model made it, and the step it belongs to. Given to `onApproval` once per call (at least once:
 * see D4).
 *
 * @example
 * ```ts
 * import type { DurableLoop } from "@svir/workflow"
 *
 * const show = (asked: DurableLoop.ApprovalRequest) =>
 *   `step ${asked.step}: ${asked.call.name}(${asked.call.arguments}), answer with ${asked.token}`
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface ApprovalRequest {
  readonly token: string
  readonly call: ToolCall.ToolCall
  readonly step: number
}

/**
 * How a durable loop runs, fixed when it is made: the bounds of `Loop.run` (`maxSteps`,
 * `stopWhen`, `concurrency`, `timeout` for each tool call), `needsApproval` (which calls wait for
 * a person, as durable waits) and `retry` (how often a model call that failed in a way that may
 * pass is sent again, after a durable wait: the server's `Retry-After`, or `base` doubled each
 * time up to `max`).
 *
 * @example
 * ```ts
 * import { Stop } from "@svir/loop"
 * import type { DurableLoop } from "@svir/workflow"
 *
 * const options: DurableLoop.Options = {
 *   maxSteps: 12,
 *   stopWhen: Stop.tokenBudget(200_000),
 *   needsApproval: (call) => call.name === "send_email",
 *   retry: { times: 5, base: "2 seconds", max: "5 minutes" },
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly maxSteps?: number | undefined
  readonly stopWhen?: Stop.Condition | ReadonlyArray<Stop.Condition> | undefined
  readonly concurrency?: number | "unbounded" | undefined
  readonly timeout?: Duration.Input | undefined
  readonly needsApproval?: ((call: ToolCall.ToolCall) => boolean) | undefined
  readonly retry?:
    | {
        readonly times?: number | undefined
        readonly base?: Duration.Input | undefined
        readonly max?: Duration.Input | undefined
      }
    | undefined
}

/**
 * What a runner answers with: the model (`send`, as in `Loop.run`), the tools, and what to do
 * when a call waits for a person (`onApproval`: send the token where a person can answer). With
 * `onInput`, a tool's questions (an MCP server's forms) wait durably too, and `onInput` sends
 * their token where a person can answer (D12); without it, the tool answers them inside the
 * call, through its own services (an MCP toolbox's `Elicitation`).
 *
 * @example
 * ```ts
 * import type { Client } from "@svir/client"
 * import type { Toolbox } from "@svir/core"
 * import { Effect } from "effect"
 * import type { DurableLoop } from "@svir/workflow"
 *
 * declare const client: Client.Service
 * declare const toolbox: Toolbox.Toolbox
 * const handlers: DurableLoop.Handlers<unknown, never, never, never> = {
 *   send: client.stream,
 *   toolbox,
 *   onApproval: (asked) => Effect.log(`approve ${asked.call.name}: ${asked.token}`),
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Handlers<E, RSend, RTools, RAsk> {
  readonly send: Loop.Send<E, RSend>
  readonly toolbox: Toolbox.Toolbox<RTools>
  readonly onApproval?: ((asked: ApprovalRequest) => Effect.Effect<void, never, RAsk>) | undefined
  readonly onInput?: ((asked: InputRequest) => Effect.Effect<void, never, RAsk>) | undefined
}

const Payload = Schema.Struct({
  /** The run's own id, chosen by whoever starts it: starting the same id again joins the run. */
  id: Schema.String,
  state: LoopState.Encoded,
  /** The W3C trace context of the span that started the run, so that its spans join that trace. */
  traceparent: Schema.optional(Schema.String),
})

/**
 * A loop made durable: its Effect `workflow`, the `layer` that registers it on a runner with the
 * model and tools, and the ways to start a run, wait for it and read its result.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 * import { Effect } from "effect"
 * import { DurableLoop } from "@svir/workflow"
 *
 * const agent = DurableLoop.make("support-agent", { maxSteps: 8 })
 * const started = agent.start("ticket-4711", Request.make("qwen3").pipe(Request.user("Hi")))
 * // Effect<string, never, WorkflowEngine>: the execution id
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface DurableLoop<Name extends string> {
  readonly name: Name
  readonly workflow: Workflow.Workflow<
    Name,
    typeof Payload,
    typeof LoopState.Encoded,
    typeof ModelFailure
  >
  /** Registers the loop on this process's engine; fails on bounds that are not valid. */
  readonly layer: <E, RSend, RTools, RAsk = never>(
    handlers: Handlers<E, RSend, RTools, RAsk>,
  ) => Layer.Layer<never, SvirError.SvirError, WorkflowEngine | RSend | RTools | RAsk>
  /** Starts a run with this id (or joins the one that has it), and gives its execution id. */
  readonly start: (
    id: string,
    request: Request.Request,
  ) => Effect.Effect<string, never, WorkflowEngine>
  /** Starts a run (or joins it) and waits for its result. */
  readonly run: (
    id: string,
    request: Request.Request,
  ) => Effect.Effect<Loop.Result, ModelFailure, WorkflowEngine>
  /** The result of a run, once it has one; `None` while it runs or waits. */
  readonly result: (
    executionId: string,
  ) => Effect.Effect<Option.Option<Loop.Result>, ModelFailure, WorkflowEngine>
}

/**
 * Makes a durable loop named `name` (the workflow's name: the same in every process that starts
 * or runs it). Stop conditions and `needsApproval` are functions, so they live here, in code, and
 * not in storage.
 *
 * @example
 * ```ts
 * import { DurableLoop } from "@svir/workflow"
 *
 * const agent = DurableLoop.make("support-agent", {
 *   maxSteps: 8,
 *   needsApproval: (call) => call.name === "refund",
 * })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = <const Name extends string>(
  name: Name,
  options: Options = {},
): DurableLoop<Name> => {
  const workflow = Workflow.make(name, {
    payload: Payload,
    success: LoopState.Encoded,
    error: ModelFailure,
    idempotencyKey: (payload) => payload.id,
  })
  const payloadOf = (id: string, request: Request.Request) =>
    Effect.map(Effect.currentSpan.pipe(Effect.option), (span) => {
      const state = LoopState.encode(LoopState.initial(request))
      if (Option.isNone(span)) return { id, state }
      return { id, state, traceparent: HttpTraceContext.toHeaders(span.value).traceparent }
    })
  const resultOf = (encoded: LoopState.Encoded) =>
    Effect.map(Effect.orDie(LoopState.decode(encoded)), loopResult)
  return {
    name,
    workflow,
    layer: (handlers) =>
      Layer.unwrap(
        Effect.map(settingsOf(options), (settings) =>
          workflow.toLayer((payload, executionId) =>
            runBody(handlers, settings, payload, executionId),
          ),
        ),
      ),
    start: (id, request) =>
      Effect.flatMap(payloadOf(id, request), (payload) =>
        workflow.execute(payload, { discard: true }),
      ),
    run: (id, request) =>
      Effect.flatMap(payloadOf(id, request), (payload) =>
        Effect.flatMap(workflow.execute(payload), resultOf),
      ),
    result: (executionId) =>
      Effect.flatMap(workflow.poll(executionId), (polled) => {
        if (Option.isNone(polled) || polled.value._tag === "Suspended") {
          return Effect.succeedNone
        }
        return Effect.asSome(Effect.flatMap(polled.value.exit, resultOf))
      }),
  }
}

/** The decision a person gives, as it is stored. */
const Decision = Schema.Union([
  Schema.TaggedStruct("Allow", {}),
  Schema.TaggedStruct("Deny", { reason: Schema.String }),
])

/** The deferred of one approval; its name carries the step, the call's place and its digest. */
const approvalDeferred = (name: string) => DurableDeferred.make(name, { success: Decision })

const approvalPrefix = "approval "

/**
 * Answers a call that waits for a person, from any process with the same engine: `decision` is
 * `Approval.allow` or `Approval.deny(reason)`, and `call` is the call as the person saw it. The
 * token is bound to the call's id, name and arguments (D3): given another call, or the same call
 * with other arguments, it is refused and the run goes on waiting.
 *
 * @example
 * ```ts
 * import type { ToolCall } from "@svir/core"
 * import { Approval } from "@svir/loop"
 * import { DurableLoop } from "@svir/workflow"
 *
 * declare const asked: { readonly token: string; readonly call: ToolCall.ToolCall }
 * const approved = DurableLoop.approve(asked.token, asked.call, Approval.allow)
 * // Effect<void, DurableLoop.ApprovalRefused, WorkflowEngine>
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const approve = (
  token: string,
  call: ToolCall.ToolCall,
  decision: Approval.Decision,
): Effect.Effect<void, ApprovalRefused, WorkflowEngine> =>
  Effect.flatMap(
    deferredNameFor(
      token,
      call,
      approvalPrefix,
      "an approval",
      (message) => new ApprovalRefused({ message }),
    ),
    (name) =>
      DurableDeferred.succeed(approvalDeferred(name), {
        token: token as DurableDeferred.Token,
        value: decision,
      }),
  )

/** The answers a person gives to a tool's question, as they are stored. */
const Responses = Schema.Struct({ responses: Schema.Record(Schema.String, Schema.Unknown) })

/** The deferred of one question; its name carries the step, the call's place, the round and its digest. */
const inputDeferred = (name: string) => DurableDeferred.make(name, { success: Responses })

const inputPrefix = "input "

/**
 * Answers a tool's question (an {@link InputRequest}) from any process with the same engine:
 * `responses` by the keys of the question's `requests` (for an MCP form, `{ action: "accept",
 * content }`, `{ action: "decline" }` or `{ action: "cancel" }`), and `call` the call as the
 * person saw it. The call then runs again with the answers. The token is bound to the call's id,
 * name and arguments (D12): given another call, or the same call with other arguments, it is
 * refused and the run goes on waiting.
 *
 * @example
 * ```ts
 * import { DurableLoop } from "@svir/workflow"
 *
 * declare const asked: DurableLoop.InputRequest
 * const answered = DurableLoop.answer(asked.token, asked.call, {
 *   confirm: { action: "accept", content: { confirm: true } },
 * })
 * // Effect<void, DurableLoop.AnswerRefused, WorkflowEngine>
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const answer = (
  token: string,
  call: ToolCall.ToolCall,
  responses: { readonly [key: string]: unknown },
): Effect.Effect<void, AnswerRefused, WorkflowEngine> =>
  Effect.flatMap(
    deferredNameFor(
      token,
      call,
      inputPrefix,
      "a question",
      (message) => new AnswerRefused({ message }),
    ),
    (name) =>
      DurableDeferred.succeed(inputDeferred(name), {
        token: token as DurableDeferred.Token,
        value: { responses },
      }),
  )

/**
 * The name of the deferred a token resumes, once it is checked to be one of `prefix` and bound
 * to `call` with its arguments (D3, D12); else the refusal `refused` makes.
 */
const deferredNameFor = <E>(
  token: string,
  call: ToolCall.ToolCall,
  prefix: string,
  what: string,
  refused: (message: string) => E,
): Effect.Effect<string, E> =>
  Effect.gen(function* () {
    const notOurs = refused(`the token is not a token of ${what}`)
    const parsed = yield* Effect.try({
      try: () => DurableDeferred.TokenParsed.fromString(token),
      catch: () => notOurs,
    })
    const name = parsed.deferredName
    if (!name.startsWith(prefix)) return yield* Effect.fail(notOurs)
    const digest = yield* argumentsDigest(call)
    if (!name.endsWith(` ${digest}`)) {
      return yield* Effect.fail(
        refused(`the token is for another call, or for call ${call.id} with other arguments`),
      )
    }
    return name
  })

/** What an activity, a durable wait or a durable deferred needs: the engine and the run. */
type Durable = WorkflowEngine | WorkflowInstance

/** The options, checked once when a runner registers the loop. */
interface Settings {
  readonly bounds: LoopState.Bounds
  readonly timeout: Duration.Duration
  readonly needsApproval: (call: ToolCall.ToolCall) => boolean
  readonly retries: number
  readonly baseMillis: number
  readonly maxMillis: number
}

const settingsOf = (options: Options): Effect.Effect<Settings, SvirError.SvirError> =>
  Effect.suspend(() => {
    const maxSteps = options.maxSteps ?? Stop.defaultMaxSteps
    if (!(Number.isInteger(maxSteps) && maxSteps > 0)) {
      return Effect.fail(
        SvirError.make("Config", `maxSteps must be a positive whole number, not ${maxSteps}`),
      )
    }
    const retries = options.retry?.times ?? 3
    if (!(Number.isInteger(retries) && retries >= 0)) {
      return Effect.fail(
        SvirError.make("Config", `retry.times must be a whole number of 0 or more, not ${retries}`),
      )
    }
    const base = Duration.fromInput(options.retry?.base ?? "1 second")
    const max = Duration.fromInput(options.retry?.max ?? "5 minutes")
    if (Option.isNone(base) || Option.isNone(max) || !Duration.isFinite(max.value)) {
      return Effect.fail(
        SvirError.make("Config", "retry.base and retry.max must be finite durations"),
      )
    }
    const bounds = Toolboxes.bounds(options)
    if (bounds._tag === "Failure") return Effect.fail(bounds.failure)
    const conditions = options.stopWhen === undefined ? [] : [options.stopWhen].flat()
    return Effect.succeed({
      bounds: { maxSteps, conditions, concurrency: bounds.success.concurrency },
      timeout: bounds.success.timeout,
      needsApproval: options.needsApproval ?? (() => false),
      retries,
      baseMillis: Duration.toMillis(base.value),
      maxMillis: Duration.toMillis(max.value),
    })
  })

/** The loop's body: steps over the state, each seam an activity, until the state says stop. */
const runBody = <E, RSend, RTools, RAsk>(
  handlers: Handlers<E, RSend, RTools, RAsk>,
  settings: Settings,
  payload: typeof Payload.Type,
  executionId: string,
): Effect.Effect<LoopState.Encoded, ModelFailure, RSend | RTools | RAsk | Durable> => {
  const loop = Effect.gen(function* () {
    let state = yield* Effect.orDie(LoopState.decode(payload.state))
    while (state.stop === undefined) {
      const index = state.steps.length
      state = yield* LoopState.step<ModelFailure, RSend | RTools | RAsk | Durable>(
        state,
        {
          complete: (request) => modelCall(handlers.send, settings, request, index, 1),
          answer: (call, position) =>
            answerCall(handlers, settings, executionId, index, position, call),
        },
        settings.bounds,
      )
    }
    return state
  })
  const parent =
    payload.traceparent === undefined
      ? Option.none<Tracer.ExternalSpan>()
      : HttpTraceContext.fromHeaders(Headers.fromInput({ traceparent: payload.traceparent }))
  const traced = Loop.traced(loop)
  const joined = Option.isSome(parent) ? Effect.withParentSpan(traced, parent.value) : traced
  return Effect.map(joined, LoopState.encode)
}

/**
 * One model call, an activity named by its step and attempt (D2). A failure that may pass is
 * sent again after a durable wait (D5): the server's `Retry-After`, or the base doubled for each
 * attempt, capped. What the activity records is the completion as JSON, with the call ids the
 * decoder made, so that a replay reads the same answer.
 */
const modelCall = <E, R>(
  send: Loop.Send<E, R>,
  settings: Settings,
  request: Request.Request,
  index: number,
  attempt: number,
): Effect.Effect<Completion.Completion, ModelFailure, R | Durable> =>
  Activity.make({
    name: `model ${index}.${attempt}`,
    success: Schema.Unknown,
    error: ModelFailure,
    execute: completeOnce(send, request).pipe(
      Effect.map(LoopState.toJson),
      Effect.mapError((error) => failureOf(error, attempt)),
    ),
  }).pipe(
    Effect.map((json) => LoopState.fromJson(json) as Completion.Completion),
    Effect.catch((failure) =>
      failure.retryable && attempt <= settings.retries
        ? DurableClock.sleep({
            name: `wait ${index}.${attempt}`,
            duration: Duration.millis(waitMillis(settings, failure, attempt)),
          }).pipe(Effect.andThen(modelCall(send, settings, request, index, attempt + 1)))
        : Effect.fail(failure),
    ),
  )

/** The wait before sending again: what the server asked for, or the doubled base; capped. */
const waitMillis = (settings: Settings, failure: ModelFailure, attempt: number): number =>
  Math.min(failure.retryAfterMillis ?? settings.baseMillis * 2 ** (attempt - 1), settings.maxMillis)

/** One answer: streamed and read to its end, or whole. */
const completeOnce = <E, R>(
  send: Loop.Send<E, R>,
  request: Request.Request,
): Effect.Effect<Completion.Completion, E | SvirError.SvirError, R> =>
  Effect.suspend(() => {
    const answer = send(request)
    return Stream.isStream(answer) ? StreamCompletion.run(answer) : answer
  })

/** An error of the model call as it is stored: its kind and words, never its cause. */
const failureOf = (error: unknown, attempts: number): ModelFailure =>
  SvirError.isSvirError(error)
    ? new ModelFailure({
        kind: error.reason._tag,
        message: error.message,
        status: error.status,
        retryable: error.isRetryable,
        retryAfterMillis: error.retryAfterMillis,
        attempts,
      })
    : new ModelFailure({
        kind: "Other",
        message: error instanceof Error ? error.message : String(error),
        retryable: false,
        attempts,
      })

/**
 * One tool call: first the person, when the call needs one, then the toolbox's answer, an
 * activity named by the step and the call's place, run with the idempotency key of the run, the
 * step and the call's id (D4). With `onInput`, a question the tool asks ends the activity and
 * waits durably for its answers, and the call runs again with them as the next round (D12).
 */
const answerCall = <E, RSend, RTools, RAsk>(
  handlers: Handlers<E, RSend, RTools, RAsk>,
  settings: Settings,
  executionId: string,
  index: number,
  position: number,
  call: ToolCall.ToolCall,
): Effect.Effect<LoopState.Answer, never, RTools | RAsk | Durable> =>
  Effect.gen(function* () {
    if (settings.needsApproval(call)) {
      const decision = yield* approval(handlers, index, position, call)
      if (decision._tag === "Deny") return { call, result: Guard.denied(call, decision.reason) }
    }
    const answered = Toolboxes.callSafely(handlers.toolbox, call, { timeout: settings.timeout })
    const onInput = handlers.onInput
    const key = `${executionId}/${index}/${call.id}`
    if (onInput === undefined) {
      const json = yield* toolActivity(`call ${index}.${position}`, answered, key, LoopState.toJson)
      return { call, result: LoopState.fromJson(json) as ToolResult.ToolResult }
    }
    const place = `${index}.${position}`
    const round = (
      at: number,
      answers: ToolInput.Answers | undefined,
    ): Effect.Effect<ToolResult.ToolResult, never, RTools | RAsk | Durable> =>
      Effect.gen(function* () {
        const name = at === 0 ? `call ${place}` : `call ${place}.${at}`
        const json = yield* toolActivity(
          name,
          ToolInput.taking(answered, answers),
          key,
          outcomeJson,
        )
        if (!isAsked(json)) return LoopState.fromJson(json) as ToolResult.ToolResult
        if (at === maxInputRounds) {
          return ToolResult.error(
            call.id,
            `tool ${call.name} failed: it still asked for input after ${maxInputRounds} rounds of answers, and the call was given up`,
            "server_refused",
          )
        }
        const { requests, state } = json.asked
        const digest = yield* argumentsDigest(call)
        const deferred = inputDeferred(`${inputPrefix}${place}.${at} ${digest}`)
        const token = yield* DurableDeferred.token(deferred)
        yield* Activity.make({
          name: `ask input ${place}.${at}`,
          execute: onInput({ token, call, step: index, round: at, requests }),
        })
        const { responses } = yield* DurableDeferred.await(deferred)
        return yield* round(at + 1, state === undefined ? { responses } : { responses, state })
      })
    return { call, result: yield* round(0, undefined) }
  })

/**
 * How many questions of one call are answered before the call is given up: the MCP SDK's own
 * bound, which the bridge keeps for the rounds it answers itself.
 */
const maxInputRounds = 10

/** A tool call as an activity: `call` run with the idempotency key, recorded as `toJson` gives. */
const toolActivity = <A, R>(
  name: string,
  call: Effect.Effect<A, never, R>,
  key: string,
  toJson: (value: A) => unknown,
): Effect.Effect<unknown, never, R | Durable> =>
  Activity.make({
    name,
    success: Schema.Unknown,
    execute: call.pipe(IdempotencyKey.within(key), Effect.map(toJson)),
  })

/**
 * A round of a call as it is recorded: the result as JSON, as without `onInput`, or the question
 * under `asked` (a result never has that field).
 */
const outcomeJson = (outcome: ToolInput.Outcome): unknown =>
  outcome._tag === "Answered" ? LoopState.toJson(outcome.result) : { asked: outcome.question }

const isAsked = (json: unknown): json is { readonly asked: ToolInput.Question } =>
  typeof json === "object" && json !== null && "asked" in json

/**
 * Waits for a person's decision on a call (D3): a durable deferred whose name carries the digest
 * of the call, so that only a token for this call with these arguments resumes it. `onApproval`
 * is told once, as an activity.
 */
const approval = <E, RSend, RTools, RAsk>(
  handlers: Handlers<E, RSend, RTools, RAsk>,
  index: number,
  position: number,
  call: ToolCall.ToolCall,
) =>
  Effect.gen(function* () {
    const digest = yield* argumentsDigest(call)
    const deferred = approvalDeferred(`${approvalPrefix}${index}.${position} ${digest}`)
    const token = yield* DurableDeferred.token(deferred)
    const ask = handlers.onApproval
    if (ask !== undefined) {
      yield* Activity.make({
        name: `ask ${index}.${position}`,
        execute: ask({ token, call, step: index }),
      })
    }
    return yield* DurableDeferred.await(deferred)
  })

/** What `Loop.run` gives, read from a stopped state. */
const loopResult = (state: LoopState.LoopState): Loop.Result => {
  const completion = state.steps.at(-1)?.completion
  return {
    text: completion?.text ?? "",
    completion,
    steps: state.steps,
    usage: state.usage,
    stop: state.stop ?? { _tag: "Answered" },
    request: state.request,
  }
}
