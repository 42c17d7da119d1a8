/**
 * The bridge's cost of listing 1,000 tools against the MCP SDK's own `Client.listTools`, on a
 * stdio server (`bench/echoServer.mjs` with `BENCH_TOOLS=1000`, each tool with an input and an
 * output schema). The bridge's listing (`toolbox.refresh`) reads every page, checks each tool
 * and its schemas and makes the offered tools; neither side compiles an output schema while
 * listing (each does at the tool's first call, D50); the SDK's parses each page. The figure is this
 * process's CPU time per listing, bridge over SDK, per round, the two in turn. Goal: at most 1.15
 * times the SDK's listing.
 */
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { McpToolbox } from "../src/index.js"
import { quantile } from "./quantile.js"

const goal = 1.15
const tools = 1_000
const rounds = Number(process.env.BENCH_ROUNDS ?? 40)
const warmupRounds = 3
const server = {
  command: process.execPath,
  args: [fileURLToPath(new URL("./echoServer.mjs", import.meta.url))],
  env: { BENCH_TOOLS: String(tools) },
}

const client = new Client({ name: "bench-raw", version: "1.0.0" })
await client.connect(
  new StdioClientTransport({ ...server, env: { ...process.env, ...server.env } }),
)
const scope = Effect.runSync(Scope.make())
const toolbox = await Effect.runPromise(
  Scope.provide(McpToolbox.stdio(server, { maxTools: tools + 1 }), scope),
)

/** The CPU time of one listing, in milliseconds, after checking it gave every tool. */
const cpuOf = async (list: () => Promise<number>): Promise<number> => {
  const start = process.cpuUsage()
  const count = await list()
  const used = process.cpuUsage(start)
  if (count !== tools + 1) throw new Error(`a listing gave ${count} tools, not ${tools + 1}`)
  return (used.user + used.system) / 1000
}
const sdk = async () => (await client.listTools()).tools.length
const bridge = async () => (await Effect.runPromise(toolbox.refresh)).length

const ratios: Array<number> = []
const costs = { sdk: [] as Array<number>, bridge: [] as Array<number> }
for (let at = 0; at < warmupRounds + rounds; at++) {
  const [first, second] = at % 2 === 0 ? [sdk, bridge] : [bridge, sdk]
  const a = await cpuOf(first)
  const b = await cpuOf(second)
  const [sdkMillis, bridgeMillis] = at % 2 === 0 ? [a, b] : [b, a]
  if (at < warmupRounds) continue
  costs.sdk.push(sdkMillis)
  costs.bridge.push(bridgeMillis)
  ratios.push(bridgeMillis / sdkMillis)
}
await client.close()
await Effect.runPromise(Scope.close(scope, Exit.void))

const [p10, p50, p90] = [0.1, 0.5, 0.9].map((q) => quantile(ratios, q))
console.log(
  `mcp-bridge listing ${tools + 1} tools over stdio, ${rounds} rounds (node ${process.version}): SDK ${quantile(costs.sdk, 0.5).toFixed(1)} ms CPU, bridge ${quantile(costs.bridge, 0.5).toFixed(1)} ms CPU per listing`,
)
console.log(
  `goal  bridge / SDK listTools CPU per listing: ${p50!.toFixed(2)}x (p10 ${p10!.toFixed(2)}x, p90 ${p90!.toFixed(2)}x) - goal <= ${goal}x: ${p50! <= goal ? "met" : "NOT met"}`,
)
