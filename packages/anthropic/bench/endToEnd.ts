/**
 * End to end on Messages: the client's CPU per streamed request with `AnthropicCodec`, against
 * `@anthropic-ai/sdk`'s `messages.stream` read to its final message, over loopback HTTP. One
 * process: a node:http server on 127.0.0.1 answers every request with the same small recorded
 * stream (vercel/ai's `anthropic-text`, framed as the API frames it; precomputed bytes, so its
 * work is the same for both), and rounds of requests alternate between the two clients, each read
 * to the end. CPU is `process.cpuUsage` over a round (the server's share included, equal for
 * both), per request; the figure is the median of the paired rounds' ratios, with p10 and p90.
 * Both run with their defaults (retries, svir's four time limits).
 *
 * Run: npm run bench (it builds the packages first and measures the built code, `dist`).
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import Anthropic from "@anthropic-ai/sdk"
import { AnthropicCodec } from "@svir/anthropic"
import { Client } from "@svir/client"
import { Request } from "@svir/core"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Stream from "effect/Stream"
import { small } from "./streams.js"

const goal = 0.9
const rounds = Number(process.env.BENCH_ROUNDS ?? 40)
const count = 150
const answer = Buffer.from(small())

/** Reads the whole request, then sends the recorded answer. */
const server = Http.createServer((request, response) => {
  request.on("data", () => {})
  request.on("end", () => {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    response.end(answer)
  })
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const origin = `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`
const apiKey = "sk-ant-bench"
const question = "What is the weather in Paris today?"

const client = await Effect.runPromise(
  Client.make({ codec: AnthropicCodec.make(), baseUrl: `${origin}/v1`, apiKey }).pipe(
    Effect.provide(FetchHttpClient.layer),
  ),
)
const request = Request.make("claude-bench").pipe(Request.user(question), Request.maxTokens(64))

/** Runs `count` requests one after another; gives the characters of text read. */
const svir = (): Promise<number> =>
  Effect.runPromise(
    Effect.forEach(
      Array.from({ length: count }),
      () =>
        Effect.suspend(() => {
          let characters = 0
          return client.stream(request).pipe(
            Stream.runForEach((event) =>
              Effect.sync(() => {
                if (event._tag === "TextDelta") characters += event.text.length
              }),
            ),
            Effect.map(() => characters),
          )
        }),
      { concurrency: 1 },
    ).pipe(Effect.map((each) => each.reduce((sum, characters) => sum + characters, 0))),
  )

const sdkClient = new Anthropic({ apiKey, baseURL: origin })
const sdk = async (): Promise<number> => {
  let characters = 0
  for (let i = 0; i < count; i++) {
    const message = await sdkClient.messages
      .stream({
        model: "claude-bench",
        max_tokens: 64,
        messages: [{ role: "user", content: question }],
      })
      .finalMessage()
    for (const block of message.content) if (block.type === "text") characters += block.text.length
  }
  return characters
}

/** CPU microseconds per request of one round, and the characters read. */
const cpuPerRequest = async (round: () => Promise<number>) => {
  const before = process.cpuUsage()
  const characters = await round()
  const spent = process.cpuUsage(before)
  return { micros: (spent.user + spent.system) / count, characters }
}

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

for (let i = 0; i < 3; i++) {
  await cpuPerRequest(svir)
  await cpuPerRequest(sdk)
}
const ratios: Array<number> = []
const ours: Array<number> = []
const theirs: Array<number> = []
for (let round = 0; round < rounds; round++) {
  // Paired, the order alternating, so that neither always runs on a warmer machine.
  const first = round % 2 === 0
  const a = await cpuPerRequest(first ? svir : sdk)
  const b = await cpuPerRequest(first ? sdk : svir)
  const [mine, peer] = first ? [a, b] : [b, a]
  if (mine.characters !== peer.characters) {
    throw new Error(`the clients read different text: ${mine.characters} ${peer.characters}`)
  }
  ratios.push(mine.micros / peer.micros)
  ours.push(mine.micros)
  theirs.push(peer.micros)
}
const median = quantile(ratios, 0.5)
const fixed = (value: number) => value.toFixed(2)
console.log("Messages end to end over loopback HTTP, CPU per streamed request (defaults)")
console.log(
  `  small answer, sequential: svir ${quantile(ours, 0.5).toFixed(0)} us, @anthropic-ai/sdk ${quantile(theirs, 0.5).toFixed(0)} us CPU per request (${rounds} rounds of ${count})`,
)
console.log(
  `goal  small answer, sequential, svir / @anthropic-ai/sdk messages.stream CPU per request: ${fixed(median)}x (p10 ${fixed(quantile(ratios, 0.1))}x, p90 ${fixed(quantile(ratios, 0.9))}x) - goal <= ${goal}x: ${median <= goal ? "met" : "NOT met"}`,
)
server.close()
