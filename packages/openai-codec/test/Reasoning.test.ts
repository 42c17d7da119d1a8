import { assert, describe, it } from "@effect/vitest"
import type { Event } from "@svir/core"
import { Effect } from "effect"
import { OpenAiCodec } from "../src/index.js"
import { feed } from "./support/cases.js"

const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c", model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

const stream = (deltas: ReadonlyArray<unknown>, options?: OpenAiCodec.Options) => {
  const sse = `${deltas.map((delta) => chunk(delta)).join("")}${chunk({}, "stop")}data: [DONE]\n\n`
  return feed(OpenAiCodec.decoder(options), [new TextEncoder().encode(sse)])
}

const reasoningEvents = (events: ReadonlyArray<Event.Event>) =>
  events.flatMap((event) =>
    event._tag === "ReasoningDelta" ? [[event.source, event.text] as const] : [],
  )

const response = (message: unknown, options?: OpenAiCodec.Options) =>
  Effect.runSync(
    OpenAiCodec.decodeResponse(
      JSON.stringify({
        id: "r",
        model: "m",
        choices: [{ index: 0, message, finish_reason: "stop" }],
      }),
      options,
    ),
  )

// D13: reasoning is kept by the key it came under; one text under both keys is one piece.
describe("reasoning by source", () => {
  it("keeps each key apart, in order of first appearance, and all of it joined", () => {
    const { events, completion } = stream([
      { reasoning: "a" },
      { reasoning_content: "b" },
      { reasoning: "c" },
      { content: "answer" },
    ])
    assert.deepStrictEqual(reasoningEvents(events), [
      ["reasoning", "a"],
      ["reasoning_content", "b"],
      ["reasoning", "c"],
    ])
    assert.strictEqual(completion?.reasoning, "abc")
    assert.deepStrictEqual(completion?.reasoningBySource, [
      { source: "reasoning", text: "ac" },
      { source: "reasoning_content", text: "b" },
    ])
  })

  it("reads one text under both keys once, under reasoning_content (mlx-vlm)", () => {
    const { events, completion } = stream([{ reasoning: "hm", reasoning_content: "hm" }])
    assert.deepStrictEqual(reasoningEvents(events), [["reasoning_content", "hm"]])
    assert.deepStrictEqual(completion?.reasoningBySource, [
      { source: "reasoning_content", text: "hm" },
    ])
  })

  it("does the same in a whole response", () => {
    const same = response({ content: "x", reasoning_content: "r", reasoning: "r" })
    assert.deepStrictEqual(same.reasoningBySource, [{ source: "reasoning_content", text: "r" }])
    assert.strictEqual(same.reasoning, "r")
    const differ = response({ content: "x", reasoning_content: "a", reasoning: "b" })
    assert.deepStrictEqual(differ.reasoningBySource, [
      { source: "reasoning_content", text: "a" },
      { source: "reasoning", text: "b" },
    ])
    assert.strictEqual(differ.reasoning, "ab")
  })
})

// D34: `<think>` in the content is reasoning by default.
describe("think tags", () => {
  it("are reasoning under the source think, with no empty delta", () => {
    const { events, completion } = stream([
      { content: "<thi" },
      { content: "nk>plan</th" },
      { content: "ink>" },
      { content: "Done" },
    ])
    for (const event of events) {
      if (event._tag === "TextDelta" || event._tag === "ReasoningDelta") {
        assert.notStrictEqual(event.text, "")
      }
    }
    assert.deepStrictEqual(reasoningEvents(events), [["think", "plan"]])
    assert.strictEqual(completion?.text, "Done")
    assert.deepStrictEqual(completion?.reasoningBySource, [{ source: "think", text: "plan" }])
  })

  it("flush a held tail at the finish", () => {
    const { completion } = stream([{ content: "done<thi" }])
    assert.strictEqual(completion?.text, "done<thi")
  })

  it("stay text with think: keep", () => {
    const { completion } = stream([{ content: "<think>plan</think>Done" }], { think: "keep" })
    assert.strictEqual(completion?.text, "<think>plan</think>Done")
    assert.deepStrictEqual(completion?.reasoningBySource, [])
  })

  it("are split in a whole response too", () => {
    const split = response({ content: "<think>plan</think>Done" })
    assert.strictEqual(split.text, "Done")
    assert.deepStrictEqual(split.reasoningBySource, [{ source: "think", text: "plan" }])
    const kept = response({ content: "<think>plan</think>Done" }, { think: "keep" })
    assert.strictEqual(kept.text, "<think>plan</think>Done")
  })
})
