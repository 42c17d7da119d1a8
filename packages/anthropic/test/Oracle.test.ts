import Anthropic from "@anthropic-ai/sdk"
import { assert, describe, it } from "@effect/vitest"
import { feed } from "../../../test/decoding.js"
import { AnthropicCodec } from "../src/index.js"
import { apiFramed, read } from "./support/recordings.js"

/**
 * The official SDK as an oracle: its `MessageStream` accumulates the same recorded bytes (handed
 * to it by a fetch of our own: no network), and its final message must say what our Completion
 * says: the text, each call's input, the usage counts. The documentation's examples end without
 * the blank line after the last event, which the SDK needs to see `message_stop`: it is added
 * here (ours reads them as printed, D10). Its extended thinking example is left out: its
 * `message_delta` has no usage, and the SDK's accumulator throws on it.
 */
const recordings = [
  "docs/streaming-basic.sse",
  "docs/streaming-tool-use.sse",
  "sdk/basic_response.sse",
  "sdk/tool_use_response.sse",
  "sdk/incomplete_partial_json_response.sse",
  "vercel/anthropic-text.chunks.txt",
  "vercel/anthropic-tool-no-args.chunks.txt",
  "vercel/anthropic-json-tool.1.chunks.txt",
  "vercel/anthropic-json-tool.2.chunks.txt",
  "vercel/anthropic-json-other-tool.1.chunks.txt",
  "vercel/anthropic-message-delta-input-tokens.chunks.txt",
  "vercel/anthropic-clear-thinking.1.chunks.txt",
  "vercel/anthropic-refusal.chunks.txt",
  "vercel/anthropic-web-search-tool.1.chunks.txt",
]

const sseOf = (path: string): string => {
  if (path.endsWith(".chunks.txt")) return apiFramed(read(path))
  const sse = read(path)
  return sse.endsWith("\n\n") ? sse : `${sse}\n`
}

const sdkFinalMessage = (sse: string) => {
  const client = new Anthropic({
    apiKey: "test",
    baseURL: "http://127.0.0.1:9",
    maxRetries: 0,
    fetch: async () => new Response(sse, { headers: { "content-type": "text/event-stream" } }),
  })
  return client.messages
    .stream({ model: "claude-test", max_tokens: 64, messages: [{ role: "user", content: "hi" }] })
    .finalMessage()
}

describe("the official SDK's accumulator over the same bytes", () => {
  for (const path of recordings) {
    it(path, async () => {
      const sse = sseOf(path)
      const message = await sdkFinalMessage(sse)
      // Lenient mode: a server tool's blocks are left out of ours and kept by the SDK; the rest
      // must agree.
      const outcome = feed(AnthropicCodec.decoder({ mode: "lenient" }), [
        new TextEncoder().encode(sse),
      ])
      const done = outcome.completion
      assert.isDefined(done, outcome.error?.message)
      let text = ""
      let thinking = ""
      const inputs: Array<unknown> = []
      for (const block of message.content) {
        if (block.type === "text") text += block.text
        else if (block.type === "thinking") thinking += block.thinking
        else if (block.type === "tool_use") inputs.push(block.input)
      }
      assert.strictEqual(done!.text, text)
      assert.strictEqual(done!.reasoning, thinking)
      if (done!.finish === "tool_calls") {
        assert.deepStrictEqual(
          done!.calls.map((call) => JSON.parse(call.arguments)),
          inputs,
        )
      }
      const usage = message.usage
      if (done!.usage !== undefined) {
        const input =
          usage.input_tokens +
          (usage.cache_creation_input_tokens ?? 0) +
          (usage.cache_read_input_tokens ?? 0)
        assert.strictEqual(done!.usage.input, input)
        assert.strictEqual(done!.usage.output, usage.output_tokens)
      }
    })
  }
})
