/**
 * The bundle benchmark's program on the AI SDK: stream one answer that may call one tool (a zod
 * schema), print its text as it arrives; the SDK answers the calls of the answer.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { streamText, tool } from "ai"
import { z } from "zod"

// The key is left out (this package reads none from the environment): a few bytes either way.
const provider = createOpenAICompatible({ name: "openai", baseURL: "https://api.openai.com/v1" })

const result = streamText({
  model: provider.chatModel("gpt-4o-mini"),
  prompt: "What is the weather in Paris?",
  tools: {
    weather: tool({
      description: "The weather in a city.",
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => `sunny in ${city}`,
    }),
  },
})
for await (const text of result.textStream) process.stdout.write(text)
for (const output of await result.toolResults) console.log(output.output)
