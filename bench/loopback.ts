/**
 * What the end-to-end benchmarks share (`packages/client/bench/endToEnd.ts` on Chat Completions,
 * `packages/anthropic/bench/endToEnd.ts` on Messages): a node:http server on 127.0.0.1 that
 * answers every request with a recorded stream, precomputed, so that its work is the same for
 * every client; a round of svir's streamed requests; the CPU per request of a round; and the
 * median and spread of paired ratios.
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import type { Client } from "@svir/client"
import type { Request } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** A loopback server: reads each request whole, then sends the answer `answerFor` picks by path. */
export const serveRecorded = async (
  answerFor: (path: string) => Buffer,
): Promise<{ readonly origin: string; readonly close: () => void }> => {
  const server = Http.createServer((request, response) => {
    const answer = answerFor(request.url ?? "/")
    request.on("data", () => {})
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      response.end(answer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`
  return { origin, close: () => server.close() }
}

/**
 * CPU microseconds per request of one round of `count` requests (the server's share included,
 * the same for every client), and what the round read, so that two clients can be compared.
 */
export const cpuPerRequest = async <A>(
  count: number,
  round: () => Promise<A>,
): Promise<{ readonly micros: number; readonly read: A }> => {
  const before = process.cpuUsage()
  const read = await round()
  const spent = process.cpuUsage(before)
  return { micros: (spent.user + spent.system) / count, read }
}

/**
 * Three rounds of each to warm up (the JIT, the connection pool), then `rounds` paired rounds of
 * `count` requests, the order alternating so that neither always runs on a warmer machine: the
 * CPU per request of each, and their ratio per round. The two must read the same.
 */
export const pairedRounds = async (
  count: number,
  rounds: number,
  mine: () => Promise<unknown>,
  peer: () => Promise<unknown>,
): Promise<{
  readonly ratios: ReadonlyArray<number>
  readonly ours: ReadonlyArray<number>
  readonly theirs: ReadonlyArray<number>
}> => {
  for (let i = 0; i < 3; i++) {
    await cpuPerRequest(count, mine)
    await cpuPerRequest(count, peer)
  }
  const ratios: Array<number> = []
  const ours: Array<number> = []
  const theirs: Array<number> = []
  for (let round = 0; round < rounds; round++) {
    const first = round % 2 === 0
    const a = await cpuPerRequest(count, first ? mine : peer)
    const b = await cpuPerRequest(count, first ? peer : mine)
    const [ourRound, theirRound] = first ? [a, b] : [b, a]
    if (ourRound.read !== theirRound.read) {
      throw new Error(`the clients read different text: ${ourRound.read} ${theirRound.read}`)
    }
    ratios.push(ourRound.micros / theirRound.micros)
    ours.push(ourRound.micros)
    theirs.push(theirRound.micros)
  }
  return { ratios, ours, theirs }
}

/** The value at quantile `q` of the values. */
export const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

/** The goal line of a ratio: its median, p10 and p90, and whether the median meets the goal. */
export const goalLine = (what: string, ratios: ReadonlyArray<number>, goal: number): string => {
  const median = quantile(ratios, 0.5)
  const fixed = (value: number) => value.toFixed(2)
  return `goal  ${what}: ${fixed(median)}x (p10 ${fixed(quantile(ratios, 0.1))}x, p90 ${fixed(quantile(ratios, 0.9))}x) - goal <= ${goal}x: ${median <= goal ? "met" : "NOT met"}`
}

/** Runs `count` streamed requests through a svir client, `concurrency` at a time; gives the characters of text read. */
export const svirRound = (
  client: Client.Service,
  request: Request.Request,
  count: number,
  concurrency: number,
): Promise<number> => {
  const one = Effect.suspend(() => {
    let characters = 0
    return client.stream(request).pipe(
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
}
