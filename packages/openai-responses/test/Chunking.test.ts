import { assert, describe } from "@effect/vitest"
import { fc, it } from "@fast-check/vitest"
import { cutAt, feed, joined } from "../../../test/decoding.js"
import { ResponsesCodec } from "../src/index.js"
import { streams } from "./support/recordings.js"

/** Every streamed recording: each `.sse` file, and each chunks file in both framings. */
const recordings = streams()
const utf8 = new TextEncoder()

const modes = ["strict", "lenient"] as const
const recorded = recordings.flatMap((recording) => modes.map((mode) => ({ ...recording, mode })))

const decodeIn = (mode: "strict" | "lenient", chunks: Iterable<Uint8Array>) =>
  feed(ResponsesCodec.decoder({ mode }), chunks)

/** The byte offsets that fall inside a character of more than one byte. */
const insideCharacters = (bytes: Uint8Array): Array<number> => {
  const inside: Array<number> = []
  for (let i = 1; i < bytes.length; i++) if ((bytes[i]! & 0xc0) === 0x80) inside.push(i)
  return inside
}

const withCrlf = (bytes: Uint8Array): Uint8Array =>
  utf8.encode(new TextDecoder().decode(bytes).replaceAll("\n", "\r\n"))

/** D15, D21: what strict mode refuses of the recordings; lenient mode reads them all. */
const refusedInStrictMode: Record<string, string> = {
  // Anonymized: the text deltas ("X") are not the text of the item done.
  "vercel/azure-gpt5-reasoning-multi-summary-no-encryption.chunks.txt": "Protocol",
  "vercel/azure-gpt5-reasoning-multi-summary-with-encryption.chunks.txt": "Protocol",
  // The built-in web search's items.
  "vercel/openai-web-search-tool.1.chunks.txt": "Unsupported",
}

/** The recordings of errors, with the kind each one's error stands for (D22). */
const errors: Record<string, string> = {
  "prism/stream-rate-limited-1.sse": "RateLimited",
  "vercel/openai-error-null-code.1.chunks.txt": "Transport",
  "vercel/openai-error-null-code.chunks.txt": "Transport",
  "vercel/openai-error.1.chunks.txt": "Authentication",
  "vercel/openai-response-failed-only.1.chunks.txt": "RateLimited",
}

describe("the recordings", () => {
  it("every recording is read, in both modes", () => {
    assert.isAtLeast(recordings.length, 20)
  })

  it("each gives its answer, or the error its server sent, or what strict mode refuses", () => {
    for (const { name, bytes, mode } of recorded) {
      const file = name.replace(/ \(.*\)$/, "")
      const outcome = decodeIn(mode, [bytes])
      const expected = errors[file] ?? (mode === "strict" ? refusedInStrictMode[file] : undefined)
      assert.strictEqual(outcome.error?.reason._tag, expected, `${name} in ${mode} mode`)
      if (expected === undefined) assert.isDefined(outcome.completion, name)
    }
  })
})

describe("chunking", () => {
  it.prop([fc.constantFrom(...recorded), fc.array(fc.nat(), { maxLength: 60 })], { numRuns: 400 })(
    "random chunkings of every recording give the outcome of the whole input",
    ({ bytes, mode }, points) => {
      assert.deepStrictEqual(decodeIn(mode, cutAt(bytes, points)), decodeIn(mode, [bytes]))
    },
  )

  const multibyte = recorded.filter(({ bytes }) => insideCharacters(bytes).length > 0)

  it("some recordings hold characters of more than one byte", () => {
    assert.isAtLeast(multibyte.length, 4)
  })

  it.prop([fc.constantFrom(...multibyte), fc.array(fc.nat(), { minLength: 1, maxLength: 20 })], {
    numRuns: 200,
  })("cuts inside a character change nothing", ({ bytes, mode }, picks) => {
    const inside = insideCharacters(bytes)
    const points = picks.map((pick) => inside[pick % inside.length]!)
    assert.deepStrictEqual(decodeIn(mode, cutAt(bytes, points)), decodeIn(mode, [bytes]))
  })

  it.prop([fc.constantFrom(...recorded), fc.array(fc.nat(), { maxLength: 30 })], { numRuns: 200 })(
    "CRLF line ends give the outcome of LF ones, however cut",
    ({ bytes, mode }, points) => {
      assert.deepStrictEqual(
        decodeIn(mode, cutAt(withCrlf(bytes), points)),
        decodeIn(mode, [bytes]),
      )
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
      // D15: lenient mode keeps an item whose pieces disagreed, and says so.
      if (done.notes?.some((note) => note.startsWith("the streamed pieces"))) return
      const pieces = joined(outcome.events)
      assert.strictEqual(pieces.text, done.text)
      assert.strictEqual(pieces.reasoning, done.reasoning)
      assert.strictEqual(pieces.refusal, done.refusal)
      if (done.finish === "tool_calls") assert.deepStrictEqual(pieces.calls, done.calls)
    },
  )
})
