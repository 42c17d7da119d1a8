/**
 * The same job as `handWritten.ts`, with Vercel's AI SDK: `streamText` with `stopWhen`.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { stepCountIs, streamText, tool } from "ai"
import { z } from "zod"

const tools = {
  lookup: tool({
    description: "Find an order by its number.",
    inputSchema: z.object({ id: z.number().int() }),
    execute: async (args) => `order ${args.id} is shipped`,
  }),
  now: tool({
    description: "The current time, UTC.",
    inputSchema: z.object({}),
    execute: async () => "2026-01-01T00:00:00Z",
  }),
}

export const agent = async (baseUrl: string, print: (text: string) => void) => {
  const provider = createOpenAICompatible({ name: "scripted", baseURL: baseUrl })
  const result = streamText({
    model: provider.chatModel("scripted"),
    prompt: "Where is order 42, and what time is it?",
    tools,
    stopWhen: stepCountIs(8),
  })
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") print(part.text)
    if (part.type === "tool-result") print(`\n${part.toolName}: ${part.output}\n`)
  }
  return result.text
}
