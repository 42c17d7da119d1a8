import {
  type InputRequiredResult,
  type InputResponse,
  isInputRequiredResult,
  isSpecType,
  type Progress,
  specTypeSchemas,
  withInputRequired,
} from "@modelcontextprotocol/client"
import { IdempotencyKey, Toolbox, type ToolCall, ToolInput, type ToolResult } from "@svir/core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpTraceContext from "effect/http/HttpTraceContext"
import type * as Tracer from "effect/Tracer"
import type * as Content from "../Content.js"
import { callMeta } from "./callMeta.js"
import { answeredResult, failedResult } from "./callResult.js"
import type { CallSettings } from "./callSettings.js"
import { CallSignal } from "./callSignal.js"
import { callFailureOf, describe, describeCallFailure } from "./failure.js"
import { type InputAnswerer, type InputNotGiven, maxInputRounds } from "./inputRequests.js"
import { inputAnswererOf } from "./mcpClient.js"
import type { OutputCheck } from "./outputCheck.js"
import { type ParamHeader, paramHeaders } from "./paramHeaders.js"
import type { SchemaCheck } from "./schemaValidator.js"
import { sendTask } from "./sendTask.js"
import type { Connection } from "./session.js"
import { toolsCall } from "./telemetry.js"

// Servers of the 2024-10-07 revision answer with `toolResult` instead of content blocks.
const asCallResult = (result: { readonly [key: string]: unknown }): Content.CallResult =>
  Array.isArray(result.content)
    ? (result as Content.CallResult)
    : { structuredContent: result.toolResult }

/**
 * Sends `tools/call` for `call` on `connection`, under the server's own name for the tool, and
 * gives its result. Never fails: a timeout, an error answer, structured content that `check` (the
 * tool's output schema) refuses, or a connection lost or closed while waiting gives a failed
 * result. A call that did not reach the server is resent once, when `mayResend` (D12, D13).
 */
export type CallSender = (
  connection: Connection,
  call: ToolCall.ToolCall,
  serverName: string,
  args: Record<string, unknown>,
  tool: SentTool,
  mayResend: boolean,
) => Effect.Effect<ToolResult.ToolResult>

/**
 * What the listing says of the tool called: the check of its output, whether it is a task, and
 * the arguments its calls mirror into headers (D51).
 */
interface SentTool {
  readonly check: OutputCheck | undefined
  readonly task: boolean
  readonly headers: ReadonlyArray<ParamHeader> | undefined
}

/** The tool as sent: its output check compiled (D50), and the arguments it mirrors into headers. */
interface CompiledTool {
  readonly check: SchemaCheck | undefined
  readonly headers: ReadonlyArray<ParamHeader> | undefined
}

/**
 * Sends calls through a connection's Client, waiting on its state for a loss. One callback per
 * call, rather than a race of two fibers around `tryPromise` (DECISIONS.md D8): the answer and the
 * loss each settle it, and whichever comes second is dropped. A call settled by a loss, or
 * interrupted, is aborted, so the SDK forgets it and tells the server it was cancelled.
 */
export const makeCallSender =
  (settings: CallSettings): CallSender =>
  (connection, call, serverName, args, tool, mayResend) =>
    toolsCall(connection, serverName, (span) =>
      Effect.flatMap(compileCheck(settings, call, tool.check), (compiled) => {
        if ("failed" in compiled) return Effect.succeed(compiled.failed)
        const { left, check } = compiled
        return tool.task
          ? sendTask(left, connection, call, serverName, args, check)
          : sendOne(
              left,
              span,
              connection,
              call,
              serverName,
              args,
              { check, headers: tool.headers },
              mayResend,
            )
      }),
    )

/**
 * The tool's output check, compiled at its first call (D50), before the request is sent: a
 * schema that cannot be compiled fails the call, which is not sent, since its answer could not be
 * checked. Compiling is part of the call, so its time is taken from the call's time limits, read
 * on the monotonic clock (as the listing's, D40); a compile that used them up fails the call.
 */
const compileCheck = (
  settings: CallSettings,
  call: ToolCall.ToolCall,
  output: OutputCheck | undefined,
): Effect.Effect<
  | { readonly left: CallSettings; readonly check: SchemaCheck | undefined }
  | { readonly failed: ToolResult.ToolResult }
> =>
  output === undefined
    ? Effect.succeed({ left: settings, check: undefined })
    : Clock.clockWith((clock) =>
        Effect.sync(() => {
          const millis = () => Number(clock.monotonicTimeNanosUnsafe() / 1_000_000n)
          const start = millis()
          let check: SchemaCheck
          try {
            check = output.compiled()
          } catch (error) {
            const text = `tool ${call.name} cannot be called: its output schema cannot be compiled: ${describe(error)}`
            return { failed: failedResult(settings, call, text, "handler_failed") }
          }
          const spent = millis() - start
          if (spent >= settings.timeoutMillis || spent >= settings.maxTotalMillis) {
            const text = `tool ${call.name} did not answer in time: compiling its output schema took ${spent} ms of the call's ${Math.min(settings.timeoutMillis, settings.maxTotalMillis)} ms`
            return { failed: failedResult(settings, call, text, "timed_out") }
          }
          const left = {
            ...settings,
            timeoutMillis: settings.timeoutMillis - spent,
            maxTotalMillis: settings.maxTotalMillis - spent,
          }
          return { left, check }
        }),
      )

/** SEP-414: the span's W3C trace context, for `_meta` of the request, when it is to be sent. */
const traceparentOf = (
  settings: CallSettings,
  span: Tracer.Span | undefined,
): string | undefined =>
  settings.propagateTraceContext && span !== undefined
    ? HttpTraceContext.toHeaders(span).traceparent
    : undefined

/** What a retried `tools/call` adds to its params (2026-07-28): the answers, the server's state. */
interface Answers {
  readonly inputResponses?: Record<string, InputResponse>
  readonly requestState?: string
}

/**
 * The wait before retrying a call whose server asked for nothing but sent its state back (it
 * sheds load): the SDK's own pacing of such a round.
 */
const stateOnlyPacing = Duration.millis(250)

/** A call's result, or the server's `input_required` (2026-07-28), checked once per call. */
const resultOrInputRequired = withInputRequired(specTypeSchemas.CallToolResult)

/**
 * Sends the call, and on a 2026-07-28 connection answers each `input_required` result of the
 * server and sends the call again with the answers, up to {@link maxInputRounds} rounds (D51). A
 * Client the caller brought answers through its own handlers, inside the SDK. A caller that takes
 * the questions itself (core's `ToolInput.taking`, D55) is handed each round that asks something,
 * which ends the call, and its answers go with the first request of the next run of the call.
 */
const sendOne = (
  settings: CallSettings,
  span: Tracer.Span | undefined,
  connection: Connection,
  call: ToolCall.ToolCall,
  serverName: string,
  args: Record<string, unknown>,
  tool: CompiledTool,
  mayResend: boolean,
): Effect.Effect<ToolResult.ToolResult> =>
  Effect.flatMap(Effect.service(ToolInput.Current), (taker) => {
    const answerRound = roundAnswerer(taker, inputAnswererOf(connection.client))
    const send = (answers: Answers) =>
      sendLeg(
        settings,
        span,
        connection,
        call,
        serverName,
        args,
        tool,
        mayResend,
        answers,
        answerRound !== undefined,
      )
    if (answerRound === undefined) return Effect.map(send({}), settledOf(settings, call))
    const rounds = (
      round: number,
      outcome: ToolResult.ToolResult | InputRequiredResult,
    ): Effect.Effect<ToolResult.ToolResult> => {
      if (!isInputRequiredResult(outcome)) return Effect.succeed(outcome)
      if (round === maxInputRounds) return Effect.succeed(settledOf(settings, call)(outcome))
      const requests = outcome.inputRequests ?? {}
      const state = outcome.requestState === undefined ? {} : { requestState: outcome.requestState }
      const answered =
        Object.keys(requests).length === 0
          ? Effect.as(Effect.sleep(stateOnlyPacing), state)
          : Effect.map(answerRound(requests, outcome.requestState), (inputResponses) => ({
              inputResponses,
              ...state,
            }))
      return Effect.matchEffect(answered, {
        onFailure: (refused) =>
          Effect.succeed(
            failedResult(
              settings,
              call,
              `tool ${call.name} failed: ${refused.why}`,
              refused.failure,
            ),
          ),
        onSuccess: (answers) => Effect.flatMap(send(answers), (next) => rounds(round + 1, next)),
      })
    }
    const first = takenAnswers(taker)
    if (first === "unfit") {
      const text = `tool ${call.name} failed: the answers given to its server's questions are not answers MCP defines (a form's result, roots, a sampled message)`
      return Effect.succeed(failedResult(settings, call, text, "invalid_arguments"))
    }
    return Effect.flatMap(send(first), (outcome) => rounds(0, outcome))
  })

/**
 * Who answers a round's requests: the caller that takes the questions (D55), whose `ask` ends
 * the call; else the answerer of a Client the bridge made (D51); else nobody here, as a Client
 * the caller brought answers inside the SDK.
 */
const roundAnswerer = (
  taker: ToolInput.Taker | undefined,
  answerer: InputAnswerer | undefined,
):
  | ((
      requests: Readonly<Record<string, unknown>>,
      state: string | undefined,
    ) => Effect.Effect<Record<string, InputResponse>, InputNotGiven>)
  | undefined => {
  if (taker !== undefined) {
    return (requests, state) => taker.ask(state === undefined ? { requests } : { requests, state })
  }
  return answerer
}

/**
 * What the first request of a call carries: the answers the caller took the last round's
 * questions for, with the server's state as it came (D55), if any; `unfit` when a response is
 * none of the three kinds MCP defines.
 */
const takenAnswers = (taker: ToolInput.Taker | undefined): Answers | "unfit" => {
  const answers = taker?.answers
  if (answers === undefined) return {}
  const inputResponses: Record<string, InputResponse> = {}
  for (const [key, response] of Object.entries(answers.responses)) {
    if (!isInputResponse(response)) return "unfit"
    inputResponses[key] = response
  }
  return answers.state === undefined
    ? { inputResponses }
    : { inputResponses, requestState: answers.state }
}

const isInputResponse = (response: unknown): response is InputResponse =>
  isSpecType.ElicitResult(response) ||
  isSpecType.ListRootsResult(response) ||
  isSpecType.CreateMessageResult(response)

/**
 * The result of a call whose server still asks for input when no more rounds are answered: the
 * bridge's words, which a model can read; a Client the caller brought has the SDK's own bound.
 */
const settledOf =
  (settings: CallSettings, call: ToolCall.ToolCall) =>
  (outcome: ToolResult.ToolResult | InputRequiredResult): ToolResult.ToolResult =>
    isInputRequiredResult(outcome)
      ? failedResult(
          settings,
          call,
          `tool ${call.name} failed: its server still asked for input after ${maxInputRounds} rounds of answers, and the call was given up`,
          "server_refused",
        )
      : outcome

/** One `tools/call` request, the first or one that carries answers; its answer, or what it asks. */
const sendLeg = (
  settings: CallSettings,
  span: Tracer.Span | undefined,
  connection: Connection,
  call: ToolCall.ToolCall,
  serverName: string,
  args: Record<string, unknown>,
  { check, headers }: CompiledTool,
  mayResend: boolean,
  answers: Answers,
  answersInput: boolean,
): Effect.Effect<ToolResult.ToolResult | InputRequiredResult> =>
  Effect.flatMap(Effect.context<never>(), (context) =>
    Effect.callback<ToolResult.ToolResult | InputRequiredResult>((resume) => {
      // Each progress notification gives the call its whole time limit again: the caller's, as the SDK's own (D39).
      const progressed = () => Effect.runSyncWith(context)(Toolbox.progressed)
      const pending = new PendingCall(call, connection, settings, resume, mayResend, progressed)
      // The same key on every request of the call: each round of answers, a resend (D54).
      const meta = callMeta(
        traceparentOf(settings, span),
        Context.get(context, IdempotencyKey.Current),
      )
      // `request`, not `callTool`: the bridge checks structured content itself (D42).
      connection.client
        .request(
          {
            method: "tools/call",
            params: { name: serverName, arguments: args, ...meta, ...answers },
          },
          resultOrInputRequired,
          {
            signal: pending.signal.asAbortSignal,
            timeout: settings.timeoutMillis,
            resetTimeoutOnProgress: true,
            maxTotalTimeout: settings.maxTotalMillis,
            // Given always: the SDK asks for progress, which extends the timeout, only with a handler.
            onprogress: (progress) => pending.progress(progress),
            // The bridge answers the server's questions in the call's fiber (D51), or hands them on (D55).
            allowInputRequired: answersInput,
            ...(headers === undefined ? {} : { headers: paramHeaders(headers, args) }),
          },
        )
        .then(
          (result) => pending.answered(result, check),
          (error: unknown) => pending.failed(error),
        )
      return Effect.sync(() => pending.interrupt())
    }),
  )

/**
 * One call waiting for its answer. Its methods take what comes (D8): the answer, a rejection, a
 * loss of the connection, an interruption. The first settles the call; what comes after is
 * dropped.
 */
class PendingCall {
  readonly signal = new CallSignal()
  private settled = false
  private readonly stopWaiting: () => void

  constructor(
    private readonly call: ToolCall.ToolCall,
    private readonly connection: Connection,
    private readonly settings: CallSettings,
    private readonly resume: (
      effect: Effect.Effect<ToolResult.ToolResult | InputRequiredResult>,
    ) => void,
    private readonly mayResend: boolean,
    private readonly progressed: () => void,
  ) {
    // The loss awaited is that of the connection as it is when the call is sent.
    this.stopWaiting = connection.state.whenLost((reason) => this.lost(reason))
  }

  progress(progress: Progress): void {
    if (!this.settled) this.progressed()
    // A listener that throws must not break the SDK's handling of the notification.
    try {
      this.settings.onProgress?.(this.call, progress)
    } catch {}
  }

  answered(
    result: { readonly [key: string]: unknown } | InputRequiredResult,
    check: SchemaCheck | undefined,
  ): void {
    if (this.settled) return
    if (isInputRequiredResult(result)) {
      this.end()
      this.resume(Effect.succeed(result))
      return
    }
    let answer: ToolResult.ToolResult
    try {
      answer = answeredResult(this.settings, this.call, asCallResult(result), check)
    } catch (defect) {
      this.end()
      this.resume(Effect.die(defect))
      return
    }
    this.settle(answer)
  }

  failed(error: unknown): void {
    if (this.settled) return
    const { call, connection, settings } = this
    const { resend } = settings
    const why = connection.unreached(error)
    if (why === undefined) {
      this.settle(
        this.failure(
          describeCallFailure(call.name, error, connection.state.closeReason()),
          callFailureOf(error),
        ),
      )
    } else if (resend === undefined) {
      this.settle(this.failure(`tool ${call.name} failed: ${why}`, "server_refused"))
    } else if (this.mayResend) {
      this.end()
      this.resume(resend(call, connection, why))
    } else {
      this.settle(
        this.failure(`tool ${call.name} failed: ${why}, on a new connection too`, "server_refused"),
      )
    }
  }

  interrupt(): void {
    if (this.settled) return
    this.end()
    this.signal.abort()
  }

  private lost(reason: string): void {
    if (this.settled) return
    this.settle(this.failure(`tool ${this.call.name} got no answer: ${reason}`, "server_refused"))
    this.signal.abort()
  }

  private settle(result: ToolResult.ToolResult): void {
    this.end()
    this.resume(Effect.succeed(result))
  }

  private end(): void {
    this.settled = true
    this.stopWaiting()
  }

  private failure(text: string, failure: ToolResult.Failure): ToolResult.ToolResult {
    return failedResult(this.settings, this.call, text, failure)
  }
}
