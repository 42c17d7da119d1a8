/**
 * Encoding benchmark: a 1,000-message history (user turns, assistant turns with calls, results)
 * through `OpenAiCodec.encode` then `JSON.stringify`, against `JSON.stringify` of the same body
 * alone. Prints the median times and the ratio.
 *
 * Run: npm run bench (uses `tsx --conditions=@svir/source`).
 */
import { Completion, Request, Tool, ToolCall, ToolResult } from "@svir/core"
import { Effect } from "effect"
import { OpenAiCodec } from "../src/index.js"

const weather = Tool.make("weather", "The weather in a city.", {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
})

let request = Request.make("gpt-bench").pipe(
  Request.system("You are helpful."),
  Request.tool(weather),
)
const messages = []
for (let turn = 0; messages.length < 1000; turn++) {
  messages.push({
    _tag: "User" as const,
    parts: [{ _tag: "Text" as const, text: `What is the weather in city ${turn}?` }],
  })
  const call = ToolCall.make(`call_${turn}`, "weather", `{"city":"City ${turn}"}`)
  messages.push({
    _tag: "Assistant" as const,
    text: "",
    reasoning: "",
    reasoningBySource: [],
    calls: [call],
  })
  messages.push({
    _tag: "Tool" as const,
    result: ToolResult.make(call.id, `Sunny, ${turn % 30} degrees`),
  })
  messages.push({
    _tag: "Assistant" as const,
    ...Completion.make({ text: `It is sunny in city ${turn}.`, finish: "stop" }),
  })
}
request = Request.messages(request, messages.slice(0, 1000))

const encodeJson = () =>
  JSON.stringify(Effect.runSync(OpenAiCodec.encode(request, { stream: true })))
const body = Effect.runSync(OpenAiCodec.encode(request, { stream: true }))
const stringifyOnly = () => JSON.stringify(body)

const median = (run: () => string, runs: number): number => {
  for (let i = 0; i < runs / 4; i++) run()
  const times: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    run()
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

const ours = median(encodeJson, 300)
const baseline = median(stringifyOnly, 300)
console.log(
  `\nEncoder: ${request.messages.length} messages, ${(encodeJson().length / 1024).toFixed(0)} KB of JSON`,
)
console.log(`  OpenAiCodec.encode + JSON.stringify ${ours.toFixed(3).padStart(8)} ms`)
console.log(`  JSON.stringify of the same body      ${baseline.toFixed(3).padStart(8)} ms`)
console.log(`  ratio ${(ours / baseline).toFixed(2)}x`)
