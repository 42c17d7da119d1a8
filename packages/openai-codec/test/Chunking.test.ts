import { assert, describe } from "@effect/vitest"
import { fc, it } from "@fast-check/vitest"
import type { Event } from "@svir/core"
import { OpenAiCodec } from "../src/index.js"
import { cutAt, expectations, feed, inputBytes, loadCases, optionsFor } from "./support/cases.js"

const streamed = loadCases().flatMap((c) => {
  const bytes = inputBytes(c)
  return bytes === undefined ? [] : expectations(c).map(([mode]) => ({ c, mode, bytes }))
})

/** The pieces of each kind joined, and the arguments of each call index joined. */
const joined = (events: ReadonlyArray<Event.Event>) => {
  let text = ""
  let reasoning = ""
  let refusal = ""
  const calls = new Map<number, { id: string; name: string; arguments: string }>()
  for (const event of events) {
    if (event._tag === "TextDelta") text += event.text
    else if (event._tag === "ReasoningDelta") reasoning += event.text
    else if (event._tag === "RefusalDelta") refusal += event.text
    else if (event._tag === "ToolCallDelta") {
      const call = calls.get(event.index) ?? { id: "", name: "", arguments: "" }
      if (event.id !== undefined) call.id = event.id
      call.name += event.name ?? ""
      call.arguments += event.arguments
      calls.set(event.index, call)
    }
  }
  const sorted = [...calls.values()].map((call) => JSON.stringify(call)).sort()
  return { text, reasoning, refusal, calls: sorted }
}

describe("chunking", () => {
  it.prop([fc.constantFrom(...streamed), fc.array(fc.nat(), { maxLength: 40 })], { numRuns: 400 })(
    "random chunkings give the outcome of the whole input",
    ({ c, mode, bytes }, points) => {
      const whole = feed(OpenAiCodec.decoder(optionsFor(c, mode)), [bytes])
      const cut = feed(OpenAiCodec.decoder(optionsFor(c, mode)), cutAt(bytes, points))
      assert.deepStrictEqual(cut, whole)
    },
  )

  it.prop([fc.constantFrom(...streamed)])(
    "the deltas add up to the completion",
    ({ c, mode, bytes }) => {
      const outcome = feed(OpenAiCodec.decoder(optionsFor(c, mode)), [bytes])
      const completed = outcome.events.filter((event) => event._tag === "Completed")
      if (outcome.error !== undefined) {
        assert.strictEqual(completed.length, 0, "an error case released a completion")
        return
      }
      assert.strictEqual(completed.length, 1)
      assert.strictEqual(outcome.events.at(-1)?._tag, "Completed", "Completed is the last event")
      const done = outcome.completion!
      const pieces = joined(outcome.events)
      assert.strictEqual(pieces.text, done.text)
      assert.strictEqual(pieces.reasoning, done.reasoning)
      assert.strictEqual(pieces.refusal, done.refusal)
      if (done.calls.length > 0) {
        const released = done.calls
          .map((call) =>
            JSON.stringify({ id: call.id, name: call.name, arguments: call.arguments }),
          )
          .sort()
        assert.deepStrictEqual(pieces.calls, released)
      }
    },
  )

  it.prop([
    fc.array(fc.string({ unit: "grapheme", maxLength: 12 }), { minLength: 1, maxLength: 20 }),
    fc.array(fc.array(fc.string({ maxLength: 6 }), { maxLength: 8 }), { maxLength: 4 }),
    fc.boolean(),
    fc.array(fc.nat(), { maxLength: 30 }),
  ])("any text and interleaved calls survive any chunking", (texts, calls, crlf, points) => {
    const line = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    let sse = texts.map((text) => line({ content: text })).join("")
    calls.forEach((_, i) => {
      sse += line({
        tool_calls: [
          {
            index: i,
            id: `call_${i}`,
            type: "function",
            function: { name: `t${i}`, arguments: "" },
          },
        ],
      })
    })
    const longest = Math.max(0, ...calls.map((fragments) => fragments.length))
    for (let f = 0; f < longest; f++) {
      calls.forEach((fragments, i) => {
        if (f < fragments.length)
          sse += line({ tool_calls: [{ index: i, function: { arguments: fragments[f] } }] })
      })
    }
    sse += `${line({}, calls.length > 0 ? "tool_calls" : "stop")}data: [DONE]\n\n`
    if (crlf) sse = sse.replace(/\n/g, "\r\n")
    const bytes = new TextEncoder().encode(sse)
    const outcome = feed(OpenAiCodec.decoder(), cutAt(bytes, points))
    assert.strictEqual(outcome.error, undefined)
    const done = outcome.completion!
    assert.strictEqual(done.text, texts.join(""))
    assert.deepStrictEqual(
      done.calls.map((call) => [call.id, call.name, call.arguments]),
      calls.map((fragments, i) => [`call_${i}`, `t${i}`, fragments.join("")]),
    )
  })

  const sseLine = fc.oneof(
    fc.json().map((json) => `data: ${json}`),
    fc.constantFrom(
      "",
      "",
      ": keep-alive",
      "data: [DONE]",
      "event: error",
      "id: 7",
      'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}',
      'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{"}}]}}]}',
      'data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"}"}}]}}]}',
      'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
      'data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}',
      'data: {"error":{"message":"boom"}}',
    ),
    fc.string().map((text) => `data: ${text}`),
  )

  it.prop([
    fc.array(sseLine, { maxLength: 30 }),
    fc.constantFrom("\n", "\r\n"),
    fc.constantFrom("strict" as const, "lenient" as const),
    fc.array(fc.nat(), { maxLength: 20 }),
  ])(
    "any SSE-shaped input ends in one outcome, whatever the chunking",
    (lines, end, mode, points) => {
      const bytes = new TextEncoder().encode(lines.join(end) + end)
      const ids = () => {
        let n = 0
        return () => `id${++n}`
      }
      const whole = feed(OpenAiCodec.decoder({ mode, makeCallId: ids() }), [bytes])
      const cut = feed(OpenAiCodec.decoder({ mode, makeCallId: ids() }), cutAt(bytes, points))
      assert.deepStrictEqual(cut, whole)
      assert.isTrue((whole.error === undefined) !== (whole.completion === undefined))
    },
  )

  it.prop([
    fc.uint8Array({ maxLength: 200 }),
    fc.constantFrom("strict" as const, "lenient" as const),
  ])("arbitrary bytes give an error or a completion, never a throw", (bytes, mode) => {
    const outcome = feed(OpenAiCodec.decoder({ mode }), [bytes])
    assert.isTrue((outcome.error === undefined) !== (outcome.completion === undefined))
  })

  it.prop([
    fc.array(fc.uint8Array({ maxLength: 12 }), { maxLength: 10 }),
    fc.constantFrom("strict" as const, "lenient" as const),
  ])("lines with any bytes read the same whole or byte by byte", (values, mode) => {
    const parts: Array<number> = []
    const content = (bytes: Uint8Array) => {
      // A JSON chunk whose content holds the bytes (LF and quote-breaking bytes left out).
      const safe = [...bytes].filter(
        (byte) => byte !== 10 && byte !== 13 && byte !== 34 && byte !== 92,
      )
      parts.push(...new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"'))
      parts.push(...safe)
      parts.push(...new TextEncoder().encode('"},"finish_reason":null}]}\n\n'))
    }
    for (const value of values) content(value)
    parts.push(
      ...new TextEncoder().encode(
        'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
      ),
    )
    const bytes = Uint8Array.from(parts)
    const whole = feed(OpenAiCodec.decoder({ mode }), [bytes])
    const byByte = feed(OpenAiCodec.decoder({ mode }), cutAt(bytes, [...bytes.keys()]))
    assert.deepStrictEqual(byByte, whole)
  })
})
