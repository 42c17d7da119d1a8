/**
 * The Messages streams the decoding benchmark reads, framed as the API frames them (`event:`
 * then `data:`): a small answer (vercel/ai's recorded `anthropic-text`), a long text (3,000 text
 * deltas, about 0.5 MB) and a call whose input is long JSON (a short text, then 3,000
 * `input_json_delta` pieces).
 */
import { readFileSync } from "node:fs"

const encoder = new TextEncoder()

const event = (data: unknown): string =>
  `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`

const start = event({
  type: "message_start",
  message: {
    model: "claude-sonnet-4-5-20250929",
    id: "msg_01BenchBenchBenchBenchBen",
    type: "message",
    role: "assistant",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: {
      input_tokens: 1200,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 1000,
      output_tokens: 1,
      service_tier: "standard",
    },
  },
})

const end = (reason: string, output: number): string =>
  event({
    type: "message_delta",
    delta: { stop_reason: reason, stop_sequence: null },
    usage: {
      input_tokens: 1200,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 1000,
      output_tokens: output,
    },
  }) + event({ type: "message_stop" })

const textDelta = (index: number, text: string): string =>
  event({ type: "content_block_delta", index, delta: { type: "text_delta", text } })

/** The small answer: vercel/ai's recorded anthropic-text stream, framed as the API frames it. */
export const small = (): string =>
  readFileSync(
    new URL(
      "../../conformance/cases/anthropic/recordings/vercel/anthropic-text.chunks.txt",
      import.meta.url,
    ),
    "utf8",
  )
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join("")

/** A long text in 3,000 deltas; `word` makes each one's text. */
const longTextOf = (word: (i: number) => string): string => {
  const parts = [
    start,
    event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  ]
  for (let i = 0; i < 3000; i++) parts.push(textDelta(0, word(i)))
  parts.push(event({ type: "content_block_stop", index: 0 }), end("end_turn", 9000))
  return parts.join("")
}

export const longText = (): string => longTextOf((i) => ` word ${i}, and some more text to read,`)

/** Text in several scripts, with emoji: characters of 2, 3 and 4 bytes. */
export const longUnicode = (): string =>
  longTextOf((i) => ` ${i} слово λέξη كلمة शब्द 単語 단어 🙂🚀,`)

/** A short text, then a call whose input comes in 3,000 pieces. */
export const longToolInput = (): string => {
  const parts = [
    start,
    event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    textDelta(0, "I'll write the file."),
    event({ type: "content_block_stop", index: 0 }),
    event({
      type: "content_block_start",
      index: 1,
      content_block: {
        type: "tool_use",
        id: "toolu_01BenchBenchBenchBench",
        name: "write_file",
        input: {},
      },
    }),
  ]
  const piece = (partial_json: string) =>
    event({
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json },
    })
  parts.push(piece('{"path": "notes.md", "lines": ["'))
  for (let i = 0; i < 3000; i++) parts.push(piece(`line ${i} of the file, \\"quoted\\"", "`))
  parts.push(
    piece('end"]}'),
    event({ type: "content_block_stop", index: 1 }),
    end("tool_use", 12000),
  )
  return parts.join("")
}

/** The stream's bytes in pieces of `size` bytes, as a socket gives them. */
export const chunked = (text: string, size = 16 * 1024): ReadonlyArray<Uint8Array> => {
  const bytes = encoder.encode(text)
  const chunks: Array<Uint8Array> = []
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size))
  return chunks
}
