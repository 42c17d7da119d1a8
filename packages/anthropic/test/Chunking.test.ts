import { assert, describe } from "@effect/vitest"
import { fc, it } from "@fast-check/vitest"
import { cutAt, feed, joined } from "../../../test/decoding.js"
import { AnthropicCodec } from "../src/index.js"
import { streams } from "./support/recordings.js"

const modes = ["strict", "lenient"] as const
const recorded = streams().flatMap((recording) => modes.map((mode) => ({ ...recording, mode })))

const decodeIn = (mode: "strict" | "lenient", chunks: Iterable<Uint8Array>) =>
  feed(AnthropicCodec.decoder({ mode }), chunks)

/** The byte offsets that fall inside a character of more than one byte. */
const insideCharacters = (bytes: Uint8Array): Array<number> => {
  const inside: Array<number> = []
  for (let i = 1; i < bytes.length; i++) if ((bytes[i]! & 0xc0) === 0x80) inside.push(i)
  return inside
}

const withCrlf = (bytes: Uint8Array): Uint8Array =>
  new TextEncoder().encode(new TextDecoder().decode(bytes).replaceAll("\n", "\r\n"))

describe("chunking", () => {
  it("every recording is read, in both modes", () => {
    assert.isAtLeast(recorded.length, 2 * 30)
  })

  it.prop([fc.constantFrom(...recorded), fc.array(fc.nat(), { maxLength: 60 })], { numRuns: 600 })(
    "random chunkings of every recording give the outcome of the whole input",
    ({ bytes, mode }, points) => {
      const whole = decodeIn(mode, [bytes])
      const cut = decodeIn(mode, cutAt(bytes, points))
      assert.deepStrictEqual(cut, whole)
    },
  )

  const multibyte = recorded.filter(({ bytes }) => insideCharacters(bytes).length > 0)

  it("some recordings hold characters of more than one byte", () => {
    assert.isAtLeast(multibyte.length, 4)
  })

  it.prop([fc.constantFrom(...multibyte), fc.array(fc.nat(), { minLength: 1, maxLength: 20 })], {
    numRuns: 300,
  })("cuts inside a character change nothing", ({ bytes, mode }, picks) => {
    const inside = insideCharacters(bytes)
    const points = picks.map((pick) => inside[pick % inside.length]!)
    assert.deepStrictEqual(decodeIn(mode, cutAt(bytes, points)), decodeIn(mode, [bytes]))
  })

  it.prop([fc.constantFrom(...recorded), fc.array(fc.nat(), { maxLength: 30 })], { numRuns: 300 })(
    "CRLF line ends give the outcome of LF ones, however cut",
    ({ bytes, mode }, points) => {
      const crlf = withCrlf(bytes)
      assert.deepStrictEqual(decodeIn(mode, cutAt(crlf, points)), decodeIn(mode, [bytes]))
    },
  )

  it.prop([fc.constantFrom(...recorded)])(
    "one byte at a time gives the whole input's outcome",
    ({ bytes, mode }) => {
      const bytewise = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))
      assert.deepStrictEqual(decodeIn(mode, bytewise), decodeIn(mode, [bytes]))
    },
  )

  it.prop([fc.constantFrom(...recorded)])(
    "the deltas add up to the completion, which comes last",
    ({ bytes, mode }) => {
      const outcome = decodeIn(mode, [bytes])
      const completed = outcome.events.filter((event) => event._tag === "Completed")
      if (outcome.error !== undefined) {
        assert.strictEqual(completed.length, 0, "an answer that failed released a completion")
        return
      }
      assert.strictEqual(completed.length, 1)
      assert.strictEqual(outcome.events.at(-1)?._tag, "Completed")
      const done = outcome.completion!
      const pieces = joined(outcome.events)
      assert.strictEqual(pieces.text, done.text)
      assert.strictEqual(pieces.reasoning, done.reasoning)
      assert.strictEqual(pieces.refusal, done.refusal)
      // Released calls are the pieces' calls; a call that was not released was still shown.
      for (const call of done.calls)
        assert.isTrue(pieces.calls.some((piece) => JSON.stringify(piece) === JSON.stringify(call)))
      if (done.finish === "tool_calls") assert.deepStrictEqual(pieces.calls, done.calls)
    },
  )
})
