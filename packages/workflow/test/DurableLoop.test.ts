import { describe, it } from "@effect/vitest"
import {
  Completion,
  IdempotencyKey,
  Request,
  SvirError,
  Tool,
  Toolbox,
  ToolCall,
  ToolInput,
  ToolResult,
} from "@svir/core"
import { Approval, Loop, Stop } from "@svir/loop"
import { Tools } from "@svir/registry"
import { Effect, Exit, Fiber, Layer, Option, Queue, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as DurableDeferred from "effect/workflow/DurableDeferred"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import { assert, expect } from "vitest"
import { otel } from "../../../test/otel.js"
import { DurableLoop } from "../src/index.js"

/** The model's answers, in order; each call of `send` takes the next and counts it. */
const scripted = (answers: ReadonlyArray<Completion.Completion | SvirError.SvirError>) => {
  const sent: Array<Request.Request> = []
  const send = (request: Request.Request) =>
    Effect.suspend(() => {
      const answer = answers[sent.length]
      sent.push(request)
      if (answer === undefined) return Effect.die(new Error("the script has no more answers"))
      return SvirError.isSvirError(answer) ? Effect.fail(answer) : Effect.succeed(answer)
    })
  return { sent, send }
}

/** Waits, without time passing, until `holds` does. */
const until = (holds: () => boolean): Effect.Effect<void> =>
  Effect.suspend(() => (holds() ? Effect.void : Effect.andThen(Effect.yieldNow, until(holds))))

const calls = (...made: ReadonlyArray<ToolCall.ToolCall>) =>
  Completion.make({ calls: made, finish: "tool_calls", usage: { input: 10, output: 2, total: 12 } })

const text = (words: string) =>
  Completion.make({ text: words, finish: "stop", usage: { input: 20, output: 3, total: 23 } })

/** A registry whose handlers count their runs. */
const counted = () => {
  const runs: Array<string> = []
  const tools = Tools.empty.pipe(
    Tools.add(
      "lookup",
      "Find an order by its number.",
      Schema.Struct({ id: Schema.Int }),
      ({ id }) => {
        runs.push(`lookup ${id}`)
        return `order ${id} is shipped`
      },
    ),
    Tools.addTool(Tool.make("refund", "Refund an order."), (_args, call) => {
      runs.push(`refund ${call.arguments}`)
      return "refunded"
    }),
  )
  return { runs, tools }
}

const question = Request.make("scripted").pipe(Request.user("Where is order 42?"))

const script = [
  calls(ToolCall.make("call_1", "lookup", '{"id":42}')),
  calls(
    ToolCall.make("call_2", "lookup", '{"id":43}'),
    ToolCall.make("call_3", "lookup", '{"id":44}'),
  ),
  text("All shipped."),
]

/** What a run left behind, without the functions of its request. */
const shown = (result: Loop.Result) =>
  JSON.stringify({ ...result, request: result.request.messages, steps: result.steps.length })

describe("DurableLoop on the in-memory engine", () => {
  it.effect("finishes with the conversation Loop.run gives for the same answers", () =>
    Effect.gen(function* () {
      const durable = scripted(script)
      const { runs, tools } = counted()
      const agent = DurableLoop.make("same-as-run", { maxSteps: 8 })
      const result = yield* agent
        .run("run-1", question)
        .pipe(Effect.provide(agent.layer({ send: durable.send, toolbox: tools })))

      const plain = scripted(script)
      const expected = yield* Loop.run({
        send: plain.send,
        toolbox: counted().tools,
        request: question,
      })
      expect(shown(result)).toBe(shown(expected))
      expect(result.stop).toEqual({ _tag: "Answered" })
      expect(result.usage).toEqual({ input: 40, output: 7, total: 47 })
      expect(runs).toEqual(["lookup 42", "lookup 43", "lookup 44"])
      expect(durable.sent.length).toBe(3)
    }).pipe(Effect.provide(WorkflowEngine.layerMemory)),
  )

  it.effect("stops at maxSteps and at a stop condition as Loop.run does", () =>
    Effect.gen(function* () {
      const { tools } = counted()
      const capped = DurableLoop.make("capped", { maxSteps: 1 })
      const first = yield* capped
        .run("capped-1", question)
        .pipe(Effect.provide(capped.layer({ send: scripted(script).send, toolbox: tools })))
      expect(first.stop).toEqual({ _tag: "MaxSteps", maxSteps: 1 })

      const budget = DurableLoop.make("budget", { stopWhen: Stop.tokenBudget(20) })
      const second = yield* budget
        .run("budget-1", question)
        .pipe(Effect.provide(budget.layer({ send: scripted(script).send, toolbox: tools })))
      expect(second.stop).toEqual({ _tag: "Condition", index: 0 })
      expect(second.steps.length).toBe(2)
    }).pipe(Effect.provide(WorkflowEngine.layerMemory)),
  )

  it.effect("refuses bounds that are not valid when the runner registers it", () =>
    Effect.gen(function* () {
      const agent = DurableLoop.make("bad-bounds", { maxSteps: 0 })
      const exit = yield* Effect.exit(
        Layer.build(agent.layer({ send: scripted([]).send, toolbox: counted().tools })),
      )
      assert(Exit.isFailure(exit))
      expect(String(exit.cause)).toContain("maxSteps must be a positive whole number")
    }).pipe(Effect.scoped, Effect.provide(WorkflowEngine.layerMemory)),
  )

  it.effect("waits durably before sending again a call that was rate limited", () =>
    Effect.gen(function* () {
      const limited = SvirError.make("RateLimited", "slow down", { retryAfterMillis: 30_000 })
      const model = scripted([limited, limited, text("Done.")])
      const agent = DurableLoop.make("limited", { retry: { times: 2 } })
      const fiber = yield* agent
        .run("limited-1", question)
        .pipe(
          Effect.provide(agent.layer({ send: model.send, toolbox: counted().tools })),
          Effect.forkChild,
        )
      yield* until(() => model.sent.length === 1)
      yield* TestClock.adjust("29 seconds")
      expect(model.sent.length).toBe(1)
      yield* TestClock.adjust("1 second")
      yield* until(() => model.sent.length === 2)
      yield* TestClock.adjust("30 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result.text).toBe("Done.")
      expect(model.sent.length).toBe(3)
    }).pipe(Effect.provide(WorkflowEngine.layerMemory)),
  )

  it.effect(
    "fails with the stored kind once the retries are spent, and at once when retrying cannot help",
    () =>
      Effect.gen(function* () {
        const limited = SvirError.make("RateLimited", "slow down", { retryAfterMillis: 10 })
        const model = scripted([limited, limited])
        const agent = DurableLoop.make("spent", { retry: { times: 1 } })
        const fiber = yield* agent
          .run("spent-1", question)
          .pipe(
            Effect.provide(agent.layer({ send: model.send, toolbox: counted().tools })),
            Effect.flip,
            Effect.forkChild,
          )
        yield* until(() => model.sent.length === 1)
        yield* TestClock.adjust("1 second")
        const failure = yield* Fiber.join(fiber)
        expect(failure).toMatchObject({ kind: "RateLimited", retryable: true, attempts: 2 })

        const denied = scripted([SvirError.make("Authentication", "bad key", { status: 401 })])
        const other = DurableLoop.make("auth", { retry: { times: 5 } })
        const refused = yield* other
          .run("auth-1", question)
          .pipe(
            Effect.provide(other.layer({ send: denied.send, toolbox: counted().tools })),
            Effect.flip,
          )
        expect(refused).toMatchObject({ kind: "Authentication", status: 401, attempts: 1 })
        expect(denied.sent.length).toBe(1)
      }).pipe(Effect.provide(WorkflowEngine.layerMemory)),
  )
})

describe("DurableLoop approvals", () => {
  const refund = ToolCall.make("call_r", "refund", '{"order":42}')
  const approvalScript = [calls(refund), text("Refunded.")]

  const started = (name: string) =>
    Effect.gen(function* () {
      const model = scripted(approvalScript)
      const { runs, tools } = counted()
      const asked = yield* Queue.unbounded<DurableLoop.ApprovalRequest>()
      const agent = DurableLoop.make(name, { needsApproval: (call) => call.name === "refund" })
      yield* Layer.build(
        agent.layer({
          send: model.send,
          toolbox: tools,
          onApproval: (request) => Queue.offer(asked, request).pipe(Effect.asVoid),
        }),
      )
      const executionId = yield* agent.start(`${name}-1`, question)
      const request = yield* Queue.take(asked)
      return { agent, executionId, request, runs, model }
    })

  it.effect(
    "waits for a person, refuses a token given with other arguments, and runs the call once allowed",
    () =>
      Effect.gen(function* () {
        const { agent, executionId, request, runs, model } = yield* started("approve-allow")
        expect(request.call).toEqual(refund)
        expect(yield* agent.result(executionId)).toEqual(Option.none())

        const forged = ToolCall.make("call_r", "refund", '{"order":43}')
        const refused = yield* Effect.flip(
          DurableLoop.approve(request.token, forged, Approval.allow),
        )
        expect(refused._tag).toBe("ApprovalRefused")
        const junk = yield* Effect.flip(DurableLoop.approve("not a token", refund, Approval.allow))
        expect(junk._tag).toBe("ApprovalRefused")
        expect(runs).toEqual([])

        yield* DurableLoop.approve(request.token, refund, Approval.allow)
        const result = yield* agent.run("approve-allow-1", question)
        expect(result.text).toBe("Refunded.")
        expect(runs).toEqual(['refund {"order":42}'])
        // The run was replayed from its start after the wait: the model's first answer was read
        // from storage, not asked for again.
        expect(model.sent.length).toBe(2)
        expect(Option.map(yield* agent.result(executionId), (done) => done.text)).toEqual(
          Option.some("Refunded."),
        )
      }).pipe(Effect.scoped, Effect.provide(WorkflowEngine.layerMemory)),
  )

  it.effect("answers a denied call with the reason, without running it", () =>
    Effect.gen(function* () {
      const { agent, request, runs } = yield* started("approve-deny")
      yield* DurableLoop.approve(request.token, refund, Approval.deny("refunds need a manager"))
      const result = yield* agent.run("approve-deny-1", question)
      expect(runs).toEqual([])
      const answered = result.steps[0]?.results[0]
      expect(answered?.isError).toBe(true)
      expect(answered?.content).toBe("permission denied: refunds need a manager")
    }).pipe(Effect.scoped, Effect.provide(WorkflowEngine.layerMemory)),
  )
})

describe("DurableLoop questions of a tool (D12)", () => {
  const cancel = ToolCall.make("call_c", "cancel", '{"order":7}')
  const questionScript = [calls(cancel), text("Cancelled.")]

  /**
   * A tool that asks for a confirmation, with a state of its own, until it has an answer (as a
   * 2026-07-28 MCP server does through the bridge); `rounds` answers it wants before it is done.
   * Every run is counted, with the answers and state it got.
   */
  const asking = (rounds = 1) => {
    const runs: Array<ToolInput.Answers | undefined> = []
    const toolbox = Toolbox.make({
      tools: [Tool.make("cancel", "Cancel an order.")],
      call: (call) =>
        Effect.gen(function* () {
          const taker = yield* Effect.service(ToolInput.Current)
          runs.push(taker?.answers)
          if (taker === undefined) return ToolResult.make(call.id, "asked nobody")
          const round = runs.filter((answers) => answers !== undefined).length
          if (round < rounds) {
            return yield* taker.ask({
              requests: { confirm: { message: `Cancel order 7? (${round})` } },
              state: `state-${round}`,
            })
          }
          return ToolResult.make(call.id, `cancelled: ${JSON.stringify(taker.answers)}`)
        }),
    })
    return { runs, toolbox }
  }

  const started = (name: string, rounds = 1) =>
    Effect.gen(function* () {
      const model = scripted(questionScript)
      const { runs, toolbox } = asking(rounds)
      const asked = yield* Queue.unbounded<DurableLoop.InputRequest>()
      const agent = DurableLoop.make(name)
      yield* Layer.build(
        agent.layer({
          send: model.send,
          toolbox,
          onInput: (request) => Queue.offer(asked, request).pipe(Effect.asVoid),
        }),
      )
      const executionId = yield* agent.start(`${name}-1`, question)
      return { agent, executionId, asked, runs, model }
    })

  const confirmed = { confirm: { action: "accept", content: { confirm: true } } }

  it.effect(
    "waits for the answers, refuses a token for other arguments, and runs the call again with them",
    () =>
      Effect.gen(function* () {
        const { agent, executionId, asked, runs, model } = yield* started("input-answer")
        const request = yield* Queue.take(asked)
        expect(request).toMatchObject({
          call: cancel,
          step: 0,
          round: 0,
          requests: { confirm: { message: "Cancel order 7? (0)" } },
        })
        expect(yield* agent.result(executionId)).toEqual(Option.none())

        const forged = ToolCall.make("call_c", "cancel", '{"order":8}')
        const refused = yield* Effect.flip(DurableLoop.answer(request.token, forged, confirmed))
        expect(refused._tag).toBe("AnswerRefused")
        // Neither is an approval's token an answer's, nor the other way round.
        const parsed = DurableDeferred.TokenParsed.fromString(request.token)
        const approvalToken = new DurableDeferred.TokenParsed({
          ...parsed,
          deferredName: parsed.deferredName.replace(/^input /, "approval "),
        }).asToken
        expect(
          (yield* Effect.flip(DurableLoop.answer(approvalToken, cancel, confirmed)))._tag,
        ).toBe("AnswerRefused")
        expect(
          (yield* Effect.flip(DurableLoop.approve(request.token, cancel, Approval.allow)))._tag,
        ).toBe("ApprovalRefused")
        expect(runs.length).toBe(1)

        yield* DurableLoop.answer(request.token, cancel, confirmed)
        const result = yield* agent.run("input-answer-1", question)
        expect(result.text).toBe("Cancelled.")
        // Asked once without answers, then run again with the answers and the tool's state.
        expect(runs).toEqual([undefined, { responses: confirmed, state: "state-0" }])
        expect(result.steps[0]?.results).toEqual([
          ToolResult.make(
            "call_c",
            `cancelled: ${JSON.stringify({ responses: confirmed, state: "state-0" })}`,
          ),
        ])
        expect(model.sent.length).toBe(2)
      }).pipe(Effect.scoped, Effect.provide(WorkflowEngine.layerMemory)),
  )

  it.effect("asks each round of a tool that asks again, each with a token of its own", () =>
    Effect.gen(function* () {
      const { agent, asked, runs } = yield* started("input-rounds", 3)
      const tokens: Array<string> = []
      for (const round of [0, 1, 2]) {
        const request = yield* Queue.take(asked)
        expect([request.round, request.requests]).toEqual([
          round,
          { confirm: { message: `Cancel order 7? (${round})` } },
        ])
        tokens.push(request.token)
        yield* DurableLoop.answer(request.token, cancel, { confirm: { action: "accept", round } })
      }
      const result = yield* agent.run("input-rounds-1", question)
      expect(result.text).toBe("Cancelled.")
      expect(new Set(tokens).size).toBe(3)
      expect(runs.map((answers) => answers?.state)).toEqual([
        undefined,
        "state-0",
        "state-1",
        "state-2",
      ])
    }).pipe(Effect.scoped, Effect.provide(WorkflowEngine.layerMemory)),
  )

  it.effect("gives up a call whose tool still asks after ten rounds of answers", () =>
    Effect.gen(function* () {
      const { agent, asked, runs } = yield* started("input-endless", 100)
      for (let round = 0; round < 10; round++) {
        const request = yield* Queue.take(asked)
        yield* DurableLoop.answer(request.token, cancel, confirmed)
      }
      const result = yield* agent.run("input-endless-1", question)
      const [given] = result.steps[0]?.results ?? []
      expect([given?.isError, given?.failure, given?.content]).toEqual([
        true,
        "server_refused",
        "tool cancel failed: it still asked for input after 10 rounds of answers, and the call was given up",
      ])
      expect(runs.length).toBe(11)
    }).pipe(Effect.scoped, Effect.provide(WorkflowEngine.layerMemory)),
  )

  it.effect("without onInput, the tool answers its questions itself, inside the call", () =>
    Effect.gen(function* () {
      const model = scripted(questionScript)
      const { runs, toolbox } = asking()
      const agent = DurableLoop.make("input-none")
      const result = yield* agent
        .run("input-none-1", question)
        .pipe(Effect.provide(agent.layer({ send: model.send, toolbox })))
      expect(result.steps[0]?.results[0]?.content).toBe("asked nobody")
      expect(runs).toEqual([undefined])
    }).pipe(Effect.provide(WorkflowEngine.layerMemory)),
  )
})

describe("DurableLoop replays", () => {
  it.effect("gives each tool call's handler the key of the run, the step and the call (D4)", () =>
    Effect.gen(function* () {
      const keys: Array<string | undefined> = []
      const tools = Tools.empty.pipe(
        Tools.add(
          "lookup",
          "Find an order by its number.",
          Schema.Struct({ id: Schema.Int }),
          ({ id }, _call, { idempotencyKey }) => {
            keys.push(idempotencyKey)
            return `order ${id} is shipped`
          },
        ),
      )
      const agent = DurableLoop.make("keyed", { maxSteps: 8 })
      yield* Layer.build(agent.layer({ send: scripted(script).send, toolbox: tools }))
      const executionId = yield* agent.start("keyed-1", question)
      const result = yield* agent.run("keyed-1", question)
      expect(result.text).toBe("All shipped.")
      expect(keys).toEqual([
        `${executionId}/0/call_1`,
        `${executionId}/1/call_2`,
        `${executionId}/1/call_3`,
      ])
      // Outside the run's calls no key is set.
      expect(yield* IdempotencyKey.get).toBeUndefined()
    }).pipe(Effect.scoped, Effect.provide(WorkflowEngine.layerMemory)),
  )

  it.effect("read the model's answer from storage, with the call ids it invented", () =>
    Effect.gen(function* () {
      let sent = 0
      // A decoder that invents ids gives other ids each time it is asked (D2).
      const send = () =>
        Effect.sync(() =>
          sent++ === 0
            ? calls(ToolCall.make(`call_${Math.random()}`, "refund", '{"order":7}'))
            : text("Refunded."),
        )
      const asked = yield* Queue.unbounded<DurableLoop.ApprovalRequest>()
      const agent = DurableLoop.make("invented-ids", { needsApproval: () => true })
      yield* Layer.build(
        agent.layer({
          send,
          toolbox: counted().tools,
          onApproval: (request) => Queue.offer(asked, request).pipe(Effect.asVoid),
        }),
      )
      yield* agent.start("invented-1", question)
      const request = yield* Queue.take(asked)
      yield* DurableLoop.approve(request.token, request.call, Approval.allow)
      const result = yield* agent.run("invented-1", question)
      const step = result.steps[0]!
      expect(step.calls[0]?.id).toBe(request.call.id)
      expect(step.results[0]?.callId).toBe(request.call.id)
      expect(sent).toBe(2)
    }).pipe(Effect.scoped, Effect.provide(WorkflowEngine.layerMemory)),
  )
})

describe("DurableLoop telemetry", () => {
  it.live(
    "puts every execution of a run, the first and the replayed, in the starter's trace",
    () => {
      const { exporter, layer } = otel()
      return Effect.gen(function* () {
        const asked = yield* Queue.unbounded<DurableLoop.ApprovalRequest>()
        const agent = DurableLoop.make("traced", {
          needsApproval: (call) => call.name === "refund",
        })
        yield* Layer.build(
          agent.layer({
            send: scripted([calls(ToolCall.make("call_r", "refund", "{}")), text("Refunded.")])
              .send,
            toolbox: counted().tools,
            onApproval: (request) => Queue.offer(asked, request).pipe(Effect.asVoid),
          }),
        )
        yield* agent.start("traced-1", question).pipe(Effect.withSpan("handle ticket"))
        const request = yield* Queue.take(asked)
        yield* DurableLoop.approve(request.token, request.call, Approval.allow)
        const result = yield* agent.run("traced-1", question)
        expect(result.text).toBe("Refunded.")

        const spans = exporter.getFinishedSpans()
        const root = spans.find((span) => span.name === "handle ticket")!
        const agents = spans.filter((span) => span.name === "invoke_agent")
        // Suspended at the approval, then run again from storage once it came.
        expect(agents.length).toBeGreaterThanOrEqual(2)
        for (const span of agents) {
          expect(span.spanContext().traceId).toBe(root.spanContext().traceId)
          expect(span.parentSpanContext?.spanId).toBe(root.spanContext().spanId)
        }
        const tool = spans.find((span) => span.name === "execute_tool refund")!
        expect(tool.spanContext().traceId).toBe(root.spanContext().traceId)
      }).pipe(Effect.scoped, Effect.provide(Layer.merge(WorkflowEngine.layerMemory, layer)))
    },
  )
})
