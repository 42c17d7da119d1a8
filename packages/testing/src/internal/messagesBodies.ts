// A reply as Anthropic's Messages API gives it, for a client that posts to `/v1/messages`: the
// same resolved reply as Chat Completions, in the Messages shapes of the API's documentation
// (thinking, text and `tool_use` blocks; `message_start` to `message_stop` when streamed).
import type * as Answer from "../Answer.js"
import { pieces, type Resolved } from "./chatBodies.js"

/** Chat Completions' finish reasons as Messages stop reasons; any other is sent as it is. */
const stopReasons: Readonly<Record<string, string>> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
}

const stopReason = (finish: string): string => stopReasons[finish] ?? finish

/** The signature a scripted thinking block carries, which a client must send back unchanged. */
const signature = "scripted-signature"

/** Arguments as a `tool_use` block's `input`: the object, or `{}` for arguments left blank. */
const input = (args: string): unknown => {
  if (args.trim() === "") return {}
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

const blocks = (reply: Resolved): ReadonlyArray<Record<string, unknown>> => [
  ...(reply.reasoning === "" ? [] : [{ type: "thinking", thinking: reply.reasoning, signature }]),
  ...(reply.text === "" ? [] : [{ type: "text", text: reply.text }]),
  ...reply.calls.map((call) => ({
    type: "tool_use",
    id: call.id,
    name: call.name,
    input: input(call.args),
  })),
]

/** The whole, non-streamed body of a Messages answer. */
export const messageJson = (reply: Resolved): string =>
  JSON.stringify({
    id: reply.id,
    type: "message",
    role: "assistant",
    model: reply.model,
    content: blocks(reply),
    stop_reason: stopReason(reply.finish),
    stop_sequence: null,
    usage: { input_tokens: reply.usage.input, output_tokens: reply.usage.output },
  })

/** One streamed event: its `event:` type and its data. */
export interface StreamEvent {
  readonly type: string
  readonly data: string
}

/** Every event of a streamed Messages answer, in order. */
export const streamEvents = (reply: Resolved): ReadonlyArray<StreamEvent> => {
  const events: Array<StreamEvent> = []
  const push = (body: Record<string, unknown>) =>
    events.push({ type: String(body.type), data: JSON.stringify(body) })
  push({
    type: "message_start",
    message: {
      id: reply.id,
      type: "message",
      role: "assistant",
      model: reply.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: reply.usage.input, output_tokens: 1 },
    },
  })
  let index = 0
  const block = (
    start: Record<string, unknown>,
    deltas: ReadonlyArray<Record<string, unknown>>,
  ): void => {
    push({ type: "content_block_start", index, content_block: start })
    for (const delta of deltas) push({ type: "content_block_delta", index, delta })
    push({ type: "content_block_stop", index })
    index += 1
  }
  if (reply.reasoning !== "") {
    block({ type: "thinking", thinking: "", signature: "" }, [
      ...pieces(reply.reasoning, reply.chunkSize).map((thinking) => ({
        type: "thinking_delta",
        thinking,
      })),
      { type: "signature_delta", signature },
    ])
  }
  if (reply.text !== "") {
    block(
      { type: "text", text: "" },
      pieces(reply.text, reply.chunkSize).map((text) => ({ type: "text_delta", text })),
    )
  }
  for (const call of reply.calls) {
    block(
      { type: "tool_use", id: call.id, name: call.name, input: {} },
      pieces(call.args, reply.chunkSize).map((partial_json) => ({
        type: "input_json_delta",
        partial_json,
      })),
    )
  }
  push({
    type: "message_delta",
    delta: { stop_reason: stopReason(reply.finish), stop_sequence: null },
    usage: { output_tokens: reply.usage.output },
  })
  push({ type: "message_stop" })
  return events
}

/** One Server-Sent Event with its type, with the line ending the quirks ask for. */
export const sseEvent = (event: StreamEvent, quirks: Answer.Quirks): string => {
  const end = quirks.crlf ? "\r\n" : "\n"
  return `event: ${event.type}${end}data: ${event.data}${end}${end}`
}
