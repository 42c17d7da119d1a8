/**
 * The Responses streams the benchmarks read, framed as the API frames them (`event:` then
 * `data:`), with the fields, field order and extras (`obfuscation`, `logprobs`,
 * `sequence_number`, the whole response again in `response.completed`) of vercel/ai's recordings
 * (`packages/openai/src/responses/__fixtures__`: `openai-reasoning-encrypted-content.1`,
 * `issue-19493-gpt-5.1-tool-call`, `issue-20047-openai-responses`):
 *
 * - `small`: a short answer in 15 text deltas, as `issue-20047` streams its one.
 * - `large`: a reasoning item with three summary parts (1,200 deltas) and its encrypted content,
 *   a message of 2,000 text deltas, then three function calls, each with arguments in 2,000
 *   deltas (about 3.7 MB).
 */
const encoder = new TextEncoder()

type Json = { readonly [key: string]: unknown }

const event = (data: Json): string =>
  `event: ${data.type as string}\ndata: ${JSON.stringify(data)}\n\n`

const model = "gpt-5.1-2025-11-13"
const responseId = "resp_0775572d10a16b66006a8d85285ef487d2ae865d3657af7276"

const writeFile = {
  type: "function",
  description: "Write a file at a path, line by line.",
  name: "write_file",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string" },
      lines: { type: "array", items: { type: "string" } },
    },
    required: ["path", "lines"],
    additionalProperties: false,
  },
  strict: true,
}

/** The response object every lifecycle event carries, as gpt-5.1 sends it. */
const response = (
  status: string,
  output: ReadonlyArray<Json>,
  usage: Json | null,
  tools: ReadonlyArray<Json>,
): Json => ({
  id: responseId,
  object: "response",
  created_at: 1787659560,
  status,
  background: false,
  completed_at: status === "completed" ? 1787659561 : null,
  error: null,
  frequency_penalty: 0,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  max_tool_calls: null,
  model,
  moderation: null,
  output,
  parallel_tool_calls: true,
  presence_penalty: 0,
  previous_response_id: null,
  prompt_cache_key: null,
  prompt_cache_retention: "in_memory",
  reasoning: { context: "current_turn", effort: "high", mode: "standard", summary: "detailed" },
  safety_identifier: null,
  service_tier: status === "completed" ? "default" : "auto",
  store: false,
  temperature: 1,
  text: { format: { type: "text" }, verbosity: "medium" },
  tool_choice: "auto",
  tools,
  top_logprobs: 0,
  top_p: 1,
  truncation: "disabled",
  usage,
  user: null,
  metadata: {},
})

/** Writes a stream's events, numbering them as the server does. */
class Writer {
  private readonly parts: Array<string> = []
  private sequence = 0

  add(data: Json): void {
    this.parts.push(event({ ...data, sequence_number: this.sequence++ }))
  }

  text(): string {
    return this.parts.join("")
  }
}

/** An obfuscation field's value: padding the server adds so that every delta's length varies. */
const obfuscation = (i: number): string => "H2d0mf8T42i5Ya".slice(0, 4 + (i % 10))

const messageItem = (id: string, status: string, text: string | undefined): Json => ({
  id,
  type: "message",
  status,
  content: text === undefined ? [] : [{ type: "output_text", annotations: [], logprobs: [], text }],
  role: "assistant",
})

/** A message item streamed in `deltas`, at `output_index`. */
const streamMessage = (
  writer: Writer,
  outputIndex: number,
  id: string,
  deltas: ReadonlyArray<string>,
): Json => {
  writer.add({
    type: "response.output_item.added",
    item: messageItem(id, "in_progress", undefined),
    output_index: outputIndex,
  })
  writer.add({
    type: "response.content_part.added",
    content_index: 0,
    item_id: id,
    output_index: outputIndex,
    part: { type: "output_text", annotations: [], logprobs: [], text: "" },
  })
  for (const [i, delta] of deltas.entries()) {
    writer.add({
      type: "response.output_text.delta",
      content_index: 0,
      delta,
      item_id: id,
      logprobs: [],
      obfuscation: obfuscation(i),
      output_index: outputIndex,
    })
  }
  const text = deltas.join("")
  writer.add({
    type: "response.output_text.done",
    content_index: 0,
    item_id: id,
    logprobs: [],
    output_index: outputIndex,
    text,
  })
  writer.add({
    type: "response.content_part.done",
    content_index: 0,
    item_id: id,
    output_index: outputIndex,
    part: { type: "output_text", annotations: [], logprobs: [], text },
  })
  const done = messageItem(id, "completed", text)
  writer.add({ type: "response.output_item.done", item: done, output_index: outputIndex })
  return done
}

/** A reasoning item with one summary part per entry of `parts`, each streamed in its deltas. */
const streamReasoning = (
  writer: Writer,
  outputIndex: number,
  id: string,
  parts: ReadonlyArray<ReadonlyArray<string>>,
  encrypted: string,
): Json => {
  writer.add({
    type: "response.output_item.added",
    item: { id, type: "reasoning", encrypted_content: encrypted, summary: [] },
    output_index: outputIndex,
  })
  const summary: Array<Json> = []
  for (const [summaryIndex, deltas] of parts.entries()) {
    writer.add({
      type: "response.reasoning_summary_part.added",
      item_id: id,
      output_index: outputIndex,
      part: { type: "summary_text", text: "" },
      summary_index: summaryIndex,
    })
    for (const [i, delta] of deltas.entries()) {
      writer.add({
        type: "response.reasoning_summary_text.delta",
        delta,
        item_id: id,
        obfuscation: obfuscation(i),
        output_index: outputIndex,
        summary_index: summaryIndex,
      })
    }
    const text = deltas.join("")
    writer.add({
      type: "response.reasoning_summary_text.done",
      item_id: id,
      output_index: outputIndex,
      summary_index: summaryIndex,
      text,
    })
    const part = { type: "summary_text", text }
    writer.add({
      type: "response.reasoning_summary_part.done",
      item_id: id,
      output_index: outputIndex,
      part,
      summary_index: summaryIndex,
    })
    summary.push(part)
  }
  const done = { id, type: "reasoning", encrypted_content: encrypted, summary }
  writer.add({ type: "response.output_item.done", item: done, output_index: outputIndex })
  return done
}

/** A function call whose arguments come in `deltas`. */
const streamCall = (
  writer: Writer,
  outputIndex: number,
  id: string,
  callId: string,
  name: string,
  deltas: ReadonlyArray<string>,
): Json => {
  const item = (status: string, args: string) => ({
    id,
    type: "function_call",
    status,
    arguments: args,
    call_id: callId,
    name,
  })
  writer.add({
    type: "response.output_item.added",
    item: item("in_progress", ""),
    output_index: outputIndex,
  })
  for (const [i, delta] of deltas.entries()) {
    writer.add({
      type: "response.function_call_arguments.delta",
      delta,
      item_id: id,
      obfuscation: obfuscation(i),
      output_index: outputIndex,
    })
  }
  const args = deltas.join("")
  writer.add({
    type: "response.function_call_arguments.done",
    arguments: args,
    item_id: id,
    output_index: outputIndex,
  })
  const done = item("completed", args)
  writer.add({ type: "response.output_item.done", item: done, output_index: outputIndex })
  return done
}

/** A whole stream: `response.created`, `in_progress`, the items `body` writes, `completed`. */
const streamOf = (
  tools: ReadonlyArray<Json>,
  usage: Json,
  body: (writer: Writer) => ReadonlyArray<Json>,
): string => {
  const writer = new Writer()
  writer.add({ type: "response.created", response: response("in_progress", [], null, tools) })
  writer.add({ type: "response.in_progress", response: response("in_progress", [], null, tools) })
  const output = body(writer)
  writer.add({ type: "response.completed", response: response("completed", output, usage, tools) })
  return writer.text()
}

/** The words of the small answer, one delta each. */
const smallWords =
  "The weather in Paris is mild today, with light wind and a chance of rain.".split(" ")

/** The small answer: a sentence in a dozen deltas. */
export const small = (): string =>
  streamOf(
    [],
    {
      input_tokens: 12,
      input_tokens_details: { cache_write_tokens: 0, cached_tokens: 0 },
      output_tokens: 16,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 28,
    },
    (writer) => [
      streamMessage(
        writer,
        0,
        "msg_0775572d10a16b66006a8d8528e8a887d2a32ef76463d40c98",
        smallWords.map((word, i) => (i === 0 ? word : ` ${word}`)),
      ),
    ],
  )

/** Encrypted reasoning content, as long as gpt-5.1-codex-max's (about 1.2 kB of base64url). */
const encrypted = `gAAAAABpPDIVOKrsHNZ0Gwso${"EKA_IGfuJ5f8Ma_6-EojH4yZFL50qlfUzM7FREdQlpkqlnIHLRx2YJxZfzvbnc0E".repeat(20)}==`

/** A word of the reasoning's summary. */
const reasoningWord = (i: number): string => (i === 0 ? "**Planning" : ` step ${i} of the plan,`)
/** A word of the message's text. */
const textWord = (i: number): string => ` word ${i} of the answer,`
/** The pieces of one call's arguments: a file of `count` lines, with quotes to unescape. */
const argumentPieces = (count: number): ReadonlyArray<string> =>
  Array.from({ length: count }, (_, i) =>
    i === 0
      ? '{"path":"notes.md","lines":["'
      : i === count - 1
        ? `end"]}`
        : `line ${i} of the file, \\"quoted\\"","`,
  )

/** The large answer: reasoning in three summary parts, a long text, three long calls. */
export const large = (): string =>
  streamOf(
    [writeFile],
    {
      input_tokens: 1200,
      input_tokens_details: { cache_write_tokens: 0, cached_tokens: 1024 },
      output_tokens: 40000,
      output_tokens_details: { reasoning_tokens: 4000 },
      total_tokens: 41200,
    },
    (writer) => {
      const output: Array<Json> = []
      output.push(
        streamReasoning(
          writer,
          0,
          "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9",
          [0, 1, 2].map(() => Array.from({ length: 400 }, (_, i) => reasoningWord(i))),
          encrypted,
        ),
      )
      output.push(
        streamMessage(
          writer,
          1,
          "msg_01830d662ab3856501693c32151234819091cfca267e98cc5f",
          Array.from({ length: 2000 }, (_, i) => textWord(i)),
        ),
      )
      for (let call = 0; call < 3; call++) {
        output.push(
          streamCall(
            writer,
            2 + call,
            `fc_01830d662ab3856501693c3215123481909${call}cfca267e98cc5f`,
            `call_AB6AaRZ1FYZB2RwS6A5vbdq${call}`,
            "write_file",
            argumentPieces(2000),
          ),
        )
      }
      return output
    },
  )

/** The stream's bytes in pieces of `size` bytes, as a socket gives them. */
export const chunked = (text: string, size = 16 * 1024): ReadonlyArray<Uint8Array> => {
  const bytes = encoder.encode(text)
  const chunks: Array<Uint8Array> = []
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size))
  return chunks
}
