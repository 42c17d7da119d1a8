/**
 * The bridge's cost per call against the MCP SDK's own `Client.callTool`, on a stdio echo server.
 *
 * Two copies of `bench/echoServer.mjs` run as child processes: one behind a raw SDK `Client` with
 * its `StdioClientTransport`, one behind `McpToolbox.stdio`. Each round sends the same calls each
 * way, in an order that turns from round to round: a batch one after another, and batches of 100
 * at once. The figure is the CPU time of this process per call (`process.cpuUsage`; the servers
 * are child processes, so their work is not counted), bridge over SDK, per round; wall time is
 * shown beside it. Goal: the bridge costs at most 1.15 times the SDK's call.
 *
 * The SDK's call is measured twice: as the bridge makes it (asking for progress reports, whose
 * arrival restarts the timeout: DECISIONS.md D8) and plain. The goal is against the first: asking
 * for progress costs the SDK's own call 1.06 to 1.11 times its plain call (D32), and that cost is
 * the SDK's. The ratio to the plain call is shown beside it.
 *
 * The bridge starts its server in a process group and session of its own (DECISIONS.md D1); on
 * Linux a new session is a scheduling group of its own, which costs calls one after another time
 * the SDK's child does not pay (D11).
 */
import { fileURLToPath } from "node:url"
import type { RequestOptions } from "@modelcontextprotocol/client"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import type { ToolCall, ToolResult } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { McpToolbox } from "../src/index.js"
import { quantile } from "./quantile.js"

const goal = 1.15
const rounds = Number(process.env.BENCH_ROUNDS ?? 240)
const warmupRounds = 5
const sequentialCalls = 300
const concurrency = 100
const concurrentBatches = 6

const echoServer = fileURLToPath(new URL("./echoServer.mjs", import.meta.url))
const messages = Array.from({ length: sequentialCalls }, (_, i) => `message ${i}`)

// --- the SDK's Client -------------------------------------------------------------------------

const client = new Client({ name: "bench-raw", version: "1.0.0" })
await client.connect(new StdioClientTransport({ command: process.execPath, args: [echoServer] }))
// As the bridge does: the listing fills the SDK's per-tool caches (output validators, task support).
await client.listTools()

type Call = (message: string) => Promise<string>

/** The SDK's call with `options`, giving the text of its answer. */
const sdkCall =
  (options: RequestOptions | undefined): Call =>
  async (message) => {
    const result = await client.callTool({ name: "echo", arguments: { message } }, options)
    const [block] = result.content as ReadonlyArray<{
      readonly type: string
      readonly text: string
    }>
    return block!.text
  }

/** As the bridge calls with its default timeouts: progress asked for, each report a restart. */
const asTheBridge = sdkCall({
  timeout: 60_000,
  resetTimeoutOnProgress: true,
  maxTotalTimeout: 600_000,
  onprogress: () => {},
})
const plain = sdkCall(undefined)

const callsSequential = (call: Call) => async (): Promise<ReadonlyArray<string>> => {
  const texts: Array<string> = []
  for (const message of messages) texts.push(await call(message))
  return texts
}

const callsConcurrent = (call: Call) => async (): Promise<ReadonlyArray<string>> => {
  const texts: Array<string> = []
  for (let batch = 0; batch < concurrentBatches; batch++) {
    texts.push(...(await Promise.all(messages.slice(0, concurrency).map(call))))
  }
  return texts
}

// --- the bridge -------------------------------------------------------------------------------

const scope = Effect.runSync(Scope.make())
const toolbox = await Effect.runPromise(
  Scope.provide(McpToolbox.stdio({ command: process.execPath, args: [echoServer] }), scope),
)

const toolCalls: ReadonlyArray<ToolCall.ToolCall> = messages.map((message, i) => ({
  id: `call_${i}`,
  name: "echo",
  arguments: JSON.stringify({ message }),
}))

const texts = (results: ReadonlyArray<ToolResult.ToolResult>): ReadonlyArray<string> =>
  results.map((result) => (result.isError ? `failed: ${result.content}` : result.content))

const bridgeSequential = () =>
  Effect.runPromise(Effect.map(Effect.forEach(toolCalls, toolbox.call), texts))

const bridgeConcurrent = () =>
  Effect.runPromise(
    Effect.map(
      Effect.forEach(
        Array.from({ length: concurrentBatches }),
        () =>
          Effect.forEach(toolCalls.slice(0, concurrency), toolbox.call, {
            concurrency: "unbounded",
          }),
        { concurrency: 1 },
      ),
      (batches) => texts(batches.flat()),
    ),
  )

// --- measuring --------------------------------------------------------------------------------

interface Sample {
  readonly cpuMicros: number
  readonly wallMillis: number
}

/** Runs `run`, checks that every call was echoed, and gives its cost per call. */
const measure = async (
  run: () => Promise<ReadonlyArray<string>>,
  expected: ReadonlyArray<string>,
): Promise<Sample> => {
  const cpu = process.cpuUsage()
  const start = performance.now()
  const answers = await run()
  const wallMillis = performance.now() - start
  const used = process.cpuUsage(cpu)
  for (const [i, answer] of answers.entries()) {
    if (answer !== expected[i]) throw new Error(`call ${i} answered ${answer}, not ${expected[i]}`)
  }
  return {
    cpuMicros: (used.user + used.system) / answers.length,
    wallMillis: wallMillis / answers.length,
  }
}

/** The samples of each way of calling, one of each per round. */
interface Rounds {
  readonly expected: ReadonlyArray<string>
  readonly sdk: Array<Sample>
  readonly plain: Array<Sample>
  readonly bridge: Array<Sample>
}

type Way = "sdk" | "plain" | "bridge"
const ways: ReadonlyArray<Way> = ["sdk", "plain", "bridge"]

const echoed = (sent: ReadonlyArray<string>) => sent.map((message) => `Echo: ${message}`)
const sequential: Rounds = { expected: echoed(messages), sdk: [], plain: [], bridge: [] }
const concurrent: Rounds = {
  expected: echoed(
    Array.from({ length: concurrentBatches }, () => messages.slice(0, concurrency)).flat(),
  ),
  sdk: [],
  plain: [],
  bridge: [],
}

/** One round: each way once, the order turning from round to round. */
const round = async (
  into: Rounds,
  at: number,
  runs: Readonly<Record<Way, () => Promise<ReadonlyArray<string>>>>,
) => {
  for (let i = 0; i < ways.length; i++) {
    const way = ways[(at + i) % ways.length]!
    into[way].push(await measure(runs[way], into.expected))
  }
}

for (let at = 0; at < warmupRounds + rounds; at++) {
  await round(sequential, at, {
    sdk: callsSequential(asTheBridge),
    plain: callsSequential(plain),
    bridge: bridgeSequential,
  })
  await round(concurrent, at, {
    sdk: callsConcurrent(asTheBridge),
    plain: callsConcurrent(plain),
    bridge: bridgeConcurrent,
  })
}

await client.close()
await Effect.runPromise(Scope.close(scope, Exit.void))

// --- report -----------------------------------------------------------------------------------

const ratios = (
  over: ReadonlyArray<Sample>,
  under: ReadonlyArray<Sample>,
  figure: (sample: Sample) => number,
): ReadonlyArray<number> =>
  over.slice(warmupRounds).map((o, i) => figure(o) / figure(under[warmupRounds + i]!))

const median = (into: ReadonlyArray<Sample>, figure: (sample: Sample) => number): number =>
  quantile(into.slice(warmupRounds).map(figure), 0.5)

const line = (label: string, what: string, values: ReadonlyArray<number>, withGoal: boolean) => {
  const [p10, p50, p90] = [0.1, 0.5, 0.9].map((q) => quantile(values, q).toFixed(2))
  const verdict = withGoal ? ` - goal <= ${goal}x: ${Number(p50) <= goal ? "met" : "NOT met"}` : ""
  console.log(`${label}  ${what}: ${p50}x (p10 ${p10}x, p90 ${p90}x)${verdict}`)
}

const cpu = (sample: Sample) => sample.cpuMicros
const wall = (sample: Sample) => sample.wallMillis
const perCall = (into: ReadonlyArray<Sample>) =>
  `${median(into, cpu).toFixed(0)} µs CPU, ${(median(into, wall) * 1000).toFixed(0)} µs wall`

console.log(
  `mcp-bridge callTool over stdio, echo server, ${rounds} rounds (node ${process.version})`,
)
const runs = [
  ["sequential", sequential, `${sequentialCalls} calls one after another`],
  ["100 concurrent", concurrent, `${concurrentBatches} batches of ${concurrency} at once`],
] as const
for (const [name, into, calls] of runs) {
  console.log(
    `  ${name} (${calls}), per call: SDK ${perCall(into.sdk)}; SDK plain ${perCall(into.plain)}; bridge ${perCall(into.bridge)}`,
  )
}
for (const [name, into] of runs) {
  line(
    "goal",
    `bridge / SDK callTool CPU per call, ${name}`,
    ratios(into.bridge, into.sdk, cpu),
    true,
  )
}
for (const [name, into] of runs) {
  line(
    "info",
    `bridge / SDK callTool wall per call, ${name}`,
    ratios(into.bridge, into.sdk, wall),
    false,
  )
  line(
    "info",
    `bridge / SDK plain callTool CPU per call, ${name}`,
    ratios(into.bridge, into.plain, cpu),
    false,
  )
  line(
    "info",
    `SDK / SDK plain callTool CPU per call, ${name}`,
    ratios(into.sdk, into.plain, cpu),
    false,
  )
}
