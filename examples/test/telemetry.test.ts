import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Telemetry from "../src/telemetry.js"

describe("the telemetry example", () => {
  it.live("shows a chat span and an execute_tool span under the program's span", () =>
    Effect.gen(function* () {
      const spans = yield* Telemetry.traced(false)
      assert.strictEqual(
        Telemetry.summarize(spans),
        "chat qwen3 x1 (in 40 / out 8 tokens), execute_tool lookup x1",
      )
      const chat = spans.find((span) => span.name === "chat qwen3")!
      const agent = spans.find((span) => span.name === "my agent")!
      assert.strictEqual(chat.parentSpanContext?.spanId, agent.spanContext().spanId)
      assert.strictEqual(chat.attributes["gen_ai.provider.name"], "openai")
      assert.deepStrictEqual(chat.attributes["gen_ai.response.finish_reasons"], ["tool_calls"])
      assert.notProperty(chat.attributes, "gen_ai.input.messages")
    }),
  )

  it.live("records the messages, the arguments and the result with RecordContent", () =>
    Effect.gen(function* () {
      const spans = yield* Telemetry.traced(true)
      const chat = spans.find((span) => span.name === "chat qwen3")!
      const tool = spans.find((span) => span.name === "execute_tool lookup")!
      assert.include(String(chat.attributes["gen_ai.input.messages"]), "Where is order 42?")
      assert.strictEqual(tool.attributes["gen_ai.tool.call.arguments"], '{"id":42}')
      assert.strictEqual(tool.attributes["gen_ai.tool.call.result"], "order 42 is shipped")
    }),
  )
})
