import type * as Answer from "../Answer.js"

/** A reply with everything the wire needs decided: ids, arguments, finish reason, usage. */
export interface Resolved {
  readonly id: string
  readonly model: string
  readonly created: number
  readonly text: string
  readonly reasoning: string
  readonly calls: ReadonlyArray<{
    readonly id: string
    readonly name: string
    readonly args: string
  }>
  readonly finish: string
  readonly usage: { readonly input: number; readonly output: number }
  readonly chunkSize: number
  readonly quirks: Answer.Quirks
}

const estimateTokens = (text: string): number => Math.ceil(text.length / 4)

export const resolve = (
  reply: Answer.Reply,
  context: {
    readonly id: string
    readonly model: string
    readonly requestText: string
    readonly chunkSize: number
    readonly quirks: Answer.Quirks
    readonly nextCallId: () => string
  },
): Resolved => {
  const calls = reply.calls.map((call) => ({
    id: call.id ?? context.nextCallId(),
    name: call.name,
    args:
      call.arguments === undefined
        ? "{}"
        : typeof call.arguments === "string"
          ? call.arguments
          : JSON.stringify(call.arguments),
  }))
  const written = reply.text + reply.reasoning + calls.map((call) => call.args).join("")
  return {
    id: context.id,
    model: context.model,
    created: Math.floor(Date.now() / 1000),
    text: reply.text,
    reasoning: reply.reasoning,
    calls,
    finish: reply.options.finish ?? (calls.length > 0 ? "tool_calls" : "stop"),
    usage: reply.options.usage ?? {
      input: estimateTokens(context.requestText),
      output: estimateTokens(written),
    },
    chunkSize: Math.max(1, reply.options.chunkSize ?? context.chunkSize),
    quirks: { ...context.quirks, ...reply.options.quirks },
  }
}

const usageJson = (usage: Resolved["usage"]) => ({
  prompt_tokens: usage.input,
  completion_tokens: usage.output,
  total_tokens: usage.input + usage.output,
})

/** Arguments as the quirks want them on the wire: a string, or the parsed object. */
const wireArguments = (args: string, quirks: Answer.Quirks): unknown => {
  if (!quirks.argumentsAsObject) return args
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

const wholeCall = (call: Resolved["calls"][number], index: number, quirks: Answer.Quirks) => ({
  index,
  ...(quirks.missingIds ? {} : { id: call.id }),
  type: "function",
  function: { name: call.name, arguments: wireArguments(call.args, quirks) },
})

/** The whole, non-streamed body of a Chat Completions answer. */
export const completionJson = (reply: Resolved): string => {
  const { quirks } = reply
  const reasoningField = quirks.reasoningField ?? "reasoning_content"
  const message: Record<string, unknown> = {
    role: "assistant",
    content: reply.text === "" && reply.calls.length > 0 ? null : reply.text,
  }
  if (reply.reasoning !== "") message[reasoningField] = reply.reasoning
  if (reply.calls.length > 0) {
    message.tool_calls = reply.calls.map((call, index) => {
      const { index: _, ...rest } = wholeCall(call, index, quirks)
      return rest
    })
  }
  return JSON.stringify({
    id: reply.id,
    object: "chat.completion",
    created: reply.created,
    model: reply.model,
    choices: [{ index: 0, message, finish_reason: reply.finish }],
    usage: usageJson(reply.usage),
  })
}

/** Splits text into pieces of at most `size` characters, never inside a surrogate pair. */
export const pieces = (text: string, size: number): ReadonlyArray<string> => {
  const chars = Array.from(text)
  const out: Array<string> = []
  for (let start = 0; start < chars.length; start += size) {
    out.push(chars.slice(start, start + size).join(""))
  }
  return out
}

/** The data of every event of a streamed answer, in order, `[DONE]` included unless a quirk drops it. */
export const streamEvents = (
  reply: Resolved,
  options: { readonly includeUsage: boolean },
): ReadonlyArray<string> => {
  const { quirks } = reply
  const reasoningField = quirks.reasoningField ?? "reasoning_content"
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    JSON.stringify({
      id: reply.id,
      object: "chat.completion.chunk",
      created: reply.created,
      model: reply.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
  const events: Array<string> = [chunk({ role: "assistant", content: "" })]
  for (const piece of pieces(reply.reasoning, reply.chunkSize)) {
    events.push(chunk({ [reasoningField]: piece }))
  }
  for (const piece of pieces(reply.text, reply.chunkSize)) {
    events.push(chunk({ content: piece }))
  }
  const whole = quirks.wholeCallInOneChunk || quirks.argumentsAsObject || quirks.parallelAtIndexZero
  reply.calls.forEach((call, position) => {
    const index = quirks.parallelAtIndexZero ? 0 : position
    if (whole) {
      events.push(chunk({ tool_calls: [wholeCall(call, index, quirks)] }))
      return
    }
    events.push(
      chunk({
        tool_calls: [
          {
            index,
            ...(quirks.missingIds ? {} : { id: call.id }),
            type: "function",
            function: { name: call.name, arguments: "" },
          },
        ],
      }),
    )
    for (const piece of pieces(call.args, reply.chunkSize)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
    }
  })
  events.push(chunk({}, reply.finish))
  if (options.includeUsage) {
    events.push(
      JSON.stringify({
        id: reply.id,
        object: "chat.completion.chunk",
        created: reply.created,
        model: reply.model,
        choices: [],
        usage: usageJson(reply.usage),
      }),
    )
  }
  if (!quirks.noDone) events.push("[DONE]")
  return events
}

/** One Server-Sent Event carrying `data`, with the line ending the quirks ask for. */
export const sseEvent = (data: string, quirks: Answer.Quirks): string => {
  const end = quirks.crlf ? "\r\n" : "\n"
  const keepAlive = quirks.keepAliveComments ? `: keep-alive${end}${end}` : ""
  return `${keepAlive}data: ${data}${end}${end}`
}
