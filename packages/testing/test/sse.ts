import { Effect } from "effect"

/** The data of each event of an SSE body, for tests: comments and blank events are skipped. */
export const sseData = (body: string): ReadonlyArray<string> =>
  body
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n"),
    )
    .filter((data) => data !== "")

interface Chunk {
  readonly choices: ReadonlyArray<{
    readonly delta: {
      readonly content?: string
      readonly reasoning_content?: string
      readonly reasoning?: string
      readonly tool_calls?: ReadonlyArray<{
        readonly index: number
        readonly id?: string
        readonly function?: { readonly name?: string; readonly arguments?: unknown }
      }>
    }
    readonly finish_reason: string | null
  }>
  readonly usage?: { readonly total_tokens: number }
}

/** Joins a streamed answer the simple way (by index), for tests of well-formed streams. */
export const joinChunks = (data: ReadonlyArray<string>) => {
  let text = ""
  let reasoning = ""
  let finish: string | null = null
  let usage: Chunk["usage"]
  const calls: Array<{ id?: string; name: string; arguments: string }> = []
  for (const item of data) {
    if (item === "[DONE]") continue
    const chunk = JSON.parse(item) as Chunk
    usage = chunk.usage ?? usage
    for (const choice of chunk.choices) {
      text += choice.delta.content ?? ""
      reasoning += choice.delta.reasoning_content ?? choice.delta.reasoning ?? ""
      finish = choice.finish_reason ?? finish
      for (const piece of choice.delta.tool_calls ?? []) {
        calls[piece.index] ??= { name: "", arguments: "" }
        const call = calls[piece.index]!
        if (piece.id !== undefined) call.id = piece.id
        call.name += piece.function?.name ?? ""
        const args = piece.function?.arguments
        call.arguments += typeof args === "string" ? args : JSON.stringify(args ?? "")
      }
    }
  }
  return { text, reasoning, finish, usage, calls, done: data.at(-1) === "[DONE]" }
}

/** POSTs a chat request with fetch. */
export const chat = (url: string, body: Record<string, unknown>, init: RequestInit = {}) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
    body: JSON.stringify({
      model: "scripted",
      messages: [{ role: "user", content: "Hi" }],
      ...body,
    }),
    ...init,
  })

/** Waits for an answer and its whole body, as text. */
export const fetchText = (response: Promise<Response>) =>
  Effect.promise(async () => {
    const answered = await response
    return { response: answered, body: await answered.text() }
  })
