/**
 * The corpus of real servers' answers (test/corpus) read by three decoders in their default
 * configuration, on the same bytes: svir (strict mode), openai-node's stream helper and
 * `chat.completions.create`, and Vercel's `@ai-sdk/openai-compatible` chat model. A case counts
 * as read right when every field its expectation states matches (text, reasoning joined, finish,
 * calls by name and arguments, usage input/output/total); an expected error is right when the
 * decoder fails. Prints the three scores and each peer's misses; exits 1 if svir scores below a
 * peer.
 *
 * Run: npx tsx --conditions=@svir/source bench/corpusScores.ts
 */
import { fileURLToPath } from "node:url"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { Case } from "@svir/conformance"
import * as CaseFiles from "@svir/conformance/node"
import { Effect } from "effect"
import OpenAI from "openai"
import { OpenAiCodec } from "../src/index.js"

interface Read {
  readonly text: string
  readonly reasoning: string
  readonly finish: string
  readonly calls: ReadonlyArray<{ readonly name: string; readonly arguments: string }>
  readonly usage?: { readonly input?: number; readonly output?: number; readonly total?: number }
}

const root = fileURLToPath(new URL("../test/corpus", import.meta.url))
const loaded = Effect.runSync(CaseFiles.CaseFiles.load([`${root}/cases`], { root })).flatMap(
  (one) => (Case.isEncoderCase(one.case) ? [] : [{ case: one.case, recording: one.recording }]),
)

const bodyOf = (c: (typeof loaded)[number]): { stream: boolean; text: string } => {
  const json = c.case.json
  if (json !== undefined)
    return { stream: false, text: typeof json === "string" ? json : JSON.stringify(json) }
  return { stream: true, text: c.recording ?? c.case.sse ?? c.case.chunks?.join("") ?? "" }
}

const respond = (stream: boolean, text: string) => async () =>
  new Response(text, {
    headers: { "content-type": stream ? "text/event-stream" : "application/json" },
  })

/** Every byte pushed at once, then the end; a failed read throws. */
const readStream = (text: string) => {
  const decoder = OpenAiCodec.decoder({})
  const step = decoder.push(new TextEncoder().encode(text))
  const last = decoder.done() ? step : decoder.finish()
  const error = step.error ?? last.error
  if (error !== undefined) throw error
  const done = [...step.events, ...last.events].find((e) => e._tag === "Completed")
  if (done === undefined) throw new Error("no answer")
  return done.completion
}

const svir = async (stream: boolean, text: string): Promise<Read> => {
  const codec = OpenAiCodec.make()
  const completion = stream ? readStream(text) : await Effect.runPromise(codec.decodeResponse(text))
  return {
    text: completion.text,
    reasoning: completion.reasoning,
    finish: completion.finish,
    calls: completion.calls,
    ...(completion.usage === undefined ? {} : { usage: completion.usage }),
  }
}

const openaiNode = async (stream: boolean, text: string): Promise<Read> => {
  const client = new OpenAI({
    apiKey: "k",
    baseURL: "http://127.0.0.1:9/v1",
    maxRetries: 0,
    logLevel: "off",
    fetch: respond(stream, text),
  })
  const params = { model: "m", messages: [{ role: "user" as const, content: "hi" }] }
  const done = stream
    ? await client.chat.completions.stream(params).finalChatCompletion()
    : await client.chat.completions.create(params)
  const choice = done.choices[0]!
  const message = choice.message as typeof choice.message & {
    reasoning_content?: string
    reasoning?: string
  }
  const usage = done.usage
  return {
    text: message.content ?? "",
    reasoning: message.reasoning_content ?? message.reasoning ?? "",
    finish: choice.finish_reason ?? "",
    calls: (message.tool_calls ?? []).flatMap((call) =>
      call.type === "function"
        ? [{ name: call.function.name, arguments: call.function.arguments }]
        : [],
    ),
    ...(usage == null
      ? {}
      : {
          usage: {
            input: usage.prompt_tokens,
            output: usage.completion_tokens,
            total: usage.total_tokens,
          },
        }),
  }
}

/** The parts of Vercel's stream and answer this script reads (LanguageModelV4). */
interface Part {
  readonly type: string
  readonly delta?: string
  readonly text?: string
  readonly toolName?: string
  readonly input?: string
  readonly error?: unknown
  readonly finishReason?: { readonly unified: string }
  readonly usage?: Usage
}
interface Usage {
  readonly inputTokens: { readonly total?: number | undefined }
  readonly outputTokens: { readonly total?: number | undefined }
}

const finishOf = (unified: string) =>
  unified === "tool-calls"
    ? "tool_calls"
    : unified === "content-filter"
      ? "content_filter"
      : unified

const vercel = async (stream: boolean, text: string): Promise<Read> => {
  const model = createOpenAICompatible({
    name: "p",
    baseURL: "http://127.0.0.1:9/v1",
    fetch: respond(stream, text),
  }).chatModel("m")
  const options = {
    prompt: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }],
  }
  let out = "",
    reasoning = "",
    finish = ""
  const calls: Array<{ name: string; arguments: string }> = []
  let usage: Read["usage"]
  const take = (usageOf: Usage | undefined) => {
    if (usageOf === undefined) return
    const input = usageOf.inputTokens.total
    const output = usageOf.outputTokens.total
    if (input !== undefined || output !== undefined) {
      usage = {
        ...(input === undefined ? {} : { input }),
        ...(output === undefined ? {} : { output }),
        ...(input !== undefined && output !== undefined ? { total: input + output } : {}),
      }
    }
  }
  if (stream) {
    const { stream: parts } = await model.doStream(options as never)
    for await (const part of parts as unknown as AsyncIterable<Part>) {
      if (part.type === "text-delta") out += part.delta ?? ""
      else if (part.type === "reasoning-delta") reasoning += part.delta ?? ""
      else if (part.type === "tool-call") {
        calls.push({ name: part.toolName ?? "", arguments: part.input ?? "" })
      } else if (part.type === "error") throw part.error
      else if (part.type === "finish") {
        finish = finishOf(part.finishReason?.unified ?? "")
        take(part.usage)
      }
    }
  } else {
    const result = (await model.doGenerate(options as never)) as unknown as {
      readonly content: ReadonlyArray<Part>
      readonly finishReason: { readonly unified: string }
      readonly usage: Usage
    }
    for (const part of result.content) {
      if (part.type === "text") out += part.text ?? ""
      else if (part.type === "reasoning") reasoning += part.text ?? ""
      else if (part.type === "tool-call") {
        calls.push({ name: part.toolName ?? "", arguments: part.input ?? "" })
      }
    }
    finish = finishOf(result.finishReason.unified)
    take(result.usage)
  }
  return { text: out, reasoning, finish, calls, ...(usage === undefined ? {} : { usage }) }
}

const sameJson = (a: string, b: string) => {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b))
  } catch {
    return a === b
  }
}

/** Why `read` is not what the case expects, or undefined when it is. */
const miss = (expect: Case.Expectation, read: Read | Error): string | undefined => {
  if ("error" in expect)
    return read instanceof Error ? undefined : "an answer where an error is expected"
  if (read instanceof Error) return `failed: ${String(read.message).slice(0, 100)}`
  const ok = expect.ok
  if (ok.text !== undefined && ok.text !== read.text) return "text"
  if (typeof ok.reasoning === "string" && ok.reasoning !== read.reasoning) return "reasoning"
  if (Array.isArray(ok.reasoning) && ok.reasoning.map((r) => r.text).join("") !== read.reasoning)
    return "reasoning"
  if (ok.finish !== undefined && ok.finish !== read.finish) return `finish ${read.finish}`
  if (ok.calls !== undefined) {
    if (ok.calls.length !== read.calls.length) return `${read.calls.length} calls`
    for (const [i, call] of ok.calls.entries()) {
      const got = read.calls[i]!
      if (call.name !== got.name) return "call name"
      const args = Array.isArray(call.arguments) ? call.arguments : [call.arguments]
      if (!args.some((a) => sameJson(a, got.arguments))) return "call arguments"
    }
  }
  if (ok.usage === null && read.usage !== undefined) return "usage where none"
  if (ok.usage !== undefined && ok.usage !== null) {
    if (read.usage === undefined) return "no usage"
    for (const key of ["input", "output", "total"] as const) {
      // A decoder that gives no total (Vercel's usage has none) is not judged on it.
      const got = read.usage[key]
      if (ok.usage[key] !== undefined && got !== undefined && ok.usage[key] !== got) {
        return `usage.${key}`
      }
    }
  }
  return undefined
}

const withTimeout = <A>(promise: Promise<A>): Promise<A | Error> =>
  Promise.race([
    promise.catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
    new Promise<Error>((resolve) =>
      setTimeout(() => resolve(new Error("timed out")), 5_000).unref(),
    ),
  ])

const decoders = { svir, "openai-node": openaiNode, "@ai-sdk/openai-compatible": vercel }
const scores = Object.fromEntries(
  Object.keys(decoders).map((name) => [name, { right: 0, misses: [] as Array<string> }]),
)
for (const c of loaded) {
  const { stream, text } = bodyOf(c)
  for (const [name, decode] of Object.entries(decoders)) {
    const why = miss(c.case.expect, await withTimeout(decode(stream, text)))
    if (why === undefined) scores[name]!.right++
    else scores[name]!.misses.push(`${c.case.name}: ${why}`)
  }
}
const total = loaded.length
for (const [name, { misses }] of Object.entries(scores)) {
  if (name === "svir" && misses.length === 0) continue
  console.log(`\n${name} misses ${misses.length}:`)
  for (const line of misses) console.log(`  ${line}`)
}
console.log(
  `\n${Object.entries(scores)
    .map(([name, { right }]) => `${name} ${right}/${total}`)
    .join(", ")}`,
)
const ours = scores.svir!.right
if (Object.values(scores).some(({ right }) => right > ours)) process.exit(1)
