import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

const echoServer = fileURLToPath(new URL("./echoServer.mjs", import.meta.url))
const client = new Client({ name: "bench-raw", version: "1.0.0" })
await client.connect(new StdioClientTransport({ command: process.execPath, args: [echoServer] }))
await client.listTools()
const msgs = Array.from({ length: 100 }, (_, i) => `message ${i}`)
const rawCall = async (message: string) => {
  const r = await client.callTool({ name: "echo", arguments: { message } })
  return (r.content as any)[0].text
}
const t = performance.now()
for (let r = 0; r < 600; r++) await Promise.all(msgs.map(rawCall))
console.log("ms", performance.now() - t)
process.exit(0)
