import { assert, describe, it } from "@effect/vitest"
import { Client } from "@svir/client"
import {
  Completion,
  Event,
  Request,
  SvirError,
  type Toolbox,
  ToolCall,
  ToolResult,
} from "@svir/core"
import { Answer } from "@svir/testing"
import { Context, Effect, Layer, Stream } from "effect"
import { Approval, Loop, Stop } from "../src/index.js"
import { echo, sent, serverAndClient, tools } from "./helpers.js"

const lookupAndNow = Answer.reply({
  text: "Let me look.",
  calls: [{ name: "lookup", arguments: { id: 42 } }, { name: "now" }],
})
const answered = Answer.text("Order 42 is shipped.")

/** A send of our own that answers every request with calls of `echo`, and counts them. */
const alwaysCalling = () => {
  const requests: Array<Request.Request> = []
  const send = (request: Request.Request) =>
    Effect.sync(() => {
      requests.push(request)
      return Completion.make({
        calls: [ToolCall.make(`call_${requests.length}`, "echo", '{"n": 1}')],
        finish: "tool_calls",
      })
    })
  return { requests, send }
}

/** The loop with `stopWhen`, on a lookup, then a call of `second`, then an answer. */
const lookupThen = (
  second: Answer.Call,
  stopWhen: Stop.Condition | ReadonlyArray<Stop.Condition>,
) =>
  Effect.gen(function* () {
    const { server, client, request } = yield* serverAndClient([
      Answer.toolCalls([{ name: "lookup", arguments: { id: 1 } }]),
      Answer.toolCalls([second]),
      answered,
    ])
    const result = yield* Loop.run({ send: client.stream, toolbox: tools, request, stopWhen })
    return { server, result }
  })

/** Tags in order, with runs of the same model piece counted once. */
const tagsOf = (events: ReadonlyArray<Loop.Event>) =>
  events
    .map((event) => event._tag)
    .filter((tag, i, tags) => !(tag.endsWith("Delta") && tag === tags[i - 1]))

describe("Loop.run", () => {
  it.live("answers the calls and sends the assistant turn and the results back, in order", () =>
    Effect.gen(function* () {
      const { server, client, request } = yield* serverAndClient([lookupAndNow, answered])
      const result = yield* Loop.run({ send: client.stream, toolbox: tools, request })

      assert.strictEqual(result.text, "Order 42 is shipped.")
      assert.deepStrictEqual(result.stop, { _tag: "Answered" })
      assert.strictEqual(result.steps.length, 2)
      assert.deepStrictEqual(
        result.steps[0]!.results.map((r) => [r.callId, r.content, r.isError]),
        [
          ["call_1", "order 42 is shipped", false],
          ["call_2", "2026-01-01T00:00:00Z", false],
        ],
      )
      assert.strictEqual(result.steps[0]!.request, request)
      const second = sent(server, 1)
      assert.deepStrictEqual(
        second.map((message) => message.role),
        ["user", "assistant", "tool", "tool"],
      )
      assert.deepStrictEqual(
        second.slice(2).map((message) => [message.tool_call_id, message.content]),
        [
          ["call_1", "order 42 is shipped"],
          ["call_2", "2026-01-01T00:00:00Z"],
        ],
      )
      // The conversation goes on from the result: the last answer is in it.
      assert.deepStrictEqual(
        result.request.messages.map((message) => message._tag),
        ["User", "Assistant", "Tool", "Tool", "Assistant"],
      )
    }),
  )

  it.live("gives its events in order, the model's pieces first, Finished last", () =>
    Effect.gen(function* () {
      const { client, request } = yield* serverAndClient([lookupAndNow, answered])
      const events = yield* Stream.runCollect(
        Loop.stream({ send: client.stream, toolbox: tools, request }),
      )
      assert.deepStrictEqual(tagsOf(events), [
        "StepStarted",
        "TextDelta",
        "ToolCallDelta",
        "CallStarted",
        "CallFinished",
        "CallStarted",
        "CallFinished",
        "StepFinished",
        "StepStarted",
        "TextDelta",
        "StepFinished",
        "Finished",
      ])
      const text = events.flatMap((event) => (event._tag === "TextDelta" ? [event.text] : []))
      assert.strictEqual(text.join(""), "Let me look.Order 42 is shipped.")
      const finished = events.flatMap((event) =>
        event._tag === "CallFinished" ? [[event.index, event.call.name, event.result.content]] : [],
      )
      assert.deepStrictEqual(finished, [
        [0, "lookup", "order 42 is shipped"],
        [0, "now", "2026-01-01T00:00:00Z"],
      ])
      const steps = events.flatMap((event) =>
        event._tag === "StepFinished" ? [[event.index, event.completion.finish]] : [],
      )
      assert.deepStrictEqual(steps, [
        [0, "tool_calls"],
        [1, "stop"],
      ])
      const last = events.at(-1)
      assert.strictEqual(last?._tag === "Finished" && last.result.text, "Order 42 is shipped.")
    }),
  )

  it.live("takes a send that gives whole completions (client.complete): no model pieces", () =>
    Effect.gen(function* () {
      const { client, request } = yield* serverAndClient([lookupAndNow, answered])
      const events: Array<Loop.Event> = []
      const result = yield* Loop.run({
        send: client.complete,
        toolbox: tools,
        request,
        onEvent: (event) => {
          events.push(event)
        },
      })
      assert.strictEqual(result.text, "Order 42 is shipped.")
      assert.deepStrictEqual(tagsOf(events), [
        "StepStarted",
        "CallStarted",
        "CallFinished",
        "CallStarted",
        "CallFinished",
        "StepFinished",
        "StepStarted",
        "StepFinished",
        "Finished",
      ])
    }),
  )

  it.live("stops at maxSteps, with the last step's calls answered and appended", () =>
    Effect.gen(function* () {
      const again = Answer.toolCalls([{ name: "now" }])
      const { server, client, request } = yield* serverAndClient([again, again, again])
      const result = yield* Loop.run({ send: client.stream, toolbox: tools, request, maxSteps: 2 })
      assert.deepStrictEqual(result.stop, { _tag: "MaxSteps", maxSteps: 2 })
      assert.strictEqual(server.bodies.length, 2)
      assert.strictEqual(result.steps.length, 2)
      assert.deepStrictEqual(
        result.request.messages.map((message) => message._tag),
        ["User", "Assistant", "Tool", "Assistant", "Tool"],
      )
      // The last answer called tools: its text is empty, and the completion says so.
      assert.strictEqual(result.completion?.finish, "tool_calls")
    }),
  )

  it.effect("is bounded at 20 steps when no bound is given", () =>
    Effect.gen(function* () {
      const { requests, send } = alwaysCalling()
      const result = yield* Loop.run({ send, toolbox: echo, request: Request.make("m") })
      assert.deepStrictEqual(result.stop, { _tag: "MaxSteps", maxSteps: Stop.defaultMaxSteps })
      assert.strictEqual(requests.length, 20)
    }),
  )

  it.effect("refuses a maxSteps that cannot be a bound, before anything is sent", () =>
    Effect.gen(function* () {
      for (const maxSteps of [0, -1, 1.5, Number.NaN]) {
        const { requests, send } = alwaysCalling()
        const error = yield* Effect.flip(
          Loop.run({ send, toolbox: echo, request: Request.make("m"), maxSteps }),
        )
        assert.strictEqual(error._tag === "SvirError" && error.reason._tag, "Config")
        assert.strictEqual(requests.length, 0)
      }
    }),
  )

  it.live("stopWhen: hasToolCall stops after the step that called the tool", () =>
    Effect.gen(function* () {
      const { server, result } = yield* lookupThen({ name: "now" }, Stop.hasToolCall("now"))
      assert.deepStrictEqual(result.stop, { _tag: "Condition", index: 0 })
      assert.strictEqual(result.steps.length, 2)
      assert.strictEqual(server.remaining, 1)
    }),
  )

  it.live("stopWhen: a list stops at the first condition that holds, and names it", () =>
    Effect.gen(function* () {
      const { result } = yield* lookupThen({ name: "weather" }, [
        Stop.hasToolCall("final_answer"),
        Stop.when((step) => step.results.some((result) => result.isError)),
      ])
      assert.deepStrictEqual(result.stop, { _tag: "Condition", index: 1 })
      assert.strictEqual(result.steps.length, 2)
      assert.strictEqual(
        result.steps[1]!.results[0]!.content,
        "no tool named weather; the tools are: lookup, now",
      )
    }),
  )

  it.live("stopWhen: a token budget, over the usage summed across steps", () =>
    Effect.gen(function* () {
      const usage = { input: 100, output: 10 }
      const again = Answer.toolCalls([{ name: "now" }], { usage })
      const { client, request } = yield* serverAndClient([again, again, again, again])
      const result = yield* Loop.run({
        send: client.stream,
        toolbox: tools,
        request: Request.includeUsage(request, true),
        stopWhen: Stop.tokenBudget(200),
      })
      assert.deepStrictEqual(result.stop, { _tag: "Condition", index: 0 })
      assert.strictEqual(result.steps.length, 2)
      assert.deepStrictEqual(result.usage, { input: 200, output: 20, total: 220 })
    }),
  )

  it.effect("sums usage with Completion.addUsage; a step without usage counts as nothing", () =>
    Effect.gen(function* () {
      const usages: ReadonlyArray<Completion.Usage | undefined> = [
        { input: 100, output: 20, total: 120, cachedInput: 64 },
        undefined,
        { input: 130, output: 10, total: 140, reasoning: 4 },
      ]
      let turn = 0
      const send = () =>
        Effect.sync(() => {
          const usage = usages[turn]
          turn++
          return turn < usages.length
            ? Completion.make({
                calls: [ToolCall.make(`c${turn}`, "echo")],
                finish: "tool_calls",
                usage,
              })
            : Completion.make({ text: "done", finish: "stop", usage })
        })
      const result = yield* Loop.run({ send, toolbox: echo, request: Request.make("m") })
      assert.deepStrictEqual(result.usage, Completion.addUsage(usages[0]!, usages[2]!))
      assert.deepStrictEqual(result.usage, {
        input: 230,
        output: 30,
        total: 260,
        cachedInput: 64,
        reasoning: 4,
      })
    }),
  )

  it.effect(
    "takes a stream of events of your own transport; one cut short is TruncatedStream",
    () =>
      Effect.gen(function* () {
        const done = Completion.make({ text: "hi", finish: "stop" })
        const whole = () =>
          Stream.make(Event.textDelta("h"), Event.textDelta("i"), Event.completed(done))
        const texts: Array<string> = []
        const result = yield* Loop.run({
          send: whole,
          toolbox: echo,
          request: Request.make("m"),
          onEvent: (event) =>
            Effect.sync(() => {
              if (event._tag === "TextDelta") texts.push(event.text)
            }),
        })
        assert.strictEqual(result.text, "hi")
        assert.deepStrictEqual(texts, ["h", "i"])

        const cut = () => Stream.make(Event.textDelta("h"))
        const error = yield* Effect.flip(
          Loop.run({ send: cut, toolbox: echo, request: Request.make("m") }),
        )
        assert.strictEqual(error.reason._tag, "TruncatedStream")
      }),
  )

  it.live("a transport failure is the loop's error, with the kind the client gave it", () =>
    Effect.gen(function* () {
      const { client, request } = yield* serverAndClient([
        lookupAndNow,
        Answer.error(401, "bad key"),
      ])
      const error = yield* Effect.flip(Loop.run({ send: client.stream, toolbox: tools, request }))
      assert.isTrue(SvirError.isSvirError(error))
      assert.strictEqual(error.reason._tag, "Authentication")
    }),
  )

  it.effect(
    "answers the calls of a step concurrently when asked, results in the calls' order",
    () =>
      Effect.gen(function* () {
        let running = 0
        let most = 0
        const slow: Toolbox.Toolbox = {
          tools: Effect.succeed([]),
          call: (call) =>
            Effect.gen(function* () {
              running++
              most = Math.max(most, running)
              yield* Effect.yieldNow
              yield* Effect.yieldNow
              running--
              return ToolResult.make(call.id, call.id)
            }),
        }
        let turn = 0
        const send = () =>
          Effect.sync(() =>
            turn++ === 0
              ? Completion.make({
                  calls: ["a", "b", "c"].map((id) => ToolCall.make(id, "x")),
                  finish: "tool_calls",
                })
              : Completion.make({ finish: "stop" }),
          )
        const result = yield* Loop.run({
          send,
          toolbox: slow,
          request: Request.make("m"),
          concurrency: 3,
        })
        assert.strictEqual(most, 3)
        assert.deepStrictEqual(
          result.steps[0]!.results.map((r) => r.content),
          ["a", "b", "c"],
        )
      }),
  )

  it.live("each function may need services of its own; the loop needs them all", () =>
    Effect.gen(function* () {
      const { server, request } = yield* serverAndClient([lookupAndNow, answered])
      const seen: Array<string> = []
      const result = yield* Loop.run({
        // `Client.stream` takes the client from the context.
        send: Client.stream,
        toolbox: Approval.guard(tools),
        request,
        repair: () => Effect.as(Effect.service(Audience), undefined),
        abort: Effect.andThen(Effect.service(Audience), Effect.never),
        onEvent: (event) =>
          Effect.map(Effect.service(Audience), (audience) => {
            if (event._tag === "CallFinished") seen.push(`${audience.name}: ${event.call.name}`)
          }),
      }).pipe(
        Effect.provide(
          Layer.mergeAll(
            Client.layerFetch({ baseUrl: server.url, apiKey: "sk-test" }),
            Approval.layer(() => Approval.allow),
          ),
        ),
        Effect.provideService(Audience, Audience.of({ name: "ada" })),
      )
      assert.strictEqual(result.text, "Order 42 is shipped.")
      assert.deepStrictEqual(seen, ["ada: lookup", "ada: now"])
    }),
  )
})

class Audience extends Context.Service<Audience, { readonly name: string }>()("Audience") {}
