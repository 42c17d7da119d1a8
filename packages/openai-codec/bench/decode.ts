/**
 * Decoding benchmark: the same bytes, in 16 KiB chunks, through this codec's decoder, a naive
 * decoder (split on blank lines, JSON.parse, append), openai-node's ChatCompletionStream, and
 * Vercel's @ai-sdk/openai-compatible. Prints the median time of each, the ratios, and the peak
 * heap growth while decoding.
 *
 * Run: npm run bench (uses `tsx --conditions=@svir/source`).
 */
import v8 from "node:v8"
import vm from "node:vm"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import OpenAI from "openai"
import { OpenAiCodec } from "../src/index.js"
import { chunked, large, small } from "./streams.js"

interface Contender {
  readonly name: string
  readonly run: (chunks: ReadonlyArray<Uint8Array>, sample: () => void) => Promise<string>
}

v8.setFlagsFromString("--expose-gc")
const collectGarbage = vm.runInNewContext("gc") as () => void

const ours: Contender = {
  name: "@svir/openai-codec",
  run: async (chunks, sample) => {
    const decoder = OpenAiCodec.decoder()
    let summary = ""
    const take = (step: { readonly events: ReadonlyArray<{ readonly _tag: string }> }) => {
      for (const event of step.events) {
        if (event._tag === "Completed") {
          const done = (
            event as unknown as {
              completion: { text: string; calls: Array<{ arguments: string }> }
            }
          ).completion
          summary = `${done.text.length}/${done.calls.map((call) => call.arguments.length).join(",")}`
        }
      }
    }
    for (const chunk of chunks) {
      take(decoder.push(chunk))
      sample()
      if (decoder.done()) break
    }
    if (!decoder.done()) take(decoder.finish())
    return summary
  },
}

const naive: Contender = {
  name: "naive (split, JSON.parse, append)",
  run: async (chunks, sample) => {
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
      sample()
    }
    return `${text.length}/${args.map((a) => a.length).join(",")}`
  },
}

const responseOf = (chunks: ReadonlyArray<Uint8Array>, sample: () => void): Response => {
  let i = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      sample()
      if (i < chunks.length) controller.enqueue(chunks[i++]!)
      else controller.close()
    },
  })
  return new Response(body, { headers: { "content-type": "text/event-stream" } })
}

const openaiNode: Contender = {
  name: "openai-node ChatCompletionStream",
  run: async (chunks, sample) => {
    const client = new OpenAI({
      apiKey: "bench",
      baseURL: "http://127.0.0.1:9/v1",
      fetch: async () => responseOf(chunks, sample),
    })
    const stream = client.chat.completions.stream({
      model: "gpt-bench",
      messages: [{ role: "user", content: "hi" }],
    })
    const done = await stream.finalChatCompletion()
    const message = done.choices[0]!.message
    return `${message.content?.length ?? 0}/${(message.tool_calls ?? [])
      .map((call) => (call.type === "function" ? call.function.arguments.length : 0))
      .join(",")}`
  },
}

const vercel: Contender = {
  name: "@ai-sdk/openai-compatible doStream",
  run: async (chunks, sample) => {
    const provider = createOpenAICompatible({
      name: "bench",
      baseURL: "http://127.0.0.1:9/v1",
      fetch: async () => responseOf(chunks, sample),
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
    return `${text}/${args.join(",")}`
  },
}

const contenders = [ours, naive, openaiNode, vercel]

interface Measured {
  readonly median: number
  /** The most the heap grew while decoding, sampled after each chunk. */
  readonly peakHeap: number
  readonly summary: string
}

/**
 * Times every contender on the same chunks, in interleaved rounds so that a change in machine
 * load affects them all alike; then samples each one's heap while it decodes once more.
 */
const measureAll = async (
  chunks: ReadonlyArray<Uint8Array>,
  runs: number,
  batch: number,
): Promise<Map<string, Measured>> => {
  const noSample = () => {}
  const times = new Map<string, Array<number>>(contenders.map((c) => [c.name, []]))
  const summaries = new Map<string, string>()
  for (let round = 0; round < runs + 3; round++) {
    // Each round starts with the next contender, so none always follows the costly async ones.
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(round + i) % contenders.length]!
      const start = performance.now()
      for (let i = 0; i < batch; i++) {
        summaries.set(contender.name, await contender.run(chunks, noSample))
      }
      if (round >= 3) times.get(contender.name)!.push((performance.now() - start) / batch)
    }
  }
  const results = new Map<string, Measured>()
  for (const contender of contenders) {
    collectGarbage()
    const base = process.memoryUsage().heapUsed
    let peak = base
    await contender.run(chunks, () => {
      const used = process.memoryUsage().heapUsed
      if (used > peak) peak = used
    })
    const sorted = times.get(contender.name)!.sort((a, b) => a - b)
    results.set(contender.name, {
      median: sorted[Math.floor(sorted.length / 2)]!,
      peakHeap: peak - base,
      summary: summaries.get(contender.name)!,
    })
  }
  return results
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`

const report = async (
  title: string,
  text: string,
  runs: number,
  batch: number,
): Promise<Map<string, Measured>> => {
  const chunks = chunked(text)
  const size = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
  const shown = size >= 1e6 ? `${(size / 1e6).toFixed(2)} MB` : `${(size / 1e3).toFixed(1)} kB`
  console.log(`\n${title}: ${shown} in ${chunks.length} chunk(s) of up to 16 KiB`)
  const results = await measureAll(chunks, runs, batch)
  const mine = results.get(ours.name)!
  for (const [name, result] of results) {
    const ratio = result.median / mine.median
    console.log(
      `  ${name.padEnd(36)} ${result.median.toFixed(3).padStart(9)} ms  ${ratio.toFixed(2).padStart(6)}x ours  peak heap +${mb(result.peakHeap)}  [${result.summary}]`,
    )
  }
  return results
}

const largeText = large()
const largeResults = await report("Large stream", largeText, 30, 1)
await report("Small answer", small(), 200, 50)

/** The heap the decoder holds at the end of an answer (its state and the completion), after GC. */
const retained = (chunks: ReadonlyArray<Uint8Array>): number => {
  collectGarbage()
  const base = process.memoryUsage().heapUsed
  const decoder = OpenAiCodec.decoder()
  const steps = chunks.map((chunk) => decoder.push(chunk).events.at(-1))
  collectGarbage()
  const used = process.memoryUsage().heapUsed - base
  if (steps.at(-1)?._tag !== "Completed") throw new Error("the benchmark stream did not complete")
  return used
}

const mine = largeResults.get(ours.name)!.median
console.log("\nTargets on the large stream:")
const naiveRatio = mine / largeResults.get(naive.name)!.median
console.log(
  `  ours / naive = ${naiveRatio.toFixed(2)} (target <= 1.5): ${naiveRatio <= 1.5 ? "met" : "NOT met"}`,
)
for (const name of [openaiNode.name, vercel.name]) {
  const speedup = largeResults.get(name)!.median / mine
  console.log(
    `  ${name} / ours = ${speedup.toFixed(2)}x (target >= 3): ${speedup >= 3 ? "met" : "NOT met"}`,
  )
}
const once = retained(chunked(largeText))
const twice = retained(chunked(large(2)))
console.log(
  `  memory held at the end: ${mb(once)} for 1x input, ${mb(twice)} for 2x input (ratio ${(twice / once).toFixed(2)}, linear is 2)`,
)
