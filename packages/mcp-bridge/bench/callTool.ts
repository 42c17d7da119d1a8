/**
 * The bridge's cost per call against the MCP SDK's own `Client.callTool`, on a stdio echo server.
 *
 * Two copies of `bench/echoServer.mjs` run as child processes: one behind a raw SDK `Client` with
 * its `StdioClientTransport`, one behind `McpToolbox.stdio`. Each round sends the same calls
 * through both, paired and in alternating order: a batch one after another, and batches of 100 at
 * once. The figure is the CPU time of this process per call (`process.cpuUsage`; the servers are
 * child processes, so their work is not counted), bridge over SDK, per round; wall time is shown
 * beside it. Goal: the bridge costs at most 1.15 times the SDK's call.
 *
 * The bridge starts its server in a process group and session of its own (DECISIONS.md D1); on
 * Linux a new session is a scheduling group of its own, which costs calls one after another time
 * the SDK's child does not pay (D11).
 */
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { ToolCall, ToolResult } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { McpToolbox } from "../src/index.js"

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

const rawCall = async (message: string): Promise<string> => {
  const result = await client.callTool({ name: "echo", arguments: { message } })
  const [block] = result.content as ReadonlyArray<{ readonly type: string; readonly text: string }>
  return block!.text
}

const rawSequential = async (): Promise<ReadonlyArray<string>> => {
  const texts: Array<string> = []
  for (const message of messages) texts.push(await rawCall(message))
  return texts
}

const rawConcurrent = async (): Promise<ReadonlyArray<string>> => {
  const texts: Array<string> = []
  for (let batch = 0; batch < concurrentBatches; batch++) {
    texts.push(...(await Promise.all(messages.slice(0, concurrency).map(rawCall))))
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

interface Pairs {
  readonly expected: ReadonlyArray<string>
  readonly raw: Array<Sample>
  readonly bridge: Array<Sample>
}

const echoed = (sent: ReadonlyArray<string>) => sent.map((message) => `Echo: ${message}`)
const sequential: Pairs = { expected: echoed(messages), raw: [], bridge: [] }
const concurrent: Pairs = {
  expected: echoed(
    Array.from({ length: concurrentBatches }, () => messages.slice(0, concurrency)).flat(),
  ),
  raw: [],
  bridge: [],
}

/** One paired measurement; the order alternates from round to round. */
const pair = async (
  into: Pairs,
  round: number,
  raw: () => Promise<ReadonlyArray<string>>,
  bridge: () => Promise<ReadonlyArray<string>>,
) => {
  if (round % 2 === 0) {
    into.raw.push(await measure(raw, into.expected))
    into.bridge.push(await measure(bridge, into.expected))
  } else {
    into.bridge.push(await measure(bridge, into.expected))
    into.raw.push(await measure(raw, into.expected))
  }
}

for (let round = 0; round < warmupRounds + rounds; round++) {
  await pair(sequential, round, rawSequential, bridgeSequential)
  await pair(concurrent, round, rawConcurrent, bridgeConcurrent)
}

await client.close()
await Effect.runPromise(Scope.close(scope, Exit.void))

// --- report -----------------------------------------------------------------------------------

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (sorted.length - 1) * q
  const low = Math.floor(at)
  const high = Math.ceil(at)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low)
}

const ratios = (into: Pairs, figure: (sample: Sample) => number): ReadonlyArray<number> =>
  into.bridge.slice(warmupRounds).map((b, i) => figure(b) / figure(into.raw[warmupRounds + i]!))

const median = (into: ReadonlyArray<Sample>, figure: (sample: Sample) => number): number =>
  quantile(into.slice(warmupRounds).map(figure), 0.5)

const line = (label: string, what: string, values: ReadonlyArray<number>, withGoal: boolean) => {
  const [p10, p50, p90] = [0.1, 0.5, 0.9].map((q) => quantile(values, q).toFixed(2))
  const verdict = withGoal ? ` - goal <= ${goal}x: ${Number(p50) <= goal ? "met" : "NOT met"}` : ""
  console.log(`${label}  ${what}: ${p50}x (p10 ${p10}x, p90 ${p90}x)${verdict}`)
}

const cpu = (sample: Sample) => sample.cpuMicros
const wall = (sample: Sample) => sample.wallMillis

console.log(
  `mcp-bridge callTool over stdio, echo server, ${rounds} paired rounds (node ${process.version})`,
)
for (const [name, into, calls] of [
  ["sequential", sequential, `${sequentialCalls} calls one after another`],
  ["100 concurrent", concurrent, `${concurrentBatches} batches of ${concurrency} at once`],
] as const) {
  console.log(
    `  ${name} (${calls}): SDK ${median(into.raw, cpu).toFixed(0)} µs CPU, ${(median(into.raw, wall) * 1000).toFixed(0)} µs wall per call; bridge ${median(into.bridge, cpu).toFixed(0)} µs CPU, ${(median(into.bridge, wall) * 1000).toFixed(0)} µs wall`,
  )
}
line("goal", "bridge / SDK callTool CPU per call, sequential", ratios(sequential, cpu), true)
line("goal", "bridge / SDK callTool CPU per call, 100 concurrent", ratios(concurrent, cpu), true)
line("info", "bridge / SDK callTool wall per call, sequential", ratios(sequential, wall), false)
line("info", "bridge / SDK callTool wall per call, 100 concurrent", ratios(concurrent, wall), false)
