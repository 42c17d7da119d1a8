/**
 * End to end on Responses: the client's CPU per streamed request with `ResponsesCodec`, against
 * openai-node's `responses.create({ stream: true })` read to its last event, over loopback HTTP.
 * One process: a loopback server (root `bench/loopback.ts`) answers every request with the same
 * small stream (`bench/streams.ts`, framed as the API frames it), precomputed so that its work is
 * the same for both, and rounds of requests alternate between the two clients, each read to the
 * end. CPU is `process.cpuUsage` over a round, per request (the server's share included, equal
 * for both); the figure is the median of the paired rounds' ratios, with p10 and p90. Both run
 * with their defaults (retries, svir's four time limits).
 *
 * Run: npm run bench (it builds the packages first and measures the built code, `dist`).
 */
import { Client } from "@svir/client"
import { Request } from "@svir/core"
import { ResponsesCodec } from "@svir/openai-responses"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import OpenAI from "openai"
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
const apiKey = "sk-bench"
const question = "What is the weather in Paris today?"

const client = await Effect.runPromise(
  Client.make({ codec: ResponsesCodec.make(), baseUrl: `${server.origin}/v1`, apiKey }).pipe(
    Effect.provide(FetchHttpClient.layer),
  ),
)
const request = Request.make("gpt-bench").pipe(Request.user(question))

/** Runs `count` requests one after another; gives the characters of text read. */
const svir = (): Promise<number> => svirRound(client, request, count, 1)

const sdkClient = new OpenAI({ apiKey, baseURL: `${server.origin}/v1` })
const sdk = async (): Promise<number> => {
  let characters = 0
  for (let i = 0; i < count; i++) {
    const stream = await sdkClient.responses.create({
      model: "gpt-bench",
      input: question,
      stream: true,
    })
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") characters += event.delta.length
    }
  }
  return characters
}

console.log("Responses end to end over loopback HTTP, CPU per streamed request (defaults)")
// Both must read the same text, so that neither does less work (pairedRounds checks every round).
const read = { svir: await svir(), sdk: await sdk() }
console.log(
  `  characters of text read in a round of ${count}: svir ${read.svir}, openai-node ${read.sdk}${read.svir === read.sdk ? " (the same)" : ""}`,
)
if (read.svir !== read.sdk) throw new Error("the clients read different text")
const { ratios, ours, theirs } = await pairedRounds(count, rounds, svir, sdk)
console.log(
  `  small answer, sequential: svir ${quantile(ours, 0.5).toFixed(0)} us, openai-node ${quantile(theirs, 0.5).toFixed(0)} us CPU per request (${rounds} rounds of ${count})`,
)
console.log(
  goalLine(
    "small answer, sequential, svir / openai-node responses.create({ stream: true }) CPU per request",
    ratios,
    goal,
  ),
)
server.close()
