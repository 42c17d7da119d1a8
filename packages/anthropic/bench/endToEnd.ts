/**
 * End to end on Messages: the client's CPU per streamed request with `AnthropicCodec`, against
 * `@anthropic-ai/sdk`'s `messages.stream` read to its final message, over loopback HTTP. One
 * process: a loopback server (root `bench/loopback.ts`) answers every request with the same small
 * recorded stream (vercel/ai's `anthropic-text`, framed as the API frames it), and rounds of
 * requests alternate between the two clients, each read to the end. CPU is `process.cpuUsage`
 * over a round, per request; the figure is the median of the paired rounds' ratios, with p10 and
 * p90. Both run with their defaults (retries, svir's four time limits).
 *
 * Run: npm run bench (it builds the packages first and measures the built code, `dist`).
 */
import Anthropic from "@anthropic-ai/sdk"
import { AnthropicCodec } from "@svir/anthropic"
import { Client } from "@svir/client"
import { Request } from "@svir/core"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import {
  goalLine,
  pairedRounds,
  quantile,
  serveRecorded,
  svirRound,
} from "../../../bench/loopback.js"
import { small } from "./streams.js"

const goal = 0.9
const rounds = Number(process.env.BENCH_ROUNDS ?? 40)
const count = 150
const answer = Buffer.from(small())

const server = await serveRecorded(() => answer)
const apiKey = "sk-ant-bench"
const question = "What is the weather in Paris today?"

const client = await Effect.runPromise(
  Client.make({ codec: AnthropicCodec.make(), baseUrl: `${server.origin}/v1`, apiKey }).pipe(
    Effect.provide(FetchHttpClient.layer),
  ),
)
const request = Request.make("claude-bench").pipe(Request.user(question), Request.maxTokens(64))

/** Runs `count` requests one after another; gives the characters of text read. */
const svir = (): Promise<number> => svirRound(client, request, count, 1)

const sdkClient = new Anthropic({ apiKey, baseURL: server.origin })
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

const { ratios, ours, theirs } = await pairedRounds(count, rounds, svir, sdk)
console.log("Messages end to end over loopback HTTP, CPU per streamed request (defaults)")
console.log(
  `  small answer, sequential: svir ${quantile(ours, 0.5).toFixed(0)} us, @anthropic-ai/sdk ${quantile(theirs, 0.5).toFixed(0)} us CPU per request (${rounds} rounds of ${count})`,
)
console.log(
  goalLine(
    "small answer, sequential, svir / @anthropic-ai/sdk messages.stream CPU per request",
    ratios,
    goal,
  ),
)
server.close()
