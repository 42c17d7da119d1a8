import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { OpenAiCodec } from "../src/index.js"

const bytes = (text: string) => new TextEncoder().encode(text)
const line = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

describe("decodeStream", () => {
  it.effect("gives the events and ends after Completed", () =>
    Effect.gen(function* () {
      const chunks = [
        line({ content: "Hel" }),
        line({ content: "lo" }),
        `${line({}, "stop")}data: [DONE]\n\n`,
        line({ content: "late" }),
      ]
      const body = Stream.fromIterable(chunks.map(bytes))
      const events = yield* Stream.runCollect(OpenAiCodec.decodeStream(body))
      assert.deepStrictEqual(
        events.map((event) => event._tag),
        ["TextDelta", "TextDelta", "Completed"],
      )
    }),
  )

  it.effect("fails with the error after the events decoded before it", () =>
    Effect.gen(function* () {
      const body = Stream.fromIterable([bytes(line({ content: "partial" }))])
      const seen: Array<string> = []
      const error = yield* OpenAiCodec.decodeStream(body).pipe(
        Stream.runForEach((event) => Effect.sync(() => seen.push(event._tag))),
        Effect.flip,
      )
      assert.deepStrictEqual(seen, ["TextDelta"])
      assert.strictEqual(error.reason._tag, "TruncatedStream")
      assert.isTrue(error.isRetryable)
    }),
  )

  it.effect("passes the options to the decoder", () =>
    Effect.gen(function* () {
      const body = Stream.make(bytes(`${line({ content: "x".repeat(100) })}data: [DONE]\n\n`))
      const error = yield* Stream.runDrain(
        OpenAiCodec.decodeStream(body, { maxEventBytes: 50 }),
      ).pipe(Effect.flip)
      assert.strictEqual(error.reason._tag, "ResponseLimit")
    }),
  )

  it("a decoder that has ended reads nothing more", () => {
    const decoder = OpenAiCodec.decoder()
    const step = decoder.push(
      bytes(`${line({ content: "Hi" }, "stop")}data: [DONE]\n\n${line({ content: "late" })}`),
    )
    assert.deepStrictEqual(
      step.events.map((event) => event._tag),
      ["TextDelta", "Completed"],
    )
    assert.isTrue(decoder.done())
    assert.deepStrictEqual(decoder.push(bytes(line({ content: "more" }))).events, [])
    assert.deepStrictEqual(decoder.finish(), { events: [], error: undefined })
  })

  it.effect("decodeResponse carries the server's own message", () =>
    Effect.gen(function* () {
      const error = yield* OpenAiCodec.decodeResponse(
        '{"error":{"message":"quota exhausted","type":"insufficient_quota"}}',
      ).pipe(Effect.flip)
      assert.strictEqual(error.reason._tag, "Server")
      assert.strictEqual(error.serverMessage, "quota exhausted")
    }),
  )

  it("a makeCallId that keeps giving the same id cannot hang the decoder", () => {
    let asked = 0
    // Throws rather than loops forever when the decoder keeps asking.
    const makeCallId = () => {
      asked++
      if (asked > 1000) throw new Error("the decoder keeps asking for a new id")
      return "fixed"
    }
    const pieces = [0, 1].map((index) => ({ index, function: { name: "now", arguments: "{}" } }))
    const step = OpenAiCodec.decoder({ makeCallId }).push(
      bytes(`${line({ tool_calls: pieces })}${line({}, "tool_calls")}data: [DONE]\n\n`),
    )
    const last = step.events.at(-1)
    const streamed = last?._tag === "Completed" ? last.completion.calls.map((call) => call.id) : []
    assert.strictEqual(new Set(streamed).size, 2)
    asked = 0
    const whole = Effect.runSync(
      OpenAiCodec.decodeResponse(
        JSON.stringify({
          choices: [
            {
              message: { tool_calls: pieces.map((piece) => ({ function: piece.function })) },
              finish_reason: "tool_calls",
            },
          ],
        }),
        { makeCallId },
      ),
    )
    assert.strictEqual(new Set(whole.calls.map((call) => call.id)).size, 2)
  })

  it("generated ids are 9 letters and digits, unique within an answer", () => {
    const decoder = OpenAiCodec.decoder()
    const pieces = [0, 1, 2].map((index) => ({
      index,
      type: "function",
      function: { name: "now", arguments: "{}" },
    }))
    const step = decoder.push(
      bytes(`${line({ tool_calls: pieces })}${line({}, "tool_calls")}data: [DONE]\n\n`),
    )
    const last = step.events.at(-1)
    assert.strictEqual(last?._tag, "Completed")
    const ids = last?._tag === "Completed" ? last.completion.calls.map((call) => call.id) : []
    assert.strictEqual(new Set(ids).size, 3)
    for (const id of ids) assert.match(id, /^[a-zA-Z0-9]{9}$/)
  })
})
