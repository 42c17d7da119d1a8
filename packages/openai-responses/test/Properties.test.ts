import { assert, describe } from "@effect/vitest"
import { fc, it } from "@fast-check/vitest"
import * as Effect from "effect/Effect"
import { cutAt, feed, joined } from "../../../test/decoding.js"
import { Reasoning, ResponsesCodec } from "../src/index.js"
import { responseResource, sse } from "./support/events.js"
import { eventErrors, responseErrors } from "./support/openapi.js"

const text = fc.string({ unit: "grapheme", maxLength: 30 })
const name = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_-]{0,20}$/)
const args = fc
  .dictionary(
    fc.string({ maxLength: 8 }),
    fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 12 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    ),
    { maxKeys: 4 },
  )
  .map((value) => JSON.stringify(value))

interface Message {
  readonly type: "message"
  readonly texts: ReadonlyArray<string>
}
interface Call {
  readonly type: "function_call"
  readonly name: string
  readonly arguments: string
}
interface Thought {
  readonly type: "reasoning"
  readonly summary: ReadonlyArray<string>
  readonly content: ReadonlyArray<string> | undefined
  readonly encrypted: string | undefined
}
type Generated = Message | Call | Thought

const item: fc.Arbitrary<Generated> = fc.oneof(
  fc.record({
    type: fc.constant("message" as const),
    texts: fc.array(text, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ type: fc.constant("function_call" as const), name, arguments: args }),
  fc.record({
    type: fc.constant("reasoning" as const),
    summary: fc.array(text, { maxLength: 3 }),
    content: fc.option(fc.array(text, { maxLength: 2 }), { nil: undefined }),
    encrypted: fc.option(fc.base64String({ minLength: 4, maxLength: 40 }), { nil: undefined }),
  }),
)

/** An answer of the API, and how its stream is cut: deltas, part events, the terminal output. */
const answer = fc.record({
  items: fc.array(item, { maxLength: 6 }),
  ending: fc.constantFrom("completed", "max_output_tokens", "content_filter"),
  input: fc.nat({ max: 5000 }),
  output: fc.nat({ max: 5000 }),
  cached: fc.option(fc.nat({ max: 5000 }), { nil: undefined }),
  reasoningTokens: fc.option(fc.nat({ max: 5000 }), { nil: undefined }),
  cuts: fc.array(fc.nat({ max: 1000 }), { maxLength: 6 }),
  partEvents: fc.boolean(),
  terminalOutput: fc.boolean(),
})
type Answer = typeof answer extends fc.Arbitrary<infer A> ? A : never

/** The output items of the wire, each with its ids. */
const wireItems = (items: ReadonlyArray<Generated>) =>
  items.map((generated, index) => {
    switch (generated.type) {
      case "message":
        return {
          type: "message" as const,
          id: `msg_${index}`,
          role: "assistant",
          status: "completed",
          content: generated.texts.map((value) => ({
            type: "output_text",
            text: value,
            annotations: [],
          })),
        }
      case "function_call":
        return {
          type: "function_call" as const,
          id: `fc_${index}`,
          call_id: `call_${index}`,
          name: generated.name,
          arguments: generated.arguments,
          status: "completed",
        }
      default:
        return {
          type: "reasoning" as const,
          id: `rs_${index}`,
          summary: generated.summary.map((value) => ({ type: "summary_text", text: value })),
          ...(generated.content !== undefined && {
            content: generated.content.map((value) => ({ type: "reasoning_text", text: value })),
          }),
          ...(generated.encrypted !== undefined && { encrypted_content: generated.encrypted }),
        }
    }
  })

/** A text in pieces, cut at the given points, never inside a surrogate pair. */
const pieces = (value: string, cuts: ReadonlyArray<number>): Array<string> => {
  const points = [...new Set(cuts.map((cut) => cut % (value.length + 1)))].sort((a, b) => a - b)
  const out: Array<string> = []
  let from = 0
  for (const point of points) {
    if (point <= from || (value.charCodeAt(point - 1) & 0xfc00) === 0xd800) continue
    out.push(value.slice(from, point))
    from = point
  }
  out.push(value.slice(from))
  return out
}

/** The response resource of an answer. */
const responseOf = (a: Answer, output: ReadonlyArray<unknown>) =>
  responseResource({
    status: a.ending === "completed" ? "completed" : "incomplete",
    model: "gpt-test",
    output,
    error: null,
    incomplete_details: a.ending === "completed" ? null : { reason: a.ending },
    usage: {
      input_tokens: a.input,
      output_tokens: a.output,
      total_tokens: a.input + a.output,
      ...(a.cached !== undefined && { input_tokens_details: { cached_tokens: a.cached } }),
      ...(a.reasoningTokens !== undefined && {
        output_tokens_details: { reasoning_tokens: a.reasoningTokens },
      }),
    },
  })

/** The answer streamed as the API streams it: each item added, its deltas, then done. */
const eventsOf = (a: Answer): ReadonlyArray<object> => {
  const events: Array<object> = []
  const output = wireItems(a.items)
  events.push({
    type: "response.created",
    sequence_number: 0,
    response: { ...responseOf(a, []), status: "in_progress", usage: null },
  })
  output.forEach((wireItem, index) => {
    const at = { output_index: index, item_id: wireItem.id }
    const emptied =
      wireItem.type === "message"
        ? { ...wireItem, status: "in_progress", content: [] }
        : wireItem.type === "function_call"
          ? { ...wireItem, status: "in_progress", arguments: "" }
          : { ...wireItem, summary: [], ...(wireItem.content !== undefined && { content: [] }) }
    events.push({ type: "response.output_item.added", ...at, item: emptied })
    if (wireItem.type === "message") {
      wireItem.content.forEach((part, content) => {
        if (a.partEvents) {
          events.push({
            type: "response.content_part.added",
            ...at,
            content_index: content,
            part: { ...part, text: "" },
          })
        }
        for (const delta of pieces(part.text, a.cuts)) {
          if (delta !== "")
            events.push({
              type: "response.output_text.delta",
              ...at,
              content_index: content,
              delta,
            })
        }
      })
    } else if (wireItem.type === "function_call") {
      for (const delta of pieces(wireItem.arguments, a.cuts)) {
        events.push({ type: "response.function_call_arguments.delta", ...at, delta })
      }
    } else {
      wireItem.summary.forEach((part, summary) => {
        if (a.partEvents) {
          events.push({
            type: "response.reasoning_summary_part.added",
            ...at,
            summary_index: summary,
            part: { ...part, text: "" },
          })
        }
        for (const delta of pieces(part.text, a.cuts)) {
          events.push({
            type: "response.reasoning_summary_text.delta",
            ...at,
            summary_index: summary,
            delta,
          })
        }
      })
      wireItem.content?.forEach((part, content) => {
        for (const delta of pieces(part.text, a.cuts)) {
          events.push({
            type: "response.reasoning.delta",
            ...at,
            content_index: content,
            delta,
          })
        }
      })
    }
    events.push({ type: "response.output_item.done", ...at, item: wireItem })
  })
  const type = a.ending === "completed" ? "response.completed" : "response.incomplete"
  events.push({ type, response: responseOf(a, a.terminalOutput ? output : []) })
  return events.map((event, sequence) => ({ ...event, sequence_number: sequence }))
}

const streamOf = (a: Answer): string => sse(...eventsOf(a))

const utf8 = new TextEncoder()

describe("stream and whole answer", () => {
  it.prop([answer, fc.array(fc.nat(), { maxLength: 20 })], { numRuns: 300 })(
    "the same answer gives the same completion, streamed in any deltas and chunks, or whole",
    (a, chunkCuts) => {
      const output = wireItems(a.items)
      const whole = Effect.runSync(
        ResponsesCodec.decodeResponse(JSON.stringify(responseOf(a, output))),
      )
      const bytes = utf8.encode(streamOf(a))
      const streamed = feed(ResponsesCodec.decoder(), cutAt(bytes, chunkCuts))
      assert.isUndefined(streamed.error, streamed.error?.message)
      assert.deepStrictEqual(streamed.completion, whole)

      // The oracle: the answer as generated.
      const calls = output.flatMap((wireItem) =>
        wireItem.type === "function_call"
          ? [{ id: wireItem.call_id, name: wireItem.name, arguments: wireItem.arguments }]
          : [],
      )
      const reasoningItems = output.filter(
        (wireItem) => wireItem.type === "reasoning",
      ) as Array<Reasoning.Item>
      const finish = {
        completed: calls.length > 0 ? "tool_calls" : "stop",
        max_output_tokens: "length",
        content_filter: "content_filter",
      }[a.ending]
      assert.strictEqual(whole.finish, finish)
      assert.strictEqual(
        whole.text,
        a.items.flatMap((g) => (g.type === "message" ? g.texts : [])).join(""),
      )
      assert.deepStrictEqual(whole.calls, a.ending === "completed" ? calls : [])
      assert.strictEqual(whole.reasoning, Reasoning.textOf(reasoningItems))
      assert.deepStrictEqual(Reasoning.items(whole), reasoningItems)
      assert.deepStrictEqual(whole.usage, {
        input: a.input,
        output: a.output,
        total: a.input + a.output,
        ...(a.cached !== undefined && { cachedInput: a.cached }),
        ...(a.reasoningTokens !== undefined && { reasoning: a.reasoningTokens }),
      })

      // The events add up to the completion; the calls' pieces are numbered by their order.
      const added = joined(streamed.events)
      assert.strictEqual(added.text, whole.text)
      assert.strictEqual(added.reasoning, whole.reasoning)
      assert.deepStrictEqual(added.calls, calls)
      assert.isTrue(
        streamed.events.every(
          (event) => event._tag !== "ReasoningDelta" || event.source === Reasoning.source,
        ),
      )
    },
  )

  it.prop([answer], { numRuns: 100 })(
    "the generated answers are valid Open Responses, streamed and whole",
    (generated) => {
      // The specification requires the usage's details, which the other properties leave out too.
      const a = {
        ...generated,
        cached: generated.cached ?? 0,
        reasoningTokens: generated.reasoningTokens ?? 0,
      }
      for (const event of eventsOf(a))
        assert.deepStrictEqual(eventErrors(event), [], JSON.stringify(event))
      assert.deepStrictEqual(responseErrors(responseOf(a, wireItems(a.items))), [])
    },
  )

  it.prop([answer, fc.nat()], { numRuns: 200 })(
    "a stream cut before its terminal event is a TruncatedStream, with no Completed",
    (a, at) => {
      const stream = streamOf(a)
      const terminal = stream.lastIndexOf("event: response.")
      const bytes = utf8.encode(stream.slice(0, at % (terminal + 1)))
      for (const mode of ["strict", "lenient"] as const) {
        const outcome = feed(ResponsesCodec.decoder({ mode }), [bytes])
        assert.strictEqual(outcome.error?.reason._tag, "TruncatedStream")
        assert.isFalse(outcome.events.some((event) => event._tag === "Completed"))
      }
    },
  )
})
