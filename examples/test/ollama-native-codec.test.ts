import { assert, describe, it } from "@effect/vitest"
import { describeCases } from "@svir/conformance/vitest"
import { Completion, Message, Request, Tool, ToolCall, ToolChoice, ToolResult } from "@svir/core"
import { Effect } from "effect"
import * as OllamaNative from "../src/ollama-native-codec.js"

describeCases("a third-party codec: Ollama's native chat", OllamaNative.make, [
  new URL("../cases/ollama-native", import.meta.url),
])

describe("a third-party codec: encoding", () => {
  const now = Tool.make("now", "The current time, UTC.")
  const asked = Request.make("qwen3").pipe(Request.user("What time is it?"), Request.tool(now))

  it.effect("writes the history with calls and marks failed results", () =>
    Effect.gen(function* () {
      const done = Completion.make({ calls: [ToolCall.make("c1", "now")], finish: "tool_calls" })
      const request = asked.pipe(
        Request.assistant(done),
        Request.toolResults([ToolResult.error("c1", "the clock is broken")]),
      )
      const body = (yield* OllamaNative.encode(request, { stream: true })) as {
        readonly messages: ReadonlyArray<Record<string, unknown>>
        readonly tools: ReadonlyArray<unknown>
      }
      assert.deepStrictEqual(body.messages[1], {
        role: "assistant",
        content: "",
        tool_calls: [{ function: { name: "now", arguments: {} } }],
      })
      assert.deepStrictEqual(body.messages[2], {
        role: "tool",
        content: "error: the clock is broken",
      })
      assert.strictEqual(body.tools.length, 1)
    }),
  )

  it.effect("refuses what its wire cannot carry instead of dropping it", () =>
    Effect.gen(function* () {
      const required = yield* Effect.flip(
        OllamaNative.encode(Request.toolChoice(asked, ToolChoice.required), { stream: false }),
      )
      assert.strictEqual(required.reason._tag, "Unsupported")
      const byUrl = Request.user(asked, [Message.imageUrl("https://example.com/cat.png")])
      const image = yield* Effect.flip(OllamaNative.encode(byUrl, { stream: false }))
      assert.strictEqual(image.reason._tag, "Unsupported")
      const bytes = Request.user(asked, [Message.image(new Uint8Array([1, 2, 3]), "image/png")])
      const body = (yield* OllamaNative.encode(bytes, { stream: false })) as {
        readonly messages: ReadonlyArray<Record<string, unknown>>
      }
      assert.deepStrictEqual(body.messages[1], { role: "user", content: "", images: ["AQID"] })
    }),
  )
})
