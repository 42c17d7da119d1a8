// A reply as OpenAI's Responses API gives it, for a client that posts to `/v1/responses`: the same
// resolved reply as Chat Completions, as output items (reasoning, message, function calls) in the
// shapes of OpenAI's recorded answers and of the Open Responses description (DECISIONS.md D1).
import type * as Answer from "../Answer.js"
import { pieces, type Resolved } from "./chatBodies.js"

/** What the request asked for that the response object echoes, as OpenAI's does. */
export interface RequestEcho {
  readonly body: Readonly<Record<string, unknown>>
  /** The reasoning item carries `encrypted_content` (the request's `include` asked for it). */
  readonly encryptedReasoning: boolean
}

/** The opaque reasoning state a scripted reasoning item carries, which a client sends back as is. */
const encryptedContent = "scripted-encrypted-reasoning"

/** Reads the parts of a request body that shape a Responses answer. */
export const requestEcho = (body: Readonly<Record<string, unknown>>): RequestEcho => ({
  body,
  encryptedReasoning:
    Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content"),
})

/** Why a response is incomplete, for the finish reasons that make it so. */
const incompleteReasons: Readonly<Record<string, string>> = {
  length: "max_output_tokens",
  content_filter: "content_filter",
}

const estimateTokens = (text: string): number => Math.ceil(text.length / 4)

const usageJson = (reply: Resolved) => ({
  input_tokens: reply.usage.input,
  // `cache_write_tokens` as OpenAI's newer answers carry it (the issue-19493 recording, D1).
  input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
  output_tokens: reply.usage.output,
  // The script gives input and output only; the reasoning's share is its length, within output.
  output_tokens_details: {
    reasoning_tokens: Math.min(estimateTokens(reply.reasoning), reply.usage.output),
  },
  total_tokens: reply.usage.input + reply.usage.output,
})

/** An output item and the events that stream it, between `added` and `done`. */
interface Item {
  readonly id: string
  readonly added: Record<string, unknown>
  readonly done: Record<string, unknown>
  readonly events: ReadonlyArray<Record<string, unknown>>
}

const reasoningItem = (reply: Resolved, echo: RequestEcho, id: string): Item => {
  const encrypted = echo.encryptedReasoning ? { encrypted_content: encryptedContent } : {}
  const part = { type: "summary_text", text: reply.reasoning }
  const at = { item_id: id, summary_index: 0 }
  return {
    id,
    added: { id, type: "reasoning", ...encrypted, summary: [] },
    done: { id, type: "reasoning", ...encrypted, summary: [part] },
    events: [
      { type: "response.reasoning_summary_part.added", ...at, part: { ...part, text: "" } },
      ...pieces(reply.reasoning, reply.chunkSize).map((delta) => ({
        type: "response.reasoning_summary_text.delta",
        ...at,
        delta,
      })),
      { type: "response.reasoning_summary_text.done", ...at, text: reply.reasoning },
      { type: "response.reasoning_summary_part.done", ...at, part },
    ],
  }
}

const messageItem = (reply: Resolved, id: string, status: string): Item => {
  const part = { type: "output_text", annotations: [], logprobs: [], text: reply.text }
  const at = { item_id: id, content_index: 0 }
  const message = { id, type: "message", role: "assistant" }
  return {
    id,
    added: { ...message, status: "in_progress", content: [] },
    done: { ...message, status, content: [part] },
    events: [
      { type: "response.content_part.added", ...at, part: { ...part, text: "" } },
      ...pieces(reply.text, reply.chunkSize).map((delta) => ({
        type: "response.output_text.delta",
        ...at,
        delta,
        logprobs: [],
      })),
      { type: "response.output_text.done", ...at, text: reply.text, logprobs: [] },
      { type: "response.content_part.done", ...at, part },
    ],
  }
}

const functionCallItem = (
  call: Resolved["calls"][number],
  id: string,
  status: string,
  chunkSize: number,
): Item => {
  const item = { id, type: "function_call", call_id: call.id, name: call.name }
  return {
    id,
    added: { ...item, status: "in_progress", arguments: "" },
    done: { ...item, status, arguments: call.args },
    events: [
      ...pieces(call.args, chunkSize).map((delta) => ({
        type: "response.function_call_arguments.delta",
        item_id: id,
        delta,
      })),
      { type: "response.function_call_arguments.done", item_id: id, arguments: call.args },
    ],
  }
}

/**
 * The output items of a reply, in the order a model writes them: reasoning, the message, then the
 * calls. A reply with neither text nor calls still has its (empty) message. When the response is
 * incomplete, its last item is the one cut short.
 */
const items = (reply: Resolved, echo: RequestEcho): ReadonlyArray<Item> => {
  const incomplete = incompleteReasons[reply.finish] !== undefined
  const hasMessage = reply.text !== "" || reply.calls.length === 0
  const count = (reply.reasoning === "" ? 0 : 1) + (hasMessage ? 1 : 0) + reply.calls.length
  const out: Array<Item> = []
  const status = () => (incomplete && out.length === count - 1 ? "incomplete" : "completed")
  const itemId = (prefix: string) => `${prefix}_${reply.id.replace(/^resp_/, "")}_${out.length}`
  if (reply.reasoning !== "") out.push(reasoningItem(reply, echo, itemId("rs")))
  if (hasMessage) out.push(messageItem(reply, itemId("msg"), status()))
  for (const call of reply.calls) {
    out.push(functionCallItem(call, itemId("fc"), status(), reply.chunkSize))
  }
  return out
}

const objectAt = (body: Readonly<Record<string, unknown>>, key: string): object => {
  const value = body[key]
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {}
}

const echoed = (
  body: Readonly<Record<string, unknown>>,
  key: string,
  fallback: unknown,
): unknown => (body[key] === undefined ? fallback : body[key])

/** The response object: what the whole answer is, and what lifecycle events carry. */
const responseObject = (
  reply: Resolved,
  echo: RequestEcho,
  state: {
    readonly status: string
    readonly output: ReadonlyArray<Record<string, unknown>>
    readonly finished: boolean
  },
) => {
  const { body } = echo
  const reason = incompleteReasons[reply.finish]
  return {
    id: reply.id,
    object: "response",
    created_at: reply.created,
    status: state.status,
    background: false,
    completed_at: state.status === "completed" ? reply.created : null,
    error: null,
    frequency_penalty: 0,
    incomplete_details: state.finished && reason !== undefined ? { reason } : null,
    instructions: echoed(body, "instructions", null),
    max_output_tokens: echoed(body, "max_output_tokens", null),
    max_tool_calls: echoed(body, "max_tool_calls", null),
    model: reply.model,
    output: state.output,
    parallel_tool_calls: echoed(body, "parallel_tool_calls", true),
    presence_penalty: 0,
    previous_response_id: echoed(body, "previous_response_id", null),
    prompt_cache_key: echoed(body, "prompt_cache_key", null),
    reasoning: { effort: null, summary: null, ...objectAt(body, "reasoning") },
    safety_identifier: null,
    service_tier: "default",
    store: echoed(body, "store", true),
    temperature: echoed(body, "temperature", 1),
    text: { format: { type: "text" }, verbosity: "medium", ...objectAt(body, "text") },
    tool_choice: echoed(body, "tool_choice", "auto"),
    tools: echoed(body, "tools", []),
    top_logprobs: 0,
    top_p: echoed(body, "top_p", 1),
    truncation: "disabled",
    usage: state.finished ? usageJson(reply) : null,
    user: null,
    metadata: echoed(body, "metadata", {}),
  }
}

const finalStatus = (reply: Resolved): string =>
  incompleteReasons[reply.finish] === undefined ? "completed" : "incomplete"

/** The whole, non-streamed body of a Responses answer. */
export const responseJson = (reply: Resolved, echo: RequestEcho): string =>
  JSON.stringify(
    responseObject(reply, echo, {
      status: finalStatus(reply),
      output: items(reply, echo).map((item) => item.done),
      finished: true,
    }),
  )

/** One streamed event: its `event:` type and its data. */
export interface StreamEvent {
  readonly type: string
  readonly data: string
}

/**
 * Every event of a streamed Responses answer, in order, numbered by `sequence_number` from 0:
 * `response.created`, `response.in_progress`, each item from `output_item.added` to
 * `output_item.done`, then `response.completed` (or `response.incomplete`).
 */
export const streamEvents = (reply: Resolved, echo: RequestEcho): ReadonlyArray<StreamEvent> => {
  const events: Array<StreamEvent> = []
  const push = (body: Record<string, unknown>) => {
    const { type, ...rest } = body
    events.push({
      type: String(type),
      data: JSON.stringify({ type, sequence_number: events.length, ...rest }),
    })
  }
  const pending = { output: [], finished: false }
  push({
    type: "response.created",
    response: responseObject(reply, echo, { status: "in_progress", ...pending }),
  })
  push({
    type: "response.in_progress",
    response: responseObject(reply, echo, { status: "in_progress", ...pending }),
  })
  const output = items(reply, echo)
  output.forEach((item, output_index) => {
    push({ type: "response.output_item.added", output_index, item: item.added })
    for (const { type, item_id, ...rest } of item.events) {
      push({ type, item_id, output_index, ...rest })
    }
    push({ type: "response.output_item.done", output_index, item: item.done })
  })
  const status = finalStatus(reply)
  push({
    type: status === "completed" ? "response.completed" : "response.incomplete",
    response: responseObject(reply, echo, {
      status,
      output: output.map((item) => item.done),
      finished: true,
    }),
  })
  return events
}

/** One Server-Sent Event with its type, with the line ending and comments the quirks ask for. */
export const sseEvent = (event: StreamEvent, quirks: Answer.Quirks): string => {
  const end = quirks.crlf ? "\r\n" : "\n"
  const keepAlive = quirks.keepAliveComments ? `: keep-alive${end}${end}` : ""
  return `${keepAlive}event: ${event.type}${end}data: ${event.data}${end}${end}`
}
