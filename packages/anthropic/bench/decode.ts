/**
 * Decoding benchmark. The same recorded and generated Messages streams go through this codec's
 * decoder, through a naive decoder (split on blank lines, `JSON.parse` each event's data, append
 * the text and each call's input), through the official `@anthropic-ai/sdk`'s `MessageStream`
 * (its accumulator, over a fetch that returns the bytes) and through Vercel's `@ai-sdk/anthropic`
 * (`doStream`, over the same fetch). Contenders run in one process, paired and interleaved (A B,
 * B A, ...), after warm-up rounds; each round's figure is its CPU time (`process.cpuUsage`). Each
 * goal line gives the median of the per-round ratios and their p10-p90 spread.
 *
 * Run: npm run bench (not part of the tests). It builds the packages first and measures the
 * built code (`dist`), what users run (D22): the sources through tsx cost more, since tsx wraps
 * every named function a closure makes to keep its name, and core's SSE reader makes some for
 * each stream.
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import Anthropic from "@anthropic-ai/sdk"
import { AnthropicCodec } from "@svir/anthropic"
import type { Event } from "@svir/core"
import { chunked, longText, longToolInput, longUnicode, small } from "./streams.js"

type Chunks = ReadonlyArray<Uint8Array>

/** What an answer came to: the text's length and each call's input's length. */
const summaryOf = (text: number, inputs: ReadonlyArray<number>): string =>
  `${text}/${inputs.join(",")}`

const ours = (chunks: Chunks): string => {
  const decoder = AnthropicCodec.decoder()
  let summary = ""
  const take = (events: ReadonlyArray<Event.Event>) => {
    const last = events[events.length - 1]
    if (last?._tag === "Completed") {
      const done = last.completion
      summary = summaryOf(
        done.text.length,
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
  const inputs: Array<string> = []
  for (const chunk of chunks) {
    buffer += utf8.decode(chunk, { stream: true })
    const events = buffer.split("\n\n")
    buffer = events.pop() ?? ""
    for (const event of events) {
      const data = event.indexOf("data: ")
      if (data === -1) continue
      const body = JSON.parse(event.slice(data + 6))
      if (body.type === "content_block_start" && body.content_block.type === "tool_use") {
        inputs[body.index] = ""
      } else if (body.type === "content_block_delta") {
        if (body.delta.type === "text_delta") text += body.delta.text
        else if (body.delta.type === "input_json_delta")
          inputs[body.index] += body.delta.partial_json
      }
    }
  }
  return summaryOf(
    text.length,
    inputs.filter((input) => input !== undefined).map((input) => input.length),
  )
}

/** Our summary with each input as the SDK gives it (parsed, then written again), to compare. */
const oursParsed = (chunks: Chunks): string => {
  const [text, inputs] = ours(chunks).split("/") as [string, string]
  if (inputs === "") return `${text}/`
  const decoder = AnthropicCodec.decoder()
  let calls: ReadonlyArray<number> = []
  for (const event of [
    ...chunks.flatMap((chunk) => decoder.push(chunk).events),
    ...decoder.finish().events,
  ]) {
    if (event._tag === "Completed") {
      calls = event.completion.calls.map(
        (call) => JSON.stringify(JSON.parse(call.arguments)).length,
      )
    }
  }
  return summaryOf(Number(text), calls)
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

const sdk = async (chunks: Chunks): Promise<string> => {
  const client = new Anthropic({
    apiKey: "bench",
    baseURL: "http://127.0.0.1:9",
    maxRetries: 0,
    fetch: async () => responseOf(chunks),
  })
  const message = await client.messages
    .stream({ model: "claude-bench", max_tokens: 64, messages: [{ role: "user", content: "hi" }] })
    .finalMessage()
  let text = 0
  const inputs: Array<number> = []
  for (const block of message.content) {
    if (block.type === "text") text += block.text.length
    // The SDK gives the input parsed; its JSON text is what the others give.
    if (block.type === "tool_use") inputs.push(JSON.stringify(block.input).length)
  }
  return summaryOf(text, inputs)
}

const vercel = async (chunks: Chunks): Promise<string> => {
  const provider = createAnthropic({
    apiKey: "bench",
    baseURL: "http://127.0.0.1:9/v1",
    fetch: async () => responseOf(chunks),
  })
  const { stream } = await provider("claude-sonnet-4-5").doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  })
  let text = 0
  const inputs: Array<number> = []
  const reader = stream.getReader()
  for (;;) {
    const next = await reader.read()
    if (next.done) break
    const part = next.value
    if (part.type === "text-delta") text += part.delta.length
    if (part.type === "tool-call") inputs.push(part.input.length)
  }
  return summaryOf(text, inputs)
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

const goal = (what: string, ratio: Spread, limit: number): void => {
  const shown = (x: number) => `${x.toFixed(2)}x`
  console.log(
    `goal  ${what}: ${shown(ratio.median)} (p10 ${shown(ratio.p10)}, p90 ${shown(ratio.p90)}) - goal <= ${limit}x: ${ratio.median <= limit ? "met" : "NOT met"}`,
  )
}

type Run = () => unknown

/** CPU nanoseconds for one run, over `batch` runs. */
const cpuOf = async (run: Run, batch: number): Promise<number> => {
  const start = process.cpuUsage()
  for (let i = 0; i < batch; i++) {
    const result = run()
    if (result instanceof Promise) await result
  }
  const used = process.cpuUsage(start)
  return ((used.user + used.system) * 1000) / batch
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

const ns = (x: number): string =>
  x >= 1e6 ? `${(x / 1e6).toFixed(2)} ms` : `${(x / 1e3).toFixed(1)} µs`
const sizeOf = (chunks: Chunks): string => {
  const size = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
  return size >= 1e6 ? `${(size / 1e6).toFixed(2)} MB` : `${(size / 1e3).toFixed(1)} kB`
}

const inputs = [
  { name: "small answer", chunks: chunked(small()), rounds: 60, batch: 500 },
  { name: "long text", chunks: chunked(longText()), rounds: 40, batch: 4 },
  { name: "long text, non-ASCII", chunks: chunked(longUnicode()), rounds: 40, batch: 4 },
  { name: "tool use, long input JSON", chunks: chunked(longToolInput()), rounds: 40, batch: 4 },
]

const peers = [
  { name: "@anthropic-ai/sdk MessageStream", run: sdk, limit: 1 },
  { name: "@ai-sdk/anthropic doStream", run: vercel, limit: 1 },
] as const

console.log("Decoding Messages streams, ns per answer (CPU time, median of interleaved rounds):")
for (const input of inputs) {
  const mine = ours(input.chunks)
  const theirs = naive(input.chunks)
  if (mine !== theirs)
    throw new Error(`the naive decoder disagrees on ${input.name}: ${mine} and ${theirs}`)
  console.log(`\n${input.name} (${sizeOf(input.chunks)} in ${input.chunks.length} chunk(s)):`)
  const result = await paired(
    () => ours(input.chunks),
    () => naive(input.chunks),
    input.rounds,
    input.batch,
  )
  console.log(`  ours ${ns(result.a)}, naive ${ns(result.b)}`)
  goal(`ours / naive, ${input.name}`, result.ratio, 1.1)
  for (const peer of peers) {
    const summary = await peer.run(input.chunks)
    const expected = peer.run === sdk ? oursParsed(input.chunks) : mine
    if (summary !== expected) {
      throw new Error(`${peer.name} disagrees on ${input.name}: ${summary} and ${expected}`)
    }
    const vs = await paired(
      () => ours(input.chunks),
      () => peer.run(input.chunks),
      Math.ceil(input.rounds / 2),
      Math.max(1, Math.floor(input.batch / 5)),
    )
    console.log(`  ours ${ns(vs.a)}, ${peer.name} ${ns(vs.b)}`)
    goal(`ours / ${peer.name}, ${input.name}`, vs.ratio, peer.limit)
  }
}
