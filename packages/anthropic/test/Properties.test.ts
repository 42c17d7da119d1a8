import { assert, describe } from "@effect/vitest"
import { fc, it } from "@fast-check/vitest"
import { Completion, Request, ToolCall, ToolResult } from "@svir/core"
import * as Effect from "effect/Effect"
import { cutAt, feed } from "../../../test/decoding.js"
import { AnthropicCodec, type RequestBody, Thinking } from "../src/index.js"

const base = Request.make("claude-sonnet-4-5")
const encode = (request: Request.Request) =>
  Effect.runSync(AnthropicCodec.encode(request, { stream: false }))
const decodeWhole = (body: unknown) =>
  Effect.runSync(AnthropicCodec.decodeResponse(JSON.stringify(body)))

const text = fc.string({ unit: "grapheme", maxLength: 40 })
const nonBlank = text.filter((value) => value.trim() !== "")
const name = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_-]{0,20}$/)
const input = fc.dictionary(
  fc.string({ maxLength: 8 }),
  fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 12 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  ),
  { maxKeys: 4 },
)
const thinkingBlock: fc.Arbitrary<Thinking.Block> = fc.oneof(
  fc.record({
    type: fc.constant("thinking" as const),
    thinking: nonBlank,
    signature: fc.base64String({ minLength: 4, maxLength: 40 }),
  }),
  fc.record({
    type: fc.constant("redacted_thinking" as const),
    data: fc.base64String({ minLength: 4, maxLength: 40 }),
  }),
)
const calls = fc
  .uniqueArray(fc.tuple(fc.stringMatching(/^toolu_[A-Za-z0-9]{1,12}$/), name, input), {
    maxLength: 4,
    selector: ([id]) => id,
  })
  .map((list) =>
    list.map(([id, callName, args]) => ToolCall.make(id, callName, JSON.stringify(args))),
  )

/** A completion of this codec's kind: text, signed thinking, calls. */
const answer = fc
  .record({ text, thinking: fc.array(thinkingBlock, { maxLength: 3 }), calls })
  .filter((a) => a.text !== "" || a.thinking.length > 0 || a.calls.length > 0)
  .map(({ text, thinking, calls }) => {
    const reasoning = Thinking.reasoning(thinking)
    return Completion.make({
      finish: calls.length > 0 ? "tool_calls" : "stop",
      text,
      reasoning: reasoning.text,
      reasoningBySource: thinking.length > 0 ? [reasoning] : [],
      calls,
    })
  })

describe("encoder properties", () => {
  it.prop([answer])(
    "what an assistant turn sends, read back as an answer, is that turn",
    (completion) => {
      const request = base.pipe(
        Request.user("Go"),
        Request.assistant(completion),
        Request.toolResults(completion.calls.map((call) => ToolResult.make(call.id, "ok"))),
      )
      const sent = encode(request).messages[1]!
      assert.strictEqual(sent.role, "assistant")
      const decoded = decodeWhole({
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: sent.content,
        stop_reason: completion.calls.length > 0 ? "tool_use" : "end_turn",
        usage: { input_tokens: 1, output_tokens: 1 },
      })
      assert.strictEqual(decoded.text, completion.text)
      assert.strictEqual(decoded.reasoning, completion.reasoning)
      assert.deepStrictEqual(Thinking.blocks(decoded), Thinking.blocks(completion))
      assert.strictEqual(decoded.finish, completion.finish)
      assert.deepStrictEqual(
        decoded.calls.map((call) => ({ ...call, arguments: JSON.parse(call.arguments) })),
        completion.calls.map((call) => ({ ...call, arguments: JSON.parse(call.arguments) })),
      )
    },
  )

  it.prop([
    fc.uniqueArray(
      fc.tuple(fc.stringMatching(/^toolu_[A-Za-z0-9]{1,8}$/), nonBlank, fc.boolean()),
      {
        minLength: 1,
        maxLength: 6,
        selector: ([id]) => id,
      },
    ),
  ])(
    "a failed result is is_error with its text unchanged; a good one has no is_error",
    (results) => {
      const callList = results.map(([id]) => ToolCall.make(id, "lookup", "{}"))
      const request = base.pipe(
        Request.user("Go"),
        Request.assistant(Completion.make({ finish: "tool_calls", calls: callList })),
        Request.toolResults(
          results.map(([id, content, failed]) =>
            failed ? ToolResult.error(id, content) : ToolResult.make(id, content),
          ),
        ),
      )
      const blocks = encode(request).messages[2]!
        .content as ReadonlyArray<RequestBody.ToolResultBlock>
      assert.deepStrictEqual(
        blocks,
        results.map(([id, content, failed]) =>
          failed
            ? { type: "tool_result", tool_use_id: id, content, is_error: true }
            : { type: "tool_result", tool_use_id: id, content },
        ),
      )
    },
  )

  /** A piece of a conversation: a user's text, or an assistant turn with its calls' results. */
  const segment = fc.oneof(
    nonBlank.map((value) => ({ kind: "user" as const, text: value })),
    fc.record({ kind: fc.constant("assistant" as const), text: nonBlank, calls: calls }),
  )

  it.prop([fc.array(segment, { minLength: 1, maxLength: 8 })])(
    "merged turns keep every block in order, and the roles alternate",
    (segments) => {
      let request = base
      const expected: Array<string> = []
      for (const piece of segments) {
        if (piece.kind === "user") {
          request = request.pipe(Request.user(piece.text))
          expected.push(`user text ${piece.text}`)
          continue
        }
        request = request.pipe(
          Request.assistant(
            Completion.make({ finish: "tool_calls", text: piece.text, calls: piece.calls }),
          ),
          // Results in the reverse order: they go out in the order of the calls.
          Request.toolResults(
            [...piece.calls].reverse().map((call) => ToolResult.make(call.id, `r ${call.id}`)),
          ),
        )
        expected.push(`assistant text ${piece.text}`)
        for (const call of piece.calls) expected.push(`assistant tool_use ${call.id}`)
        for (const call of piece.calls) expected.push(`user tool_result ${call.id}`)
      }
      const messages = encode(request).messages
      const actual = messages.flatMap((message) =>
        message.content.map((block) => {
          switch (block.type) {
            case "text":
              return `${message.role} text ${block.text}`
            case "tool_use":
              return `${message.role} tool_use ${block.id}`
            case "tool_result":
              return `${message.role} tool_result ${block.tool_use_id}`
            default:
              return `${message.role} ${block.type}`
          }
        }),
      )
      assert.deepStrictEqual(actual, expected)
      for (let i = 1; i < messages.length; i++) {
        assert.notStrictEqual(
          messages[i]!.role,
          messages[i - 1]!.role,
          "two turns of one role in a row",
        )
      }
    },
  )
})

/** A whole answer of the API, and the same answer as a stream cut into random deltas. */
const block = fc.oneof(
  nonBlank.map((value) => ({ type: "text", text: value })),
  thinkingBlock,
  fc.record({
    type: fc.constant("tool_use"),
    id: fc.stringMatching(/^toolu_[A-Za-z0-9]{4}$/),
    name,
    input,
  }),
)

const body = fc
  .record({
    content: fc.array(block, { maxLength: 5 }),
    stop: fc.constantFrom("end_turn", "max_tokens", "stop_sequence", "pause_turn"),
    input: fc.nat({ max: 5000 }),
    output: fc.nat({ max: 5000 }),
    cacheRead: fc.option(fc.nat({ max: 5000 }), { nil: undefined }),
    cacheCreation: fc.option(fc.nat({ max: 5000 }), { nil: undefined }),
    cuts: fc.array(fc.nat({ max: 1000 }), { maxLength: 6 }),
  })
  .filter(
    ({ content }) =>
      new Set(content.flatMap((b) => (b.type === "tool_use" ? [(b as { id: string }).id] : [])))
        .size === content.filter((b) => b.type === "tool_use").length,
  )
  .map((answer) => {
    const hasCalls = answer.content.some((b) => b.type === "tool_use")
    return { ...answer, stop: hasCalls && answer.stop === "end_turn" ? "tool_use" : answer.stop }
  })

const pieces = (value: string, cuts: ReadonlyArray<number>): Array<string> => {
  const points = [...new Set(cuts.map((cut) => cut % (value.length + 1)))].sort((a, b) => a - b)
  const out: Array<string> = []
  let from = 0
  for (const point of points) {
    // Never inside a surrogate pair: a delta is JSON text, whole characters.
    if (point <= from || (value.charCodeAt(point - 1) & 0xfc00) === 0xd800) continue
    out.push(value.slice(from, point))
    from = point
  }
  out.push(value.slice(from))
  return out
}

const sse = (data: unknown): string =>
  `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`

describe("stream and whole answer", () => {
  it.prop([body, fc.array(fc.nat(), { maxLength: 20 })])(
    "the same answer gives the same completion, streamed in any deltas and chunks, or whole",
    (answer, chunkCuts) => {
      const usage = {
        input_tokens: answer.input,
        output_tokens: answer.output,
        ...(answer.cacheRead !== undefined && { cache_read_input_tokens: answer.cacheRead }),
        ...(answer.cacheCreation !== undefined && {
          cache_creation_input_tokens: answer.cacheCreation,
        }),
      }
      const message = { id: "msg_1", type: "message", role: "assistant", model: "claude-test" }
      const whole = decodeWhole({
        ...message,
        content: answer.content,
        stop_reason: answer.stop,
        usage,
      })
      let stream = sse({
        type: "message_start",
        message: {
          ...message,
          content: [],
          stop_reason: null,
          usage: { ...usage, output_tokens: 1 },
        },
      })
      answer.content.forEach((b, index) => {
        const start = (content_block: unknown) => {
          stream += sse({ type: "content_block_start", index, content_block })
        }
        const delta = (d: unknown) => {
          stream += sse({ type: "content_block_delta", index, delta: d })
        }
        if (b.type === "text") {
          start({ type: "text", text: "" })
          for (const piece of pieces((b as { text: string }).text, answer.cuts))
            delta({ type: "text_delta", text: piece })
        } else if (b.type === "thinking") {
          const t = b as { thinking: string; signature: string }
          start({ type: "thinking", thinking: "", signature: "" })
          for (const piece of pieces(t.thinking, answer.cuts))
            delta({ type: "thinking_delta", thinking: piece })
          delta({ type: "signature_delta", signature: t.signature })
        } else if (b.type === "redacted_thinking") {
          start(b)
        } else {
          const call = b as { id: string; name: string; input: object }
          start({ type: "tool_use", id: call.id, name: call.name, input: {} })
          for (const piece of pieces(JSON.stringify(call.input), answer.cuts)) {
            delta({ type: "input_json_delta", partial_json: piece })
          }
        }
        stream += sse({ type: "content_block_stop", index })
      })
      stream += sse({
        type: "message_delta",
        delta: { stop_reason: answer.stop, stop_sequence: null },
        usage: { output_tokens: answer.output },
      })
      stream += sse({ type: "message_stop" })
      const bytes = new TextEncoder().encode(stream)
      const streamed = feed(AnthropicCodec.decoder(), cutAt(bytes, chunkCuts))
      assert.isUndefined(streamed.error, streamed.error?.message)
      assert.deepStrictEqual(streamed.completion, whole)
      const all = answer.input + (answer.cacheRead ?? 0) + (answer.cacheCreation ?? 0)
      assert.deepStrictEqual(whole.usage, {
        input: all,
        output: answer.output,
        total: all + answer.output,
        ...(answer.cacheRead !== undefined && { cachedInput: answer.cacheRead }),
      })
    },
  )
})
