/**
 * Decoding benchmark. The same bytes go through this codec's decoder and through a naive parser
 * (split on blank lines, JSON.parse each data line, append content and arguments), in ASCII and in
 * text of several scripts with emoji; then through `decodeStream` against the synchronous
 * decoder; then through openai-node's ChatCompletionStream and Vercel's
 * @ai-sdk/openai-compatible. Contenders run in one process, paired and interleaved (A B, B A,
 * ...), and each round's figure is its CPU time (`process.cpuUsage`). Each goal line gives the
 * median of the per-round ratios and their p10-p90 spread.
 *
 * Peak memory: each contender decodes an input 16 times the large stream in a child process of
 * its own (so one's heap cannot be left in place for the other), started with `--expose-gc` and
 * a young generation of 1 MB (`--max-semi-space-size=1`: otherwise up to 16 MB of garbage not yet
 * collected swamps the figure, and whether it was collected varied from run to run). It collects
 * garbage, notes `heapUsed`, then samples it after every 16 KiB chunk; the figure is the most it
 * grew. (Array buffers are left out: the input's are the same for both and freed at times of the
 * collector's choosing, which made the base vary; the decoder's own, the bytes of one line, is a
 * few hundred bytes.) Children run in pairs, and the goal line gives the median of the per-pair
 * ratios.
 *
 * The codec is the built one (`dist`, what users run), reached by the package's own name: `tsx`
 * runs this file, and run over the sources it would wrap every function a closure creates (the
 * decoder's `push`, `finish` and `done`, about 1 µs an answer each) in a naming helper that built
 * code does not have. The naive parser and the peers are plain code either way.
 *
 * Run: npm run bench (builds the codec and what it depends on first, then runs `tsx` without the
 * `@svir/source` condition).
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { Codec, type Event } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import OpenAI from "openai"
import { chunked, large, largeUnicode, small, smallUnicode } from "./streams.js"

type Chunks = ReadonlyArray<Uint8Array>

/** What an answer came to: the text's length and each call's arguments' length. */
const summaryOf = (text: number, args: ReadonlyArray<number>): string => `${text}/${args.join(",")}`

/** This codec's synchronous decoder, fed chunk by chunk. */
const ours = (chunks: Chunks, sample?: () => void): string => {
  const decoder = OpenAiCodec.decoder()
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
    sample?.()
    if (decoder.done()) break
  }
  if (!decoder.done()) take(decoder.finish().events)
  return summary
}

/** The naive parser: split on blank lines, JSON.parse each data line, append. */
const naive = (chunks: Chunks, sample?: () => void): string => {
  const utf8 = new TextDecoder()
  let buffer = ""
  let text = ""
  const args: Array<string> = []
  for (const chunk of chunks) {
    buffer += utf8.decode(chunk, { stream: true })
    const events = buffer.split("\n\n")
    buffer = events.pop() ?? ""
    for (const event of events) {
      if (!event.startsWith("data: ") || event === "data: [DONE]") continue
      const body = JSON.parse(event.slice(6))
      const delta = body.choices[0]?.delta
      if (delta === undefined) continue
      if (typeof delta.content === "string") text += delta.content
      if (delta.tool_calls !== undefined) {
        for (const piece of delta.tool_calls) {
          args[piece.index] = (args[piece.index] ?? "") + (piece.function?.arguments ?? "")
        }
      }
    }
    sample?.()
  }
  return summaryOf(
    text.length,
    args.map((a) => a.length),
  )
}

const contenders = { ours, naive } as const

// A child process that measures one contender's peak memory, then exits.
if (process.argv[2] === "--memory") {
  const run = contenders[process.argv[3] as keyof typeof contenders]
  const collect = (globalThis as { gc?: () => void }).gc
  if (collect === undefined) throw new Error("the memory child needs --expose-gc")
  let chunks: Chunks | undefined = chunked(large(16))
  const used = () => process.memoryUsage().heapUsed
  collect()
  const base = used()
  let peak = base
  run(chunks, () => {
    const now = used()
    if (now > peak) peak = now
  })
  chunks = undefined
  process.stdout.write(JSON.stringify({ peak: peak - base }))
  process.exit(0)
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

/**
 * `a`'s CPU time over `b`'s, round by round, each round in the other order than the last; after
 * a few rounds of warm-up. Also gives each one's median time.
 */
const paired = async (
  a: Run,
  b: Run,
  rounds: number,
  batch: number,
): Promise<{ readonly ratio: Spread; readonly a: number; readonly b: number }> => {
  const ratios: Array<number> = []
  const timesA: Array<number> = []
  const timesB: Array<number> = []
  for (let round = -3; round < rounds; round++) {
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

const ms = (x: number): string => `${x.toFixed(3)} ms`
const sizeOf = (chunks: Chunks): string => {
  const size = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
  return size >= 1e6 ? `${(size / 1e6).toFixed(2)} MB` : `${(size / 1e3).toFixed(1)} kB`
}

const sameSummary = (chunks: Chunks): void => {
  const mine = ours(chunks)
  const theirs = naive(chunks)
  if (mine !== theirs) throw new Error(`the decoders disagree: ${mine} and ${theirs}`)
}

console.log("Decoder against the naive parser (CPU time per round):")
const inputs = [
  { name: "large ASCII", chunks: chunked(large()), rounds: 60, batch: 1 },
  { name: "large non-ASCII", chunks: chunked(largeUnicode()), rounds: 60, batch: 1 },
  { name: "small ASCII", chunks: chunked(small()), rounds: 60, batch: 400 },
  { name: "small non-ASCII", chunks: chunked(smallUnicode()), rounds: 60, batch: 400 },
]
for (const input of inputs) {
  sameSummary(input.chunks)
  const result = await paired(
    () => ours(input.chunks),
    () => naive(input.chunks),
    input.rounds,
    input.batch,
  )
  console.log(
    `  ${input.name} (${sizeOf(input.chunks)} in ${input.chunks.length} chunk(s)): ours ${ms(result.a)}, naive ${ms(result.b)}`,
  )
  goal(`decoder / naive parser, ${input.name}`, result.ratio, 1.1)
}

console.log("\nPeak memory decoding 16 times the large stream (a child process each, in pairs):")
const memoryOf = (name: keyof typeof contenders): number => {
  const child = spawnSync(
    process.execPath,
    [
      ...process.execArgv,
      "--expose-gc",
      "--max-semi-space-size=1",
      fileURLToPath(import.meta.url),
      "--memory",
      name,
    ],
    { encoding: "utf8" },
  )
  if (child.status !== 0) throw new Error(`the memory child failed: ${child.stderr}`)
  return (JSON.parse(child.stdout) as { peak: number }).peak
}
const memoryRatios: Array<number> = []
const peaks = { ours: [] as Array<number>, naive: [] as Array<number> }
for (let pair = 0; pair < 4; pair++) {
  const order = pair % 2 === 0 ? (["ours", "naive"] as const) : (["naive", "ours"] as const)
  for (const name of order) peaks[name].push(memoryOf(name))
  memoryRatios.push(peaks.ours[pair]! / peaks.naive[pair]!)
}
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`
console.log(
  `  ours +${mb(spreadOf(peaks.ours).median)}, naive +${mb(spreadOf(peaks.naive).median)} (heap, median)`,
)
goal("peak memory at 16x the large stream, decoder / naive parser", spreadOf(memoryRatios), 1)

console.log("\ndecodeStream against the synchronous decoder (CPU time per round):")
/** A body as fetch gives it: each chunk its own pull. */
const bodyOf = (chunks: Chunks): Stream.Stream<Uint8Array> =>
  Stream.fromArrays(...chunks.map((chunk) => [chunk]))
const codec = OpenAiCodec.make()
const piecesOf = (text: string, pieces: number): Chunks => {
  const size = new TextEncoder().encode(text).length
  return chunked(text, Math.ceil(size / pieces))
}
const streamInputs = [
  { name: "small answer in 1 piece", chunks: piecesOf(small(), 1), rounds: 60, batch: 400 },
  { name: "small answer in 2 pieces", chunks: piecesOf(small(), 2), rounds: 60, batch: 400 },
  { name: "small answer in 3 pieces", chunks: piecesOf(small(), 3), rounds: 60, batch: 400 },
  { name: "large stream in 16 KiB pieces", chunks: chunked(large()), rounds: 40, batch: 1 },
]
for (const input of streamInputs) {
  const result = await paired(
    () => Effect.runPromise(Stream.runCollect(OpenAiCodec.decodeStream(bodyOf(input.chunks)))),
    () => Codec.decodeChunks(codec, input.chunks),
    input.rounds,
    input.batch,
  )
  console.log(`  ${input.name}: decodeStream ${ms(result.a)}, sync decoder ${ms(result.b)}`)
  goal(`decodeStream / sync decoder, ${input.name}`, result.ratio, 1.3)
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
    fetch: async () => responseOf(chunks),
  })
  const stream = client.chat.completions.stream({
    model: "gpt-bench",
    messages: [{ role: "user", content: "hi" }],
  })
  const done = await stream.finalChatCompletion()
  const message = done.choices[0]!.message
  return summaryOf(
    message.content?.length ?? 0,
    (message.tool_calls ?? []).map((call) =>
      call.type === "function" ? call.function.arguments.length : 0,
    ),
  )
}

const vercel = async (chunks: Chunks): Promise<string> => {
  const provider = createOpenAICompatible({
    name: "bench",
    baseURL: "http://127.0.0.1:9/v1",
    fetch: async () => responseOf(chunks),
  })
  const { stream } = await provider.chatModel("gpt-bench").doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  })
  let text = 0
  const args: Array<number> = []
  const reader = stream.getReader()
  for (;;) {
    const next = await reader.read()
    if (next.done) break
    const part = next.value
    if (part.type === "text-delta") text += part.delta.length
    if (part.type === "tool-call") args.push(part.input.length)
  }
  return summaryOf(text, args)
}

console.log("\nDecoder against the peers, large stream (CPU time per round):")
const largeChunks = chunked(large())
for (const [name, peer] of [
  ["openai-node ChatCompletionStream", openaiNode],
  ["@ai-sdk/openai-compatible doStream", vercel],
] as const) {
  const theirs = await peer(largeChunks)
  if (theirs !== ours(largeChunks)) throw new Error(`${name} disagrees: ${theirs}`)
  const result = await paired(
    () => ours(largeChunks),
    () => peer(largeChunks),
    12,
    1,
  )
  console.log(`  ours ${ms(result.a)}, ${name} ${ms(result.b)}`)
  goal(`decoder / ${name}, large stream`, result.ratio, 0.33)
}
