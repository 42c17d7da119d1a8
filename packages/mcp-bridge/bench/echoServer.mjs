// An MCP server over stdio with one tool, `echo`, that answers with the message it was given.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { z } from "zod"

const server = new McpServer({ name: "bench-echo", version: "1.0.0" })
server.registerTool(
  "echo",
  { description: "Answers with the message it was given.", inputSchema: { message: z.string() } },
  async ({ message }) => ({ content: [{ type: "text", text: `Echo: ${message}` }] }),
)
// With BENCH_TOOLS=N, N more tools besides, each with an input and an output schema, to list.
for (let i = 0; i < Number(process.env.BENCH_TOOLS ?? 0); i++) {
  server.registerTool(
    `tool_${i}`,
    {
      description: `Tool number ${i}.`,
      inputSchema: { message: z.string(), times: z.number().int().optional() },
      outputSchema: { echo: z.string() },
    },
    async ({ message }) => ({
      content: [{ type: "text", text: message }],
      structuredContent: { echo: message },
    }),
  )
}
await server.connect(new StdioServerTransport())
