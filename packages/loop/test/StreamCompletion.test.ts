import { assert, describe, it } from "@effect/vitest"
import { Completion, Event, SvirError } from "@svir/core"
import { Answer } from "@svir/testing"
import { Effect, Stream } from "effect"
import { StreamCompletion } from "../src/index.js"
import { serverAndClient } from "./helpers.js"

const reply = Answer.reply({
  reasoning: "The user wants order 42.",
  text: "Let me look.",
  calls: [{ name: "lookup", arguments: { id: 42 } }],
})

describe("StreamCompletion.run", () => {
  it.live("hands every event to the callback as it comes, and gives the completion", () =>
    Effect.gen(function* () {
      const { client, request } = yield* serverAndClient([reply, reply])
      const events: Array<Event.Event> = []
      const done = yield* StreamCompletion.run(client.stream(request), (event) => {
        events.push(event)
      })
      const whole = yield* client.complete(request)
      assert.strictEqual(done.text, whole.text)
      assert.strictEqual(done.reasoning, whole.reasoning)
      // The server numbers its calls across requests; the rest is the same.
      assert.deepStrictEqual(
        done.calls.map((call) => [call.name, call.arguments]),
        whole.calls.map((call) => [call.name, call.arguments]),
      )
      assert.strictEqual(events.at(-1)?._tag, "Completed")
      const text = events.flatMap((event) => (event._tag === "TextDelta" ? [event.text] : []))
      assert.strictEqual(text.join(""), "Let me look.")
      const pieces = events.flatMap((event) =>
        event._tag === "ToolCallDelta" ? [event.arguments] : [],
      )
      assert.strictEqual(pieces.join(""), '{"id":42}')
    }),
  )

  it.effect("waits for a callback that returns an Effect before the next event", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const events = Stream.make(
        Event.textDelta("a"),
        Event.textDelta("b"),
        Event.completed(Completion.make({ text: "ab", finish: "stop" })),
      )
      const done = yield* StreamCompletion.run(events, (event) =>
        Effect.gen(function* () {
          seen.push(`start ${event._tag}`)
          yield* Effect.yieldNow
          seen.push(`end ${event._tag}`)
        }),
      )
      assert.strictEqual(done.text, "ab")
      assert.deepStrictEqual(seen, [
        "start TextDelta",
        "end TextDelta",
        "start TextDelta",
        "end TextDelta",
        "start Completed",
        "end Completed",
      ])
    }),
  )

  it.effect("a stream that ends without Completed is TruncatedStream, pieces handed over", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const error = yield* Effect.flip(
        StreamCompletion.run(Stream.make(Event.textDelta("a")), (event) => {
          seen.push(event._tag)
        }),
      )
      assert.strictEqual(error.reason._tag, "TruncatedStream")
      assert.deepStrictEqual(seen, ["TextDelta"])
    }),
  )

  it.effect("the stream's own failure is the error, as it was", () =>
    Effect.gen(function* () {
      const failed = SvirError.make("Transport", "connection reset")
      const error = yield* Effect.flip(
        StreamCompletion.run(Stream.concat(Stream.make(Event.textDelta("a")), Stream.fail(failed))),
      )
      assert.strictEqual(error, failed)
    }),
  )
})
