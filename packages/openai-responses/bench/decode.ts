/**
 * Decoding benchmark. The same large streamed Responses answer (reasoning in three summary parts,
 * a long text, three calls with long arguments: `bench/streams.ts`, built as the API sends it)
 * goes through this codec's decoder, through a naive decoder (split on blank lines, `JSON.parse`
 * each event's data, append the text, the summaries and each call's arguments), through
 * openai-node's `responses.stream` read to its final response and through Vercel's
 * `@ai-sdk/openai` Responses model (`doStream`), the two over a `fetch` that returns the bytes.
 * Contenders run in one process, paired and interleaved (A B, B A, ...), after warm-up rounds;
 * each round's figure is its CPU time (`process.cpuUsage`). Each goal line gives the median of the
 * per-round ratios and their p10-p90 spread.
 *
 * Before measuring, every contender's reading of the answer is printed and compared (the text's
 * length, each summary part's, each call's arguments'), so that none does less work.
 *
 * Run: npm run bench (not part of the tests). It builds the packages first and measures the
 * built code (`dist`), what users run (anthropic D22): tsx over the sources wraps every named
 * function a closure makes to keep its name.
 */
import { createOpenAI } from "@ai-sdk/openai"
import type { Event } from "@svir/core"
import { Reasoning, ResponsesCodec } from "@svir/openai-responses"
import OpenAI from "openai"
import { chunked, large } from "./streams.js"

type Chunks = ReadonlyArray<Uint8Array>

/** What an answer came to: the text's length, each summary part's and each call's arguments'. */
const summaryOf = (
  text: number,
  summaries: ReadonlyArray<number>,
  args: ReadonlyArray<number>,
): string => `text ${text} / summaries ${summaries.join(",")} / arguments ${args.join(",")}`

/** This codec's synchronous decoder, fed chunk by chunk. */
const ours = (chunks: Chunks): string => {
  const decoder = ResponsesCodec.decoder()
  let summary = ""
  const take = (events: ReadonlyArray<Event.Event>) => {
    const last = events[events.length - 1]
    if (last?._tag === "Completed") {
      const done = last.completion
      summary = summaryOf(
        done.text.length,
        Reasoning.items(done).flatMap((item) => item.summary.map((part) => part.text.length)),
        done.calls.map((call) => call.arguments.length),
      )
    }
  }
  for (const chunk of chunks) {
    take(decoder.push(chunk).events)
    if (decoder.done()) break
  }
  if (!decoder.done()) take(decoder.finish().events)
  return summary
}

/** The naive decoder: blank lines, `JSON.parse` of each event's data, the pieces appended. */
const naive = (chunks: Chunks): string => {
  const utf8 = new TextDecoder()
  let buffer = ""
  let text = ""
  const summaries = new Map<string, string>()
  const args = new Map<string, string>()
  for (const chunk of chunks) {
    buffer += utf8.decode(chunk, { stream: true })
    const events = buffer.split("\n\n")
    buffer = events.pop() ?? ""
    for (const event of events) {
      const data = event.indexOf("data: ")
      if (data === -1) continue
      const body = JSON.parse(event.slice(data + 6))
      switch (body.type) {
        case "response.output_text.delta":
          text += body.delta
          break
        case "response.reasoning_summary_text.delta": {
          const key = `${body.item_id}:${body.summary_index}`
          summaries.set(key, (summaries.get(key) ?? "") + body.delta)
          break
        }
        case "response.output_item.added":
          if (body.item.type === "function_call") args.set(body.item.id, "")
          break
        case "response.function_call_arguments.delta":
          args.set(body.item_id, (args.get(body.item_id) ?? "") + body.delta)
          break
      }
    }
  }
  return summaryOf(
    text.length,
    [...summaries.values()].map((part) => part.length),
    [...args.values()].map((part) => part.length),
  )
}

const responseOf = (chunks: Chunks): Response => {
  let i = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!)
      else controller.close()
    },
  })
  return new Response(body, { headers: { "content-type": "text/event-stream" } })
}

const openaiNode = async (chunks: Chunks): Promise<string> => {
  const client = new OpenAI({
    apiKey: "bench",
    baseURL: "http://127.0.0.1:9/v1",
    maxRetries: 0,
    fetch: async () => responseOf(chunks),
  })
  const done = await client.responses.stream({ model: "gpt-5.1", input: "hi" }).finalResponse()
  let text = 0
  const summaries: Array<number> = []
  const args: Array<number> = []
  for (const item of done.output) {
    if (item.type === "message") {
      for (const part of item.content) if (part.type === "output_text") text += part.text.length
    }
    if (item.type === "reasoning") for (const part of item.summary) summaries.push(part.text.length)
    if (item.type === "function_call") args.push(item.arguments.length)
  }
  return summaryOf(text, summaries, args)
}

const vercel = async (chunks: Chunks): Promise<string> => {
  const provider = createOpenAI({
    apiKey: "bench",
    baseURL: "http://127.0.0.1:9/v1",
    fetch: async () => responseOf(chunks),
  })
  const { stream } = await provider.responses("gpt-5.1").doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  })
  let text = 0
  const summaries = new Map<string, number>()
  const args: Array<number> = []
  const reader = stream.getReader()
  for (;;) {
    const next = await reader.read()
    if (next.done) break
    const part = next.value
    if (part.type === "text-delta") text += part.delta.length
    if (part.type === "reasoning-delta") {
      summaries.set(part.id, (summaries.get(part.id) ?? 0) + part.delta.length)
    }
    if (part.type === "tool-call") args.push(part.input.length)
    if (part.type === "error") throw new Error(`@ai-sdk/openai: ${String(part.error)}`)
  }
  return summaryOf(text, [...summaries.values()], args)
}

interface Spread {
  readonly median: number
  readonly p10: number
  readonly p90: number
}

const spreadOf = (values: Array<number>): Spread => {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return { median: at(0.5), p10: at(0.1), p90: at(0.9) }
}

const goal = (what: string, ratio: Spread, limit: number, below = false): void => {
  const shown = (x: number) => `${x.toFixed(2)}x`
  const met = below ? ratio.median < limit : ratio.median <= limit
  console.log(
    `goal  ${what}: ${shown(ratio.median)} (p10 ${shown(ratio.p10)}, p90 ${shown(ratio.p90)}) - goal ${below ? "<" : "<="} ${limit}x: ${met ? "met" : "NOT met"}`,
  )
}

type Run = () => unknown

/** CPU milliseconds for one run, over `batch` runs. */
const cpuOf = async (run: Run, batch: number): Promise<number> => {
  const start = process.cpuUsage()
  for (let i = 0; i < batch; i++) {
    const result = run()
    if (result instanceof Promise) await result
  }
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1000 / batch
}

/** `a`'s CPU time over `b`'s, round by round, each round in the other order than the last. */
const paired = async (a: Run, b: Run, rounds: number, batch: number) => {
  const ratios: Array<number> = []
  const timesA: Array<number> = []
  const timesB: Array<number> = []
  for (let round = -4; round < rounds; round++) {
    let timeA: number
    let timeB: number
    if (round % 2 === 0) {
      timeA = await cpuOf(a, batch)
      timeB = await cpuOf(b, batch)
    } else {
      timeB = await cpuOf(b, batch)
      timeA = await cpuOf(a, batch)
    }
    if (round < 0 || timeA === 0 || timeB === 0) continue
    ratios.push(timeA / timeB)
    timesA.push(timeA)
    timesB.push(timeB)
  }
  return { ratio: spreadOf(ratios), a: spreadOf(timesA).median, b: spreadOf(timesB).median }
}

const ms = (x: number): string => `${x.toFixed(2)} ms`
const sizeOf = (chunks: Chunks): string => {
  const size = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
  return size >= 1e6 ? `${(size / 1e6).toFixed(2)} MB` : `${(size / 1e3).toFixed(1)} kB`
}

const rounds = Number(process.env.BENCH_ROUNDS ?? 40)
const chunks = chunked(large())

console.log(
  `Decoding a large streamed Responses answer (${sizeOf(chunks)} in ${chunks.length} chunks), CPU time per answer, median of interleaved rounds`,
)
const readings = {
  ours: ours(chunks),
  naive: naive(chunks),
  "openai-node responses.stream": await openaiNode(chunks),
  "@ai-sdk/openai doStream": await vercel(chunks),
}
console.log("What each read (so that none does less work):")
for (const [name, reading] of Object.entries(readings)) console.log(`  ${name}: ${reading}`)
for (const [name, reading] of Object.entries(readings)) {
  if (reading !== readings.ours) throw new Error(`${name} read ${reading}, ours ${readings.ours}`)
}
console.log("  all the same")

const againstNaive = await paired(
  () => ours(chunks),
  () => naive(chunks),
  rounds,
  1,
)
console.log(`  ours ${ms(againstNaive.a)}, naive ${ms(againstNaive.b)}`)
goal("ours / naive decoder, large stream", againstNaive.ratio, 1.1)

for (const [name, peer] of [
  ["openai-node responses.stream", openaiNode],
  ["@ai-sdk/openai doStream", vercel],
] as const) {
  const result = await paired(
    () => ours(chunks),
    () => peer(chunks),
    Math.ceil(rounds / 2),
    1,
  )
  console.log(`  ours ${ms(result.a)}, ${name} ${ms(result.b)}`)
  goal(`ours / ${name}, large stream`, result.ratio, 1, true)
}
