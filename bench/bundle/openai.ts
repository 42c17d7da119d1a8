/**
 * The bundle benchmark's program on openai-node: stream one answer that may call one tool (its
 * JSON Schema written by hand), print its text as it arrives, and answer the calls of the
 * completed answer.
 */
import OpenAI from "openai"

const weather = ({ city }: { city: string }) => `sunny in ${city}`

const client = new OpenAI()
const stream = client.chat.completions.stream({
  model: "gpt-4o-mini",
  messages: [{ role: "user", content: "What is the weather in Paris?" }],
  tools: [
    {
      type: "function",
      function: {
        name: "weather",
        description: "The weather in a city.",
        parameters: {
          type: "object",
          properties: { city: { type: "string" } },
          required: ["city"],
          additionalProperties: false,
        },
      },
    },
  ],
})
stream.on("content", (delta) => process.stdout.write(delta))
const done = await stream.finalChatCompletion()
for (const call of done.choices[0]?.message.tool_calls ?? []) {
  if (call.type === "function" && call.function.name === "weather") {
    console.log(weather(JSON.parse(call.function.arguments)))
  }
}
