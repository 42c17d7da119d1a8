import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { ToolCall } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { McpToolbox } from "../src/index.js"
import { CallSignal } from "../src/internal/callSignal.js"
import { GroupStdioTransport } from "../src/internal/stdioTransport.js"

const echoServer = fileURLToPath(new URL("./echoServer.mjs", import.meta.url))
const msgs = Array.from({ length: 100 }, (_, i) => `message ${i}`)
const mk = async (t: any) => {
  const c = new Client({ name: "x", version: "1" })
  await c.connect(t)
  await c.listTools()
  return c
}
const A = await mk(new StdioClientTransport({ command: process.execPath, args: [echoServer] }))

import { Redaction } from "@svir/core"
import { clientFeatures, makeClient } from "../src/internal/mcpClient.js"

const feats = await Effect.runPromise(clientFeatures({}, Redaction.make([]) as any))
const Cm = makeClient(feats)
await Cm.connect(
  new GroupStdioTransport({
    command: process.execPath,
    args: [echoServer],
    env: undefined,
    cwd: undefined,
    maxMessageBytes: 1e8,
    stopGraceMillis: 100,
    onStderr: () => {},
  }),
)
await Cm.listTools()
const B = await mk(
  new GroupStdioTransport({
    command: process.execPath,
    args: [echoServer],
    env: undefined,
    cwd: undefined,
    maxMessageBytes: 1e8,
    stopGraceMillis: 100,
    onStderr: () => {},
  }),
)
const plain = (c: Client) => () =>
  Promise.all(
    msgs.map(
      async (m) =>
        ((await c.callTool({ name: "echo", arguments: { message: m } })).content as any)[0].text,
    ),
  )
const withOpts = (c: Client) => () =>
  Promise.all(
    msgs.map(
      async (m) =>
        (
          (
            await c.callTool({ name: "echo", arguments: { message: m } }, undefined, {
              signal: new CallSignal().asAbortSignal,
              timeout: 60000,
              resetTimeoutOnProgress: true,
              maxTotalTimeout: 600000,
              onprogress: () => {},
            })
          ).content as any
        )[0].text,
    ),
  )
const noProg = (c: Client) => () =>
  Promise.all(
    msgs.map(
      async (m) =>
        (
          (
            await c.callTool({ name: "echo", arguments: { message: m } }, undefined, {
              signal: new CallSignal().asAbortSignal,
              timeout: 60000,
              resetTimeoutOnProgress: true,
              maxTotalTimeout: 600000,
            })
          ).content as any
        )[0].text,
    ),
  )
const scope = Effect.runSync(Scope.make())
const tb = await Effect.runPromise(
  Scope.provide(McpToolbox.stdio({ command: process.execPath, args: [echoServer] }), scope),
)
const calls: ReadonlyArray<ToolCall.ToolCall> = msgs.map((m, i) => ({
  id: `c${i}`,
  name: "echo",
  arguments: JSON.stringify({ message: m }),
}))
const bridge = () => Effect.runPromise(Effect.forEach(calls, tb.call, { concurrency: "unbounded" }))
const bridgeP = () => Promise.all(calls.map((c) => Effect.runPromise(tb.call(c))))
const cbOne = (c: Client, m: string) =>
  Effect.callback<string>((resume) => {
    c.callTool({ name: "echo", arguments: { message: m } }, undefined, {
      signal: new CallSignal().asAbortSignal,
      timeout: 60000,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: 600000,
      onprogress: () => {},
    }).then((r) => resume(Effect.succeed((r.content as any)[0].text)))
  })
const groupEffect = () =>
  Effect.runPromise(Effect.forEach(msgs, (m) => cbOne(B, m), { concurrency: "unbounded" }))
const madeEffect = () =>
  Effect.runPromise(Effect.forEach(msgs, (m) => cbOne(Cm, m), { concurrency: "unbounded" }))
const variants: Record<string, () => Promise<unknown>> = { rawSdk: plain(A), madeEffect, bridge }
const sums: Record<string, number> = {}
for (let r = 0; r < 400; r++)
  for (const [k, f] of Object.entries(variants)) {
    const c = process.cpuUsage()
    await f()
    const u = process.cpuUsage(c)
    if (r >= 10) sums[k] = (sums[k] ?? 0) + u.user + u.system
  }
for (const [k, v] of Object.entries(sums))
  console.log(
    k.padEnd(22),
    (v / 390 / 100).toFixed(1),
    "µs/call",
    (v / sums.rawSdk!).toFixed(2) + "x",
  )
process.exit(0)
