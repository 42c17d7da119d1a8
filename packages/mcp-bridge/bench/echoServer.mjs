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
await server.connect(new StdioServerTransport())
