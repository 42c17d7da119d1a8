import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { ToolCall } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { McpToolbox } from "../src/index.js"

const echoServer = fileURLToPath(new URL("./echoServer.mjs", import.meta.url))
const scope = Effect.runSync(Scope.make())
const toolbox = await Effect.runPromise(
  Scope.provide(McpToolbox.stdio({ command: process.execPath, args: [echoServer] }), scope),
)
const calls: ReadonlyArray<ToolCall.ToolCall> = Array.from({ length: 100 }, (_, i) => ({
  id: `c${i}`,
  name: "echo",
  arguments: JSON.stringify({ message: `message ${i}` }),
}))
const A = new Client({ name: "x", version: "1" })
await A.connect(new StdioClientTransport({ command: process.execPath, args: [echoServer] }))
await A.listTools()
const raw = process.argv[2] === "raw"
for (let r = 0; r < 50; r++)
  raw
    ? await Promise.all(
        calls.map((c, i) => A.callTool({ name: "echo", arguments: { message: `message ${i}` } })),
      )
    : await Effect.runPromise(Effect.forEach(calls, toolbox.call, { concurrency: "unbounded" }))
const s = new Session()
s.connect()
await s.post("HeapProfiler.startSampling", {
  samplingInterval: 1024,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
})
for (let r = 0; r < 200; r++)
  raw
    ? await Promise.all(
        calls.map((c, i) => A.callTool({ name: "echo", arguments: { message: `message ${i}` } })),
      )
    : await Effect.runPromise(Effect.forEach(calls, toolbox.call, { concurrency: "unbounded" }))
const { profile } = await s.post("HeapProfiler.stopSampling")
const self = new Map<string, number>()
let total = 0
const walk = (n: any) => {
  const k = `${n.callFrame.functionName || "anon"} ${n.callFrame.url.replace(/.*node_modules\//, "nm/").replace(/.*\/packages\//, "pk/")}:${n.callFrame.lineNumber}`
  self.set(k, (self.get(k) ?? 0) + n.selfSize)
  total += n.selfSize
  for (const c of n.children) walk(c)
}
walk(profile.head)
console.log(raw ? "raw" : "bridge", "bytes/call", (total / 20000).toFixed(0))
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30))
  console.log((v / 20000).toFixed(0).padStart(6), k)
process.exit(0)
