import { assert, describe, it } from "@effect/vitest"
import { Tools } from "@svir/registry"
import { Answer } from "@svir/testing"
import { Deferred, Effect, Fiber, Schema, Stream } from "effect"
import { Loop } from "../src/index.js"
import { serverAndClient, tools } from "./helpers.js"

/** The seeds' tools and `slow`, whose handler says it started and then never answers. */
const withSlow = Effect.gen(function* () {
  const started = yield* Deferred.make<void>()
  const interrupted = yield* Deferred.make<void>()
  const slow = Tools.add("slow", "Takes forever.", Schema.Struct({}), () =>
    Deferred.succeed(started, undefined).pipe(
      Effect.andThen(Effect.never),
      Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)),
    ),
  )
  return { started, interrupted, toolbox: slow(tools) }
})

const lookupThenSlow = Answer.toolCalls([
  { name: "lookup", arguments: { id: 42 } },
  { name: "slow" },
  { name: "now" },
])

/** An answer that sends a little text, then stalls with the connection open. */
const stalled = Answer.text("Thinking about it for a long time", {
  quirks: { stallAfterEvents: 2 },
})

describe("abort", () => {
  it.live(
    "while a handler runs: it is interrupted, and the result says where, every call answered",
    () =>
      Effect.gen(function* () {
        const { started, interrupted, toolbox } = yield* withSlow
        const { client, request } = yield* serverAndClient([lookupThenSlow])
        const result = yield* Loop.run({
          send: client.stream,
          toolbox,
          request,
          abort: Deferred.await(started),
        })
        yield* Deferred.await(interrupted)
        assert.deepStrictEqual(result.stop, { _tag: "Aborted", step: 0, during: "tools" })
        assert.strictEqual(result.steps.length, 1)
        assert.deepStrictEqual(
          result.steps[0]!.results.map((r) => [r.callId, r.content, r.isError]),
          [
            ["call_1", "order 42 is shipped", false],
            ["call_2", "tool slow was interrupted", true],
            ["call_3", "tool now was interrupted", true],
          ],
        )
        assert.deepStrictEqual(
          result.request.messages.map((message) => message._tag),
          ["User", "Assistant", "Tool", "Tool", "Tool"],
        )
      }),
  )

  it.live("while the model answers: the request is dropped, and no step is recorded", () =>
    Effect.gen(function* () {
      const { server, client, request } = yield* serverAndClient([stalled])
      const firstText = yield* Deferred.make<void>()
      const result = yield* Loop.run({
        send: client.stream,
        toolbox: tools,
        request,
        abort: Deferred.await(firstText),
        onEvent: (event) =>
          event._tag === "TextDelta" ? Deferred.succeed(firstText, undefined) : undefined,
      })
      yield* Effect.promise(() => server.whenAbandoned(0))
      assert.deepStrictEqual(result.stop, { _tag: "Aborted", step: 0, during: "model" })
      assert.deepStrictEqual(result.steps, [])
      assert.strictEqual(result.completion, undefined)
      assert.strictEqual(result.text, "")
      assert.strictEqual(result.request, request)
    }),
  )

  it.live("after a whole step: the next request is dropped, the steps so far are kept", () =>
    Effect.gen(function* () {
      const { server, client, request } = yield* serverAndClient([
        Answer.toolCalls([{ name: "now" }]),
        stalled,
      ])
      const secondText = yield* Deferred.make<void>()
      const result = yield* Loop.run({
        send: client.stream,
        toolbox: tools,
        request,
        abort: Deferred.await(secondText),
        onEvent: (event) =>
          event._tag === "TextDelta" ? Deferred.succeed(secondText, undefined) : undefined,
      })
      yield* Effect.promise(() => server.whenAbandoned(1))
      assert.deepStrictEqual(result.stop, { _tag: "Aborted", step: 1, during: "model" })
      assert.strictEqual(result.steps.length, 1)
      assert.strictEqual(result.completion?.calls[0]?.name, "now")
    }),
  )

  it.live("interrupting the loop's fiber interrupts the running handler", () =>
    Effect.gen(function* () {
      const { started, interrupted, toolbox } = yield* withSlow
      const { client, request } = yield* serverAndClient([lookupThenSlow])
      const fiber = yield* Effect.forkChild(Loop.run({ send: client.stream, toolbox, request }))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      assert.isTrue(yield* Deferred.isDone(interrupted))
    }),
  )

  it.live("interrupting the loop's fiber drops the request in flight", () =>
    Effect.gen(function* () {
      const { server, client, request } = yield* serverAndClient([stalled])
      const firstText = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(
        Loop.run({
          send: client.stream,
          toolbox: tools,
          request,
          onEvent: (event) =>
            event._tag === "TextDelta" ? Deferred.succeed(firstText, undefined) : undefined,
        }),
      )
      yield* Deferred.await(firstText)
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.whenAbandoned(0))
      assert.isTrue(server.requests[0]!.abandoned)
    }),
  )

  it.live("ending the event stream early stops the loop and its handlers", () =>
    Effect.gen(function* () {
      const { started, interrupted, toolbox } = yield* withSlow
      const { client, request } = yield* serverAndClient([lookupThenSlow])
      const fiber = yield* Loop.stream({ send: client.stream, toolbox, request }).pipe(
        Stream.runDrain,
        Effect.forkChild,
      )
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      assert.isTrue(yield* Deferred.isDone(interrupted))

      const events = yield* Loop.stream({ send: client.stream, toolbox: tools, request }).pipe(
        Stream.takeUntil((event) => event._tag === "StepStarted"),
        Stream.runCollect,
      )
      assert.deepStrictEqual(
        events.map((event) => event._tag),
        ["StepStarted"],
      )
    }),
  )
})
