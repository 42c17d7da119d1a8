import { assert, describe, it } from "@effect/vitest"
import { fc, it as prop } from "@fast-check/vitest"
import type { Completion, Event } from "@svir/core"
import { Effect } from "effect"
import { OpenAiCodec } from "../src/index.js"
import { feed, inPieces } from "./support/cases.js"

const utf8 = (text: string) => [...new TextEncoder().encode(text)]

/** Two tokens as Fireworks streams them, with fields of its own beside (fw-ai/benchmark#12). */
const hello: ReadonlyArray<unknown> = [
  {
    token: "Hello",
    logprob: -0.10208277,
    bytes: utf8("Hello"),
    top_logprobs: [],
    token_id: 16230,
    text_offset: 0,
  },
  { token: "!", logprob: -0.02145231, bytes: [33], top_logprobs: [], token_id: 28808 },
]
const helloRead: ReadonlyArray<Completion.TokenLogprob> = [
  { token: "Hello", logprob: -0.10208277, bytes: utf8("Hello"), topLogprobs: [] },
  { token: "!", logprob: -0.02145231, bytes: [33], topLogprobs: [] },
]

/** A token with two alternatives, as OpenAI sends them with `top_logprobs: 2`. */
const sure = {
  token: " sure",
  logprob: -0.31,
  bytes: utf8(" sure"),
  top_logprobs: [
    { token: " sure", logprob: -0.31, bytes: utf8(" sure") },
    { token: " yes", logprob: -1.42, bytes: null },
  ],
}
const sureRead: Completion.TokenLogprob = {
  token: " sure",
  logprob: -0.31,
  bytes: utf8(" sure"),
  topLogprobs: [
    { token: " sure", logprob: -0.31, bytes: utf8(" sure") },
    { token: " yes", logprob: -1.42 },
  ],
}

const chunk = (delta: unknown, logprobs: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta, logprobs, finish_reason: finish }] })}\n\n`

const streamAt = (text: string, size: number, mode: "strict" | "lenient" = "strict") =>
  feed(OpenAiCodec.decoder({ mode }), inPieces(text, size))

const logprobEvents = (events: ReadonlyArray<Event.Event>) =>
  events.flatMap((event) => (event._tag === "LogprobsDelta" ? [event.tokens] : []))

const whole = (message: unknown, logprobs: unknown) =>
  JSON.stringify({
    id: "c",
    choices: [{ index: 0, message, logprobs, finish_reason: "stop" }],
  })

describe("logprobs (D52)", () => {
  it("a stream gives each chunk's tokens as an event, and all of them in the Completion", () => {
    const text =
      chunk({ role: "assistant", content: "Hello!" }, { content: hello, refusal: null }) +
      chunk({ content: " sure" }, { content: [sure] }) +
      chunk({}, null, "stop") +
      "data: [DONE]\n\n"
    for (const size of [1, 3, 0]) {
      const outcome = streamAt(text, size)
      assert.deepStrictEqual(logprobEvents(outcome.events), [helloRead, [sureRead]])
      assert.deepStrictEqual(outcome.completion?.logprobs, [...helloRead, sureRead])
      assert.strictEqual(outcome.completion?.text, "Hello! sure")
    }
  })

  it("the events come after the text of their chunk", () => {
    const outcome = streamAt(
      `${chunk({ content: "Hello!" }, { content: hello })}${chunk({}, null, "stop")}data: [DONE]\n\n`,
      0,
    )
    assert.deepStrictEqual(
      outcome.events.map((event) => event._tag),
      ["TextDelta", "LogprobsDelta", "Completed"],
    )
  })

  it("an answer without logprobs has none, and no event (vLLM sends null, vllm-project/vllm#6083)", () => {
    const outcome = streamAt(
      `${chunk({ content: "Hi" }, null)}${chunk({}, null, "stop")}data: [DONE]\n\n`,
      0,
    )
    assert.notProperty(outcome.completion, "logprobs")
    assert.deepStrictEqual(logprobEvents(outcome.events), [])
  })

  it.effect("a whole answer carries them, and a refusal's too", () =>
    Effect.gen(function* () {
      const answer = yield* OpenAiCodec.decodeResponse(
        whole({ role: "assistant", content: "Hello!" }, { content: hello, refusal: null }),
      )
      assert.deepStrictEqual(answer.logprobs, helloRead)
      const refused = yield* OpenAiCodec.decodeResponse(
        whole(
          { role: "assistant", content: null, refusal: " sure" },
          { content: null, refusal: [sure] },
        ),
      )
      assert.strictEqual(refused.finish, "refusal")
      assert.deepStrictEqual(refused.logprobs, [sureRead])
      const none = yield* OpenAiCodec.decodeResponse(
        whole({ role: "assistant", content: "Hi" }, null),
      )
      assert.notProperty(none, "logprobs")
    }),
  )

  const unreadable: ReadonlyArray<readonly [string, unknown]> = [
    ["logprobs that are not an object", "yes"],
    ["a content that is not a list", { content: { token: "a" } }],
    ["a token without its logprob", { content: [{ token: "Hello" }, hello[1]] }],
    [
      "bytes that are not bytes",
      { content: [{ token: "a", logprob: -1, bytes: [300] }, hello[1]] },
    ],
    [
      "an alternative that cannot be read",
      { content: [{ ...sure, top_logprobs: [{ token: 1, logprob: -1 }] }, hello[1]] },
    ],
  ]
  for (const [what, logprobs] of unreadable) {
    it.effect(`strict mode refuses ${what}; lenient mode skips what it cannot read`, () =>
      Effect.gen(function* () {
        const body = whole({ role: "assistant", content: "Hello!" }, logprobs)
        const error = yield* Effect.flip(OpenAiCodec.decodeResponse(body))
        assert.strictEqual(error.reason._tag, "Protocol")
        const stream = `${chunk({ content: "Hello!" }, logprobs)}${chunk({}, null, "stop")}data: [DONE]\n\n`
        assert.strictEqual(streamAt(stream, 3).error, "protocol")
        const lenient = yield* OpenAiCodec.decodeResponse(body, { mode: "lenient" })
        const readable = Array.isArray((logprobs as { content?: unknown })?.content)
          ? [helloRead[1]!]
          : []
        assert.deepStrictEqual(lenient.logprobs, readable)
        assert.deepStrictEqual(streamAt(stream, 3, "lenient").completion?.logprobs, readable)
      }),
    )
  }

  const token = fc.record({
    token: fc.string(),
    // JSON has no -0: the server's 0 is read as 0.
    logprob: fc.double({ max: 0, noNaN: true, noDefaultInfinity: true }).map((x) => x + 0),
  })

  prop.prop([fc.array(fc.array(token, { maxLength: 4 }), { minLength: 1, maxLength: 6 })])(
    "the Completion holds every token in order, whatever the chunking",
    (perChunk) => {
      const text =
        perChunk.map((tokens, i) => chunk({ content: `t${i}` }, { content: tokens })).join("") +
        `${chunk({}, null, "stop")}data: [DONE]\n\n`
      const expected = perChunk.flat().map((entry) => ({ ...entry, topLogprobs: [] }))
      for (const size of [1, 7, 0]) {
        const outcome = streamAt(text, size)
        assert.deepStrictEqual(outcome.completion?.logprobs, expected)
        assert.deepStrictEqual(logprobEvents(outcome.events).flat(), expected)
      }
    },
  )
})
