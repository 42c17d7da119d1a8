/**
 * The recorded answers the end-to-end benchmark streams: a small typical one (a sentence in a
 * dozen text deltas, then usage and `[DONE]`) and a large one (2,000 text deltas, then 3 parallel
 * calls of 2,000 argument fragments each, about 1.6 MB), shaped as OpenAI streams them.
 */
const event = (body: object): string =>
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", model: "gpt-bench", ...body })}\n\n`

const delta = (content: object, finish: string | null = null): string =>
  event({ choices: [{ index: 0, delta: content, finish_reason: finish }] })

const ending = (finish: string): Array<string> => [
  delta({}, finish),
  event({
    choices: [],
    usage: { prompt_tokens: 1200, completion_tokens: 8000, total_tokens: 9200 },
  }),
  "data: [DONE]\n\n",
]

/** A sentence in a dozen deltas. */
export const small = (): string => {
  const sentence = "The weather in Paris is mild today, with light wind and a chance of rain."
  const words = sentence.split(" ").map((word) => delta({ content: `${word} ` }))
  return [delta({ role: "assistant", content: "" }), ...words, ...ending("stop")].join("")
}

/** 2,000 text deltas, then three tool calls whose arguments come in 2,000 fragments each. */
export const large = (): string => {
  const count = 2000
  const parts = [delta({ role: "assistant", content: "" })]
  for (let i = 0; i < count; i++) parts.push(delta({ content: `word ${i} of the answer, ` }))
  for (let index = 0; index < 3; index++) {
    const call = { index, id: `call_${index}`, type: "function" }
    parts.push(
      delta({ tool_calls: [{ ...call, function: { name: `tool_${index}`, arguments: "" } }] }),
    )
  }
  for (let i = 0; i < count; i++) {
    const fragment = i === 0 ? '{"items":["' : i === count - 1 ? `v${i}"]}` : `v${i}","`
    for (let index = 0; index < 3; index++) {
      parts.push(delta({ tool_calls: [{ index, function: { arguments: fragment } }] }))
    }
  }
  return [...parts, ...ending("tool_calls")].join("")
}
