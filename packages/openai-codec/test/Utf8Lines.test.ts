import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { OpenAiCodec } from "../src/index.js"
import { feed } from "./support/cases.js"

// Lines of text that is not ASCII are decoded many at once, and their length on the wire is
// counted per event (DECISIONS.md D45): the maxEventBytes limit must fall at the same byte
// whatever the chunking, and whatever came before.
const words = ["plain", "слово", "λέξη", "كلمة", "शब्द", "単語", "🙂🚀", "é", "\u{10FFFF}"]
const bytes = (text: string) => new TextEncoder().encode(text)
const line = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`

const cut = (all: Uint8Array, size: number): Array<Uint8Array> => {
  const chunks: Array<Uint8Array> = []
  for (let at = 0; at < all.length; at += size) chunks.push(all.subarray(at, at + size))
  return chunks
}

describe("text that is not ASCII", () => {
  it("meets maxEventBytes at the same byte at every chunking", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.nat({ max: 7 }),
        fc.integer({ min: -2, max: 2 }),
        (pieces, which, off) => {
          const events = [...pieces.map((piece) => line(piece.join(" "))), line("", "stop")]
          const all = `${events.join("")}data: [DONE]\n\n`
          // An event's bytes: its lines, each with its line end.
          const largest = Math.max(...events.map((event) => bytes(event).length))
          const target = bytes(events[which % events.length]!).length
          const maxEventBytes = Math.max(1, target + off)
          const input = bytes(all)
          const outcomes = [1, 3, 7, 32, 64, 100, 180, 300, input.length].map((size) =>
            feed(OpenAiCodec.decoder({ maxEventBytes }), cut(input, size)),
          )
          const expected = maxEventBytes < largest ? "response_limit" : undefined
          for (const outcome of outcomes) {
            assert.strictEqual(outcome.error, expected)
            assert.deepStrictEqual(outcome.events, outcomes[0]!.events)
          }
        },
      ),
      { seed: 45, numRuns: 500 },
    )
  })

  it("counts the bytes of an event a chunk ends inside, after whole lines", () => {
    for (const content of ["🙂🚀 слово", "単語 é \u0800\u07ff\u0080\u007f", "plain"]) {
      const event = line(content)
      const size = bytes(event).length
      // A blank line first (it dispatches nothing); the first chunk ends after the data line, so
      // the event is open at its end and its blank line comes in the next chunk.
      const input = bytes(`\n${event}${line("", "stop")}data: [DONE]\n\n`)
      const chunks = [input.subarray(0, size), input.subarray(size)]
      for (const [maxEventBytes, error] of [
        [size, undefined],
        [size + 1, undefined],
        [size - 1, "response_limit"],
      ] as const) {
        assert.strictEqual(feed(OpenAiCodec.decoder({ maxEventBytes }), chunks).error, error)
      }
    }
  })

  it("counts the bytes of an open event that holds bytes lenient mode replaces", () => {
    // 0xE2 0x82 is the start of a 3-byte character cut short: one U+FFFD for 2 bytes.
    const data = bytes(line("ab\u0000cd"))
    const at = data.indexOf(0x5c) // the backslash of \u0000
    const event = new Uint8Array([...data.subarray(0, at), 0xe2, 0x82, ...data.subarray(at + 6)])
    const size = event.length
    const input = new Uint8Array([10, ...event, ...bytes(`${line("", "stop")}data: [DONE]\n\n`)])
    const chunks = [input.subarray(0, size), input.subarray(size)]
    for (const [maxEventBytes, error] of [
      [size, undefined],
      [size - 1, "response_limit"],
    ] as const) {
      const outcome = feed(OpenAiCodec.decoder({ maxEventBytes, mode: "lenient" }), chunks)
      assert.strictEqual(outcome.error, error)
      if (error === undefined) assert.strictEqual(outcome.completion?.text, "ab\ufffdcd")
    }
  })

  it("reads the same text after ASCII and after other text", () => {
    const texts = ["ascii only", "слово 🙂", "more ascii", "単語 λέξη", "end"]
    const input = bytes(
      `${texts.map((text) => line(text)).join("")}${line("", "stop")}data: [DONE]\n\n`,
    )
    for (const size of [1, 5, 40, 200, input.length]) {
      const outcome = feed(OpenAiCodec.decoder(), cut(input, size))
      assert.strictEqual(outcome.completion?.text, texts.join(""))
    }
  })
})
