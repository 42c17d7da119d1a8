/**
 * End-to-end benchmark: the client's CPU per streamed request against openai-node's
 * `chat.completions.create({ stream: true })`, over loopback HTTP. One process: a loopback server
 * (root `bench/loopback.ts`) answers every request with the same recorded stream (precomputed
 * bytes, so its work is the same for both clients), and rounds of N requests alternate between the two clients, each
 * read to the end. CPU is `process.cpuUsage` over a round (the server's share included, equal for
 * both), per request; each figure is the median of the paired rounds' ratios, with p10 and p90.
 * The client runs with its defaults: retries, the four timeouts, usage asked for.
 *
 * Run: npm run bench. It builds the package and its dependencies first and measures the built code
 * (`dist`), what users run: tsx runs only this file, and the sources through tsx would cost more per
 * request than the built code does (it wraps the functions a closure makes to keep their names).
 */
import { Client } from "@svir/client"
import { Request } from "@svir/core"
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
import { large, small } from "./answers.js"

const answers = {
  small: Buffer.from(small()),
  large: Buffer.from(large()),
}
type Size = keyof typeof answers

/** The recorded answer of the size the path names. */
const server = await serveRecorded((path) =>
  path.startsWith("/large/") ? answers.large : answers.small,
)
const origin = server.origin
const apiKey = "sk-bench"
const question = "What is the weather in Paris today?"

/** Runs `count` requests, `concurrency` at a time. */
const runAll = async (count: number, concurrency: number, one: () => Promise<number>) => {
  let next = 0
  let characters = 0
  const worker = async () => {
    while (next < count) {
      next++
      const read = await one()
      characters += read
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return characters
}

interface Contender {
  readonly name: string
  /** Runs `count` requests for the answer of `size`; gives the characters of text read. */
  readonly round: (size: Size, count: number, concurrency: number) => Promise<number>
}

const svirClients = {
  small: await Effect.runPromise(
    Client.make({ baseUrl: `${origin}/small/v1`, apiKey }).pipe(
      Effect.provide(FetchHttpClient.layer),
    ),
  ),
  large: await Effect.runPromise(
    Client.make({ baseUrl: `${origin}/large/v1`, apiKey }).pipe(
      Effect.provide(FetchHttpClient.layer),
    ),
  ),
}
const svirRequest = Request.make("gpt-bench").pipe(Request.user(question))

const svir: Contender = {
  name: "svir",
  round: (size, count, concurrency) =>
    svirRound(svirClients[size], svirRequest, count, concurrency),
}

const openAiClients = {
  small: new OpenAI({ baseURL: `${origin}/small/v1`, apiKey }),
  large: new OpenAI({ baseURL: `${origin}/large/v1`, apiKey }),
}

const openAi: Contender = {
  name: "openai-node",
  round: (size, count, concurrency) => {
    const client = openAiClients[size]
    return runAll(count, concurrency, async () => {
      const stream = await client.chat.completions.create({
        model: "gpt-bench",
        messages: [{ role: "user", content: question }],
        stream: true,
        stream_options: { include_usage: true },
      })
      let characters = 0
      for await (const chunk of stream) characters += chunk.choices[0]?.delta.content?.length ?? 0
      return characters
    })
  },
}

interface Case {
  readonly what: string
  readonly size: Size
  readonly count: number
  readonly concurrency: number
  readonly rounds: number
  readonly goal: number
}

const measure = async (which: Case) => {
  const { size, count, concurrency } = which
  const { ratios, ours, theirs } = await pairedRounds(
    count,
    which.rounds,
    () => svir.round(size, count, concurrency),
    () => openAi.round(size, count, concurrency),
  )
  console.log(
    `  ${which.what}: svir ${quantile(ours, 0.5).toFixed(0)} us, openai-node ${quantile(theirs, 0.5).toFixed(0)} us CPU per request (${which.rounds} rounds of ${count})`,
  )
  console.log(goalLine(`${which.what}, svir / openai-node CPU per request`, ratios, which.goal))
}

const cases: ReadonlyArray<Case> = [
  {
    what: "small answer, sequential",
    size: "small",
    count: 150,
    concurrency: 1,
    rounds: 40,
    goal: 0.9,
  },
  {
    what: "small answer, 16 concurrent",
    size: "small",
    count: 480,
    concurrency: 16,
    rounds: 30,
    goal: 0.9,
  },
  {
    what: "large answer, sequential",
    size: "large",
    count: 2,
    concurrency: 1,
    rounds: 16,
    goal: 0.5,
  },
]

console.log("End to end over loopback HTTP, CPU per streamed request (svir's default options)")
for (const which of cases) await measure(which)
server.close()
