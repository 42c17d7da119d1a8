/**
 * End-to-end benchmark: the client's CPU per streamed request against openai-node's
 * `chat.completions.create({ stream: true })`, over loopback HTTP. One process: a node:http server
 * on 127.0.0.1 answers every request with the same recorded stream (precomputed bytes, so its work
 * is the same for both clients), and rounds of N requests alternate between the two clients, each
 * read to the end. CPU is `process.cpuUsage` over a round (the server's share included, equal for
 * both), per request; each figure is the median of the paired rounds' ratios, with p10 and p90.
 * The client runs with its defaults: retries, the four timeouts, usage asked for.
 *
 * Run: npm run bench. It builds the package and its dependencies first and measures the built code
 * (`dist`), what users run: tsx runs only this file, and the sources through tsx would cost more per
 * request than the built code does (it wraps the functions a closure makes to keep their names).
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import { Client } from "@svir/client"
import { Request } from "@svir/core"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Stream from "effect/Stream"
import OpenAI from "openai"
import { large, small } from "./answers.js"

const answers = {
  small: Buffer.from(small()),
  large: Buffer.from(large()),
}
type Size = keyof typeof answers

/** Reads the whole request, then sends the recorded answer of the size the path names. */
const server = Http.createServer((request, response) => {
  const answer = request.url?.startsWith("/large/") ? answers.large : answers.small
  request.on("data", () => {})
  request.on("end", () => {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    response.end(answer)
  })
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const origin = `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`
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
  round: (size, count, concurrency) => {
    const client = svirClients[size]
    const one = Effect.suspend(() => {
      let characters = 0
      return client.stream(svirRequest).pipe(
        Stream.runForEach((event) =>
          Effect.sync(() => {
            if (event._tag === "TextDelta") characters += event.text.length
          }),
        ),
        Effect.map(() => characters),
      )
    })
    return Effect.runPromise(
      Effect.forEach(Array.from({ length: count }), () => one, { concurrency }).pipe(
        Effect.map((each) => each.reduce((sum, characters) => sum + characters, 0)),
      ),
    )
  },
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

/** CPU microseconds per request of one round. */
const cpuPerRequest = async (
  contender: Contender,
  size: Size,
  count: number,
  concurrency: number,
) => {
  const before = process.cpuUsage()
  const characters = await contender.round(size, count, concurrency)
  const spent = process.cpuUsage(before)
  return { micros: (spent.user + spent.system) / count, characters }
}

const quantile = (sorted: ReadonlyArray<number>, q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

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
  // Warm both up: the JIT, the connection pool.
  for (let i = 0; i < 3; i++) {
    await cpuPerRequest(svir, size, count, concurrency)
    await cpuPerRequest(openAi, size, count, concurrency)
  }
  const ratios: Array<number> = []
  const ours: Array<number> = []
  const theirs: Array<number> = []
  for (let round = 0; round < which.rounds; round++) {
    // Paired, the order alternating, so that neither always runs on a warmer machine.
    const first = round % 2 === 0
    const a = await cpuPerRequest(first ? svir : openAi, size, count, concurrency)
    const b = await cpuPerRequest(first ? openAi : svir, size, count, concurrency)
    const [mine, peer] = first ? [a, b] : [b, a]
    if (mine.characters !== peer.characters) {
      throw new Error(`the clients read different text: ${mine.characters} ${peer.characters}`)
    }
    ratios.push(mine.micros / peer.micros)
    ours.push(mine.micros)
    theirs.push(peer.micros)
  }
  const sorted = (values: Array<number>) => values.sort((x, y) => x - y)
  const ratio = sorted(ratios)
  const median = quantile(ratio, 0.5)
  const fixed = (value: number) => value.toFixed(2)
  console.log(
    `  ${which.what}: svir ${quantile(sorted(ours), 0.5).toFixed(0)} us, openai-node ${quantile(sorted(theirs), 0.5).toFixed(0)} us CPU per request (${which.rounds} rounds of ${count})`,
  )
  console.log(
    `goal  ${which.what}, svir / openai-node CPU per request: ${fixed(median)}x (p10 ${fixed(quantile(ratio, 0.1))}x, p90 ${fixed(quantile(ratio, 0.9))}x) - goal <= ${which.goal}x: ${median <= which.goal ? "met" : "NOT met"}`,
  )
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
