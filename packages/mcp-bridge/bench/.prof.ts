import { fileURLToPath } from "node:url"
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
const t = performance.now()
for (let r = 0; r < 600; r++)
  await Effect.runPromise(Effect.forEach(calls, toolbox.call, { concurrency: "unbounded" }))
console.log("ms", performance.now() - t)
process.exit(0)
