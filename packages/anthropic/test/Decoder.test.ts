import { assert, describe, it } from "@effect/vitest"
import type { Event } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { feed } from "../../../test/decoding.js"
import { AnthropicCodec } from "../src/index.js"

const utf8 = new TextEncoder()
const sse = (...events: ReadonlyArray<unknown>): string =>
  events
    .map((data) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`)
    .join("")

const start = {
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "m",
    content: [],
    usage: { input_tokens: 3, output_tokens: 1 },
  },
}
const textStart = (index: number) => ({
  type: "content_block_start",
  index,
  content_block: { type: "text", text: "" },
})
const text = (index: number, value: string) => ({
  type: "content_block_delta",
  index,
  delta: { type: "text_delta", text: value },
})
const stop = (index: number) => ({ type: "content_block_stop", index })
const toolStart = (index: number, id: string) => ({
  type: "content_block_start",
  index,
  content_block: { type: "tool_use", id, name: "lookup", input: {} },
})
const json = (index: number, piece: string) => ({
  type: "content_block_delta",
  index,
  delta: { type: "input_json_delta", partial_json: piece },
})
const delta = (reason: string, usage: object = { output_tokens: 7 }) => ({
  type: "message_delta",
  delta: { stop_reason: reason, stop_sequence: null },
  usage,
})
const end = { type: "message_stop" }

type Mode = "strict" | "lenient"
const decode = (stream: string, options: AnthropicCodec.Options = {}) =>
  feed(AnthropicCodec.decoder(options), [utf8.encode(stream)])
const kind = (stream: string, mode: Mode = "strict") => decode(stream, { mode }).error?.reason._tag

const answer = sse(start, textStart(0), text(0, "Hi"), stop(0), delta("end_turn"), end)

describe("the decoder", () => {
  it("gives the text, then Completed last; nothing after message_stop is read", () => {
    const outcome = decode(`${answer}event: content_block_delta\ndata: not json\n\n`)
    assert.deepStrictEqual(
      outcome.events.map((event) => event._tag),
      ["TextDelta", "Completed"],
    )
    assert.strictEqual(outcome.completion?.text, "Hi")
    const decoder = AnthropicCodec.decoder()
    decoder.push(utf8.encode(answer))
    assert.isTrue(decoder.done())
    assert.deepStrictEqual(decoder.push(utf8.encode("more")).events, [])
  })

  it("a stream cut before message_stop is a TruncatedStream, and releases no call", () => {
    const cut = sse(start, toolStart(0, "toolu_1"), json(0, '{"q":1}'), stop(0))
    const outcome = decode(cut)
    assert.strictEqual(outcome.error?.reason._tag, "TruncatedStream")
    assert.isTrue(outcome.error?.isRetryable)
    assert.isFalse(outcome.events.some((event) => event._tag === "Completed"))
    assert.strictEqual(kind(sse(start, textStart(0), text(0, "Hi")), "lenient"), "TruncatedStream")
    assert.strictEqual(kind(""), "TruncatedStream")
  })

  it("lenient mode takes an answer whose stop reason came, without message_stop, with a note", () => {
    const cut = sse(start, toolStart(0, "toolu_1"), json(0, '{"q":1}'), stop(0), delta("tool_use"))
    assert.strictEqual(kind(cut), "TruncatedStream")
    const lenient = decode(cut, { mode: "lenient" })
    assert.deepStrictEqual(lenient.completion?.calls, [
      { id: "toolu_1", name: "lookup", arguments: '{"q":1}' },
    ])
    assert.deepStrictEqual(lenient.completion?.notes, [
      "the stream ended after the stop reason, without message_stop",
    ])
  })

  it("the last event read without its blank line", () => {
    const outcome = decode(answer.slice(0, -1))
    assert.strictEqual(outcome.completion?.text, "Hi")
    assert.strictEqual(
      kind(answer.slice(0, -3)),
      "TruncatedStream",
      "a data line cut short is not an event",
    )
  })

  it("calls: an index per call in order, pieces as they come, the start's input when no piece came", () => {
    const outcome = decode(
      sse(
        start,
        toolStart(0, "toolu_1"),
        stop(0),
        toolStart(1, "toolu_2"),
        json(1, '{"a"'),
        json(1, ":2}"),
        stop(1),
        delta("tool_use"),
        end,
      ),
    )
    const calls = outcome.events.filter(
      (event): event is Event.ToolCallDelta => event._tag === "ToolCallDelta",
    )
    assert.deepStrictEqual(calls, [
      { _tag: "ToolCallDelta", index: 0, id: "toolu_1", name: "lookup", arguments: "" },
      { _tag: "ToolCallDelta", index: 0, arguments: "{}" },
      { _tag: "ToolCallDelta", index: 1, id: "toolu_2", name: "lookup", arguments: "" },
      { _tag: "ToolCallDelta", index: 1, arguments: '{"a"' },
      { _tag: "ToolCallDelta", index: 1, arguments: ":2}" },
    ])
    assert.deepStrictEqual(outcome.completion?.calls, [
      { id: "toolu_1", name: "lookup", arguments: "{}" },
      { id: "toolu_2", name: "lookup", arguments: '{"a":2}' },
    ])
  })

  it("stop reasons: max_tokens is length, refusal keeps no call, pause_turn is noted, tool_use needs a call", () => {
    const calls = [toolStart(0, "toolu_1"), json(0, "{}"), stop(0)]
    const cut = decode(sse(start, ...calls, delta("max_tokens"), end))
    assert.strictEqual(cut.completion?.finish, "length")
    assert.deepStrictEqual(cut.completion?.calls, [])
    const refused = decode(sse(start, ...calls, delta("refusal"), end))
    assert.strictEqual(refused.completion?.finish, "refusal")
    assert.deepStrictEqual(refused.completion?.calls, [])
    const paused = decode(
      sse(start, textStart(0), text(0, "Searching"), stop(0), delta("pause_turn"), end),
    )
    assert.strictEqual(paused.completion?.finish, "stop")
    assert.match(paused.completion?.notes?.[0] ?? "", /pause_turn/)
    const window = decode(
      sse(start, textStart(0), text(0, "a"), stop(0), delta("model_context_window_exceeded"), end),
    )
    assert.strictEqual(window.completion?.finish, "length")
    assert.strictEqual(
      decode(sse(start, textStart(0), stop(0), delta("stop_sequence"), end)).completion?.finish,
      "stop",
    )
    assert.strictEqual(kind(sse(start, textStart(0), stop(0), delta("tool_use"), end)), "Protocol")
    const none = decode(sse(start, textStart(0), text(0, "a"), stop(0), end))
    assert.deepStrictEqual(none.completion?.notes, [
      "the server sent no stop reason; the answer's is read as stop",
    ])
  })

  it("what is not Messages is a Protocol error in both modes", () => {
    for (const mode of ["strict", "lenient"] as const) {
      assert.strictEqual(kind(sse(textStart(0)), mode), "Protocol", "a block before message_start")
      assert.strictEqual(
        kind(sse(start, text(0, "a")), mode),
        "Protocol",
        "a delta for a block never started",
      )
      assert.strictEqual(
        kind(sse(start, textStart(0), json(0, "{")), mode),
        "Protocol",
        "a delta of another block's kind",
      )
      assert.strictEqual(
        kind(sse(start, textStart(0), stop(0), text(0, "a")), mode),
        "Protocol",
        "a delta after its block stopped",
      )
      assert.strictEqual(
        kind(sse(start, textStart(0), textStart(0)), mode),
        "Protocol",
        "two blocks at one index",
      )
      assert.strictEqual(
        kind(
          sse(
            start,
            toolStart(0, "t"),
            stop(0),
            toolStart(1, "t"),
            stop(1),
            delta("tool_use"),
            end,
          ),
          mode,
        ),
        "Protocol",
        "two calls with one id",
      )
      assert.strictEqual(
        kind(
          sse(start, { type: "content_block_start", index: -1, content_block: { type: "text" } }),
          mode,
        ),
        "Protocol",
      )
      assert.strictEqual(
        kind(
          sse(start, {
            type: "content_block_start",
            index: 0,
            content_block: { type: "tool_use", name: "x" },
          }),
          mode,
        ),
        "Protocol",
      )
    }
  })

  it("a block left open at message_stop: a Protocol error in strict mode, a note in lenient mode", () => {
    const open = sse(start, textStart(0), text(0, "a"), delta("end_turn"), end)
    assert.strictEqual(kind(open), "Protocol")
    assert.deepStrictEqual(decode(open, { mode: "lenient" }).completion?.notes, [
      "the answer ended with 1 content block(s) not stopped",
    ])
  })

  it("citations and deltas of unknown types: refused in strict mode, left out with a note in lenient mode", () => {
    const cited = sse(
      start,
      textStart(0),
      text(0, "a"),
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "citations_delta", citation: { type: "char_location" } },
      },
      stop(0),
      delta("end_turn"),
      end,
    )
    assert.strictEqual(kind(cited), "Unsupported")
    assert.deepStrictEqual(decode(cited, { mode: "lenient" }).completion?.notes, [
      "the citations of the text were left out",
    ])
    const novel = sse(
      start,
      textStart(0),
      { type: "content_block_delta", index: 0, delta: { type: "sparkle_delta" } },
      stop(0),
      delta("end_turn"),
      end,
    )
    assert.strictEqual(kind(novel), "Unsupported")
    assert.strictEqual(
      decode(novel, { mode: "lenient" }).completion?.notes?.[0],
      "a delta of type sparkle_delta was left out",
    )
  })

  it("data that is not JSON: a Protocol error in strict mode, skipped in lenient mode", () => {
    const stream = answer.replace(
      "event: content_block_stop",
      "event: mystery\ndata: {oops\n\nevent: content_block_stop",
    )
    assert.strictEqual(kind(stream), "Protocol")
    assert.strictEqual(decode(stream, { mode: "lenient" }).completion?.text, "Hi")
  })

  it("bytes that are not UTF-8: a Protocol error in strict mode, U+FFFD in lenient mode", () => {
    const [before, after] = answer.split('"Hi"') as [string, string]
    const bytes = new Uint8Array([
      ...utf8.encode(`${before}"H`),
      0xff,
      ...utf8.encode(`i"${after}`),
    ])
    assert.strictEqual(feed(AnthropicCodec.decoder(), [bytes]).error?.reason._tag, "Protocol")
    assert.strictEqual(
      feed(AnthropicCodec.decoder({ mode: "lenient" }), [bytes]).completion?.text,
      "H\ufffdi",
    )
  })

  it("usage: input counts the cache; counts that are not counts are refused, or the usage left out", () => {
    const cached = decode(
      sse(
        {
          ...start,
          message: {
            ...start.message,
            usage: {
              input_tokens: 3,
              cache_read_input_tokens: 1000,
              cache_creation_input_tokens: 50,
              output_tokens: 1,
            },
          },
        },
        textStart(0),
        stop(0),
        delta("end_turn"),
        end,
      ),
    )
    assert.deepStrictEqual(cached.completion?.usage, {
      input: 1053,
      output: 7,
      total: 1060,
      cachedInput: 1000,
    })
    const bad = sse(start, textStart(0), stop(0), delta("end_turn", { output_tokens: -1 }), end)
    assert.strictEqual(kind(bad), "Protocol")
    assert.isUndefined(decode(bad, { mode: "lenient" }).completion?.usage)
  })

  it("limits: maxCalls, maxEventBytes, maxBytes and nesting", () => {
    const three = sse(
      start,
      toolStart(0, "a"),
      stop(0),
      toolStart(1, "b"),
      stop(1),
      toolStart(2, "c"),
    )
    const limited = decode(three, { maxCalls: 2 })
    assert.strictEqual(limited.error?.reason._tag, "ResponseLimit")
    assert.strictEqual(
      limited.error?.reason._tag === "ResponseLimit" ? limited.error.reason.limit : undefined,
      "maxCalls",
    )
    const big = sse(start, textStart(0), text(0, "x".repeat(2000)))
    const event = decode(big, { maxEventBytes: 1000 }).error
    assert.strictEqual(
      event?.reason._tag === "ResponseLimit" ? event.reason.limit : undefined,
      "maxEventBytes",
    )
    const bytes = decode(answer, { maxBytes: 100 }).error
    assert.strictEqual(
      bytes?.reason._tag === "ResponseLimit" ? bytes.reason.limit : undefined,
      "maxBytes",
    )
    const deep = `${sse(start)}event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":${"[".repeat(200)}${"]".repeat(200)}}\n\n`
    assert.strictEqual(kind(deep), "Protocol")
    assert.strictEqual(kind(deep, "lenient"), "Protocol")
  })

  it("a message_start with content (a replayed one) reads the content as blocks", () => {
    const replay = sse(
      {
        type: "message_start",
        message: {
          id: "msg_r",
          content: [{ type: "tool_use", id: "toolu_r", name: "lookup", input: { id: "c_1" } }],
          stop_reason: "tool_use",
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      },
      end,
    )
    assert.deepStrictEqual(decode(replay).completion?.calls, [
      { id: "toolu_r", name: "lookup", arguments: '{"id":"c_1"}' },
    ])
  })

  it("decodeStream: the same events as an Effect Stream", () => {
    const body = Stream.fromArrays(
      ...[utf8.encode(answer.slice(0, 50)), utf8.encode(answer.slice(50))].map((chunk) => [chunk]),
    )
    const events = Effect.runSync(Stream.runCollect(AnthropicCodec.decodeStream(body)))
    assert.deepStrictEqual(
      Array.from(events, (event) => event._tag),
      ["TextDelta", "Completed"],
    )
  })
})
