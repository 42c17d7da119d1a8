import { assert, describe, it } from "@effect/vitest"
import type { Completion } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { feed } from "../../../test/decoding.js"
import { AnthropicCodec, Thinking } from "../src/index.js"
import { apiFramed, read, vercelFramed } from "./support/recordings.js"

const utf8 = new TextEncoder()

type Mode = "strict" | "lenient"

/** A streamed recording decoded whole, in a mode. */
const decode = (text: string, mode: Mode = "strict") =>
  feed(AnthropicCodec.decoder({ mode }), [utf8.encode(text)])

/** A chunks recording, in both framings: both must give the same outcome. */
const decodeChunks = (path: string, mode: Mode = "strict") => {
  const chunks = read(path)
  const api = decode(apiFramed(chunks), mode)
  const vercel = decode(vercelFramed(chunks), mode)
  assert.deepStrictEqual(vercel, api, "the framing changed the outcome")
  return api
}

const completed = (outcome: ReturnType<typeof decode>): Completion.Completion => {
  assert.isUndefined(outcome.error, outcome.error?.message)
  assert.isDefined(outcome.completion)
  return outcome.completion!
}

const whole = (path: string, mode: Mode = "strict") =>
  Effect.runSyncExit(AnthropicCodec.decodeResponse(read(path), { mode }))

const wholeCompletion = (path: string, mode: Mode = "strict"): Completion.Completion => {
  const exit = whole(path, mode)
  if (Exit.isFailure(exit)) assert.fail(`${path} failed: ${String(exit.cause)}`)
  return exit.value
}

describe("the documentation's streams", () => {
  it("basic: text, usage from message_start and message_delta", () => {
    const done = completed(decode(read("docs/streaming-basic.sse")))
    assert.strictEqual(done.text, "Hello!")
    assert.strictEqual(done.finish, "stop")
    assert.strictEqual(done.id, "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY")
    assert.strictEqual(done.model, "claude-opus-4-6")
    assert.deepStrictEqual(done.usage, { input: 25, output: 15, total: 40 })
  })

  it("tool use: the input's partial JSON joined, the call released with tool_use", () => {
    const outcome = decode(read("docs/streaming-tool-use.sse"))
    const done = completed(outcome)
    assert.strictEqual(done.text, "Okay, let's check the weather for San Francisco, CA:")
    assert.strictEqual(done.finish, "tool_calls")
    assert.deepStrictEqual(done.calls, [
      {
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        name: "get_weather",
        arguments: '{"location": "San Francisco, CA", "unit": "fahrenheit"}',
      },
    ])
    assert.deepStrictEqual(done.usage, { input: 472, output: 89, total: 561 })
    // The call's events, as openai-codec gives them: the start with id and name, then pieces.
    const calls = outcome.events.filter((event) => event._tag === "ToolCallDelta")
    assert.deepStrictEqual(calls[0], {
      _tag: "ToolCallDelta",
      index: 0,
      id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
      name: "get_weather",
      arguments: "",
    })
    assert.deepStrictEqual(calls[1], { _tag: "ToolCallDelta", index: 0, arguments: '{"location":' })
    assert.strictEqual(calls.length, 9, "the empty first piece gives no event")
  })

  it("extended thinking: reasoning under source thinking, with its signed block", () => {
    const done = completed(decode(read("docs/streaming-extended-thinking.sse")))
    assert.strictEqual(done.text, "The greatest common divisor of 1071 and 462 is **21**.")
    const thinking =
      "I need to find the GCD of 1071 and 462 using the Euclidean algorithm.\n\n1071 = 2 × 462 + 147\n462 = 3 × 147 + 21\n147 = 7 × 21 + 0\nThe remainder is 0, so GCD(1071, 462) = 21."
    assert.strictEqual(done.reasoning, thinking)
    assert.deepStrictEqual(
      done.reasoningBySource.map(({ source, text }) => ({ source, text })),
      [{ source: "thinking", text: thinking }],
    )
    assert.deepStrictEqual(Thinking.blocks(done), [
      {
        type: "thinking",
        thinking,
        signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...",
      },
    ])
    assert.isUndefined(done.usage, "the example reports no usage: none is made up")
  })

  it("an overloaded_error event is a retryable Transport error", () => {
    const outcome = decode(read("docs/streaming-error.sse"))
    assert.isUndefined(outcome.completion)
    assert.strictEqual(outcome.error?.reason._tag, "Transport")
    assert.isTrue(outcome.error?.isRetryable)
    assert.strictEqual(outcome.error?.serverMessage, "Overloaded")
  })

  it("an error event in the middle of an answer comes after the text before it, and no call goes out", () => {
    const basic = read("docs/streaming-basic.sse")
    const cut = basic.slice(0, basic.indexOf("event: content_block_stop"))
    const toolUse = read("docs/streaming-tool-use.sse")
    const beforeStop = toolUse.slice(0, toolUse.indexOf("event: message_delta"))
    for (const prefix of [cut, beforeStop]) {
      const outcome = decode(`${prefix}${read("docs/streaming-error.sse")}\n`)
      assert.isUndefined(outcome.completion)
      assert.strictEqual(outcome.error?.reason._tag, "Transport")
      assert.isFalse(outcome.events.some((event) => event._tag === "Completed"))
      assert.isTrue(outcome.events.some((event) => event._tag === "TextDelta"))
    }
  })
})

describe("anthropic-sdk-typescript's streams", () => {
  it("basic_response: the SDK's finalText", () => {
    const done = completed(decode(read("sdk/basic_response.sse")))
    assert.strictEqual(done.text, "Hello there!")
    assert.deepStrictEqual(done.usage, { input: 11, output: 6, total: 17 })
  })

  it("tool_use_response: the SDK's finalText and the call's input { location: Paris }", () => {
    const done = completed(decode(read("sdk/tool_use_response.sse")))
    assert.strictEqual(done.text, "I'll check the current weather in Paris for you.")
    assert.strictEqual(done.calls.length, 1)
    assert.strictEqual(done.calls[0]!.id, "toolu_01NRLabsLyVHZPKxbKvkfSMn")
    assert.deepStrictEqual(JSON.parse(done.calls[0]!.arguments), { location: "Paris" })
    assert.deepStrictEqual(done.usage, { input: 377, output: 65, total: 442, cachedInput: 0 })
  })

  it("incomplete_partial_json_response: cut by max_tokens inside a call, which is not released", () => {
    for (const mode of ["strict", "lenient"] as const) {
      const outcome = decode(read("sdk/incomplete_partial_json_response.sse"), mode)
      const done = completed(outcome)
      assert.strictEqual(done.finish, "length")
      assert.deepStrictEqual(done.calls, [])
      assert.deepStrictEqual(done.notes, [
        "1 call(s) of the answer were not released (stop reason max_tokens)",
      ])
      // Its pieces were shown as they came, all the same.
      assert.isTrue(outcome.events.some((event) => event._tag === "ToolCallDelta"))
    }
  })
})

describe("vercel/ai's streams", () => {
  it("anthropic-text", () => {
    const done = completed(decodeChunks("vercel/anthropic-text.chunks.txt"))
    assert.strictEqual(
      done.text,
      "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
    )
    assert.strictEqual(done.id, "msg_01QC4g3HwBThD4BaNtBckFDJ")
    assert.deepStrictEqual(done.usage, { input: 12, output: 30, total: 42, cachedInput: 0 })
  })

  it('anthropic-tool-no-args: the input is {} (vercel/ai expects input "{}")', () => {
    const outcome = decodeChunks("vercel/anthropic-tool-no-args.chunks.txt")
    const done = completed(outcome)
    assert.deepStrictEqual(done.calls, [
      { id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", arguments: "{}" },
    ])
    assert.strictEqual(done.finish, "tool_calls")
    // vercel/ai: inputTokens total 565 (no cache), outputTokens 48.
    assert.deepStrictEqual(done.usage, { input: 565, output: 48, total: 613, cachedInput: 0 })
  })

  it("anthropic-message-delta-input-tokens: message_delta's input count wins (vercel/ai: 61 and 2)", () => {
    const done = completed(decodeChunks("vercel/anthropic-message-delta-input-tokens.chunks.txt"))
    assert.strictEqual(done.text, "pong")
    assert.deepStrictEqual(done.usage, { input: 61, output: 2, total: 63 })
  })

  it("anthropic-json-tool.1, .2 and json-other-tool: the calls' input whole", () => {
    const expected = {
      elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }],
    }
    for (const path of [
      "vercel/anthropic-json-tool.1.chunks.txt",
      "vercel/anthropic-json-tool.2.chunks.txt",
    ]) {
      const done = completed(decodeChunks(path))
      assert.strictEqual(done.calls.length, 1)
      assert.deepStrictEqual(JSON.parse(done.calls[0]!.arguments), expected)
    }
    const other = completed(decodeChunks("vercel/anthropic-json-other-tool.1.chunks.txt"))
    assert.deepStrictEqual(JSON.parse(other.calls[0]!.arguments), { location: "San Francisco" })
  })

  it("anthropic-clear-thinking.1: thinking with its signature, then text", () => {
    const done = completed(decodeChunks("vercel/anthropic-clear-thinking.1.chunks.txt"))
    assert.strictEqual(done.text, "925 ÷ 5 = 185")
    const blocks = Thinking.blocks(done)
    assert.strictEqual(blocks.length, 1)
    assert.strictEqual(blocks[0]!.type, "thinking")
    assert.isTrue(
      blocks[0]!.type === "thinking" && blocks[0]!.signature.startsWith("EvQBCkYICxgCKkAx"),
    )
    assert.isTrue(done.reasoning.startsWith("The previous result was 925."))
  })

  it("anthropic-refusal: finish refusal, the stop details' explanation as the refusal (vercel/ai: content-filter)", () => {
    const outcome = decodeChunks("vercel/anthropic-refusal.chunks.txt")
    const done = completed(outcome)
    assert.strictEqual(done.finish, "refusal")
    assert.strictEqual(
      done.refusal,
      "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
    )
    assert.isTrue(outcome.events.some((event) => event._tag === "RefusalDelta"))
  })

  it("anthropic-fallback: the fallback block is a note, the served text the answer", () => {
    const done = completed(decodeChunks("vercel/anthropic-fallback.chunks.txt"))
    assert.strictEqual(
      done.text,
      "The printing press was invented by Johannes Gutenberg around 1440.",
    )
    assert.deepStrictEqual(done.notes, [
      "the server answered with the fallback model claude-opus-4-8",
    ])
  })

  it("anthropic-web-search-tool.1: server tool blocks are refused in strict mode, noted in lenient mode", () => {
    const strict = decodeChunks("vercel/anthropic-web-search-tool.1.chunks.txt")
    assert.strictEqual(strict.error?.reason._tag, "Unsupported")
    assert.isUndefined(strict.completion)
    const lenient = completed(
      decodeChunks("vercel/anthropic-web-search-tool.1.chunks.txt", "lenient"),
    )
    assert.deepStrictEqual(lenient.notes, [
      "a content block of type server_tool_use was left out",
      "a content block of type web_search_tool_result was left out",
      "the citations of the text were left out",
    ])
    assert.strictEqual(lenient.calls.length, 0, "a server tool's call is not the caller's to run")
  })

  it("duplicate-message-start: ignored, as vercel/ai does", () => {
    const done = completed(decodeChunks("vercel/duplicate-message-start.chunks.txt"))
    assert.strictEqual(done.text, "Hello, World!")
  })

  it("spliced-message-start: a second message in the middle is an error, as vercel/ai says", () => {
    for (const mode of ["strict", "lenient"] as const) {
      const outcome = decodeChunks("vercel/spliced-message-start.chunks.txt", mode)
      assert.strictEqual(outcome.error?.reason._tag, "Protocol")
      assert.isUndefined(outcome.completion)
    }
  })
})

describe("vercel/ai's whole answers", () => {
  it("anthropic-text.json", () => {
    const done = wholeCompletion("vercel/anthropic-text.json")
    assert.strictEqual(
      done.text,
      "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
    )
    assert.deepStrictEqual(done.usage, { input: 12, output: 29, total: 41, cachedInput: 0 })
  })

  it("anthropic-tool-no-args.json: the text as it is (tags and all), the call's input {}", () => {
    const done = wholeCompletion("vercel/anthropic-tool-no-args.json")
    assert.isTrue(done.text.startsWith("<thinking>\nThe updateIssueList tool was provided"))
    assert.deepStrictEqual(done.calls, [
      { id: "toolu_01LRmxn9vGM1d2DZSDBowdZ1", name: "updateIssueList", arguments: "{}" },
    ])
  })

  it("anthropic-json-tool.1.json: the input object as JSON text", () => {
    const done = wholeCompletion("vercel/anthropic-json-tool.1.json")
    const input = JSON.parse(read("vercel/anthropic-json-tool.1.json")).content[0].input
    assert.deepStrictEqual(JSON.parse(done.calls[0]!.arguments), input)
  })

  it("refusals, with and without stop details", () => {
    const withDetails = wholeCompletion("vercel/anthropic-refusal.json")
    assert.strictEqual(withDetails.finish, "refusal")
    assert.isTrue(withDetails.refusal.startsWith("This request triggered restrictions"))
    const without = wholeCompletion("vercel/anthropic-refusal-no-details.json")
    assert.strictEqual(without.finish, "refusal")
    assert.strictEqual(without.refusal, "")
  })

  it("thinking with a signature, and thinking_tokens as reasoning", () => {
    const clear = wholeCompletion("vercel/anthropic-clear-thinking.1.json")
    assert.strictEqual(clear.reasoning, "925 divided by 5 = 185")
    assert.strictEqual(Thinking.blocks(clear).length, 1)
    const high = wholeCompletion("vercel/anthropic-claude-opus-5-reasoning-high.1.json")
    assert.strictEqual(high.usage?.reasoning, 139)
    assert.strictEqual(Thinking.blocks(high).length, 1)
  })

  it("anthropic-fallback.json: as streamed", () => {
    const done = wholeCompletion("vercel/anthropic-fallback.json")
    assert.deepStrictEqual(done.notes, [
      "the server answered with the fallback model claude-opus-4-8",
    ])
  })

  it("anthropic-web-fetch-tool.error.json: server tool blocks refused, or left out with notes", () => {
    const strict = whole("vercel/anthropic-web-fetch-tool.error.json")
    assert.isTrue(Exit.isFailure(strict))
    const lenient = wholeCompletion("vercel/anthropic-web-fetch-tool.error.json", "lenient")
    assert.isTrue(lenient.text.startsWith("I'll fetch the PDF document"))
    assert.strictEqual(lenient.notes?.length, 2)
  })
})
