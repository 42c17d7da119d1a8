/**
 * The streams the benchmarks decode: a large one (2,000 text deltas, then 3 parallel calls of
 * 2,000 argument fragments each, about 1.6 MB) and a small typical answer, each in ASCII and in
 * text of several scripts with emoji (2, 3 and 4 bytes a character in UTF-8).
 */
const encoder = new TextEncoder()

const chunk = (delta: unknown, finish: string | null = null): string =>
  `data: ${JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    model: "gpt-bench",
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`

const usage = `data: ${JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion.chunk",
  model: "gpt-bench",
  choices: [],
  usage: { prompt_tokens: 1200, completion_tokens: 8000, total_tokens: 9200 },
})}\n\n`

/** Text in several scripts, with emoji: characters of 2, 3 and 4 bytes (surrogate pairs). */
const unicodeWord = (i: number): string => `${i} слово λέξη كلمة शब्द 単語 단어 🙂🚀, `
const unicodeFragment = (i: number): string => `ü€ ${i} 😀","`

const largeOf = (
  scale: number,
  word: (i: number) => string,
  fragment: (i: number) => string,
): string => {
  const count = 2000 * scale
  const parts: Array<string> = [chunk({ role: "assistant", content: "" })]
  for (let i = 0; i < count; i++) parts.push(chunk({ content: word(i) }))
  for (let call = 0; call < 3; call++) {
    parts.push(
      chunk({
        tool_calls: [
          {
            index: call,
            id: `call_${call}`,
            type: "function",
            function: { name: `tool_${call}`, arguments: "" },
          },
        ],
      }),
    )
  }
  for (let i = 0; i < count; i++) {
    for (let call = 0; call < 3; call++) {
      const piece = i === 0 ? '{"items":["' : i === count - 1 ? `v${i}"]}` : fragment(i)
      parts.push(chunk({ tool_calls: [{ index: call, function: { arguments: piece } }] }))
    }
  }
  parts.push(chunk({}, "tool_calls"), usage, "data: [DONE]\n\n")
  return parts.join("")
}

/** The large stream's text; `scale` 2 makes one twice as long, to check memory is linear. */
export const large = (scale = 1): string =>
  largeOf(
    scale,
    (i) => `word ${i} of the answer, `,
    (i) => `v${i}","`,
  )

/** The large stream with its text and arguments in several scripts, with emoji. */
export const largeUnicode = (scale = 1): string => largeOf(scale, unicodeWord, unicodeFragment)

const smallOf = (words: ReadonlyArray<string>): string => {
  const parts: Array<string> = [chunk({ role: "assistant", content: "" })]
  for (const word of words) parts.push(chunk({ content: `${word} ` }))
  parts.push(chunk({}, "stop"), usage, "data: [DONE]\n\n")
  return parts.join("")
}

/** A small typical answer: a sentence in a dozen deltas. */
export const small = (): string =>
  smallOf("The weather in Paris is mild today, with light wind and a chance of rain.".split(" "))

/** The small answer in several scripts, with emoji. */
export const smallUnicode = (): string =>
  smallOf(Array.from({ length: 15 }, (_, i) => unicodeWord(i).trim()))

/** Cuts bytes into network-sized chunks. */
export const chunked = (text: string, size = 16 * 1024): Array<Uint8Array> => {
  const bytes = encoder.encode(text)
  const chunks: Array<Uint8Array> = []
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size))
  return chunks
}
