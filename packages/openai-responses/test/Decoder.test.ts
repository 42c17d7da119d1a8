import { assert, describe, it } from "@effect/vitest"
import type { Completion } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { feed, joined } from "../../../test/decoding.js"
import { Reasoning, ResponsesCodec } from "../src/index.js"
import { responseResource, sse } from "./support/events.js"
import { eventErrors, responseErrors } from "./support/openapi.js"

const utf8 = new TextEncoder()

const response = responseResource
/** OpenAI's error event, its error nested (vercel/ai's `openai-error.1`). */
const quotaEvent = {
  type: "error",
  sequence_number: 2,
  error: {
    type: "insufficient_quota",
    code: "insufficient_quota",
    message: "You exceeded your current quota",
    param: null,
  },
}
const created = { type: "response.created", sequence_number: 0, response: response() }
/** Where an event points: its item by output_index (and an item_id, which D26 does not read). */
const at = (index: number) => ({
  sequence_number: 1,
  output_index: index,
  item_id: `item_${index}`,
})

const message = (text: string, id = "msg_1") => ({
  type: "message",
  id,
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
})
const functionCall = (callId: string, args: string, id = `fc_${callId}`) => ({
  type: "function_call",
  id,
  call_id: callId,
  name: "lookup",
  arguments: args,
  status: "completed",
})
const reasoningItem = (id: string, summary: ReadonlyArray<string>, encrypted = `gAAAA${id}`) => ({
  type: "reasoning" as const,
  id,
  summary: summary.map((text) => ({ type: "summary_text", text })),
  encrypted_content: encrypted,
})

const added = (index: number, item: object) => ({
  type: "response.output_item.added",
  sequence_number: 1,
  output_index: index,
  item,
})
const done = (index: number, item: object) => ({
  type: "response.output_item.done",
  sequence_number: 1,
  output_index: index,
  item,
})
const partAdded = (index: number, part = 0, type = "output_text") => ({
  type: "response.content_part.added",
  ...at(index),
  content_index: part,
  part: type === "refusal" ? { type, refusal: "" } : { type, text: "", annotations: [] },
})
const textDelta = (index: number, delta: string, part = 0) => ({
  type: "response.output_text.delta",
  ...at(index),
  content_index: part,
  delta,
  logprobs: [],
})
const argsDelta = (index: number, delta: string) => ({
  type: "response.function_call_arguments.delta",
  ...at(index),
  delta,
})
const summaryPart = (index: number, summary: number) => ({
  type: "response.reasoning_summary_part.added",
  ...at(index),
  summary_index: summary,
  part: { type: "summary_text", text: "" },
})
const summaryDelta = (index: number, summary: number, delta: string) => ({
  type: "response.reasoning_summary_text.delta",
  ...at(index),
  summary_index: summary,
  delta,
})
const usage = {
  input_tokens: 120,
  input_tokens_details: { cached_tokens: 64 },
  output_tokens: 30,
  output_tokens_details: { reasoning_tokens: 12 },
  total_tokens: 150,
}
const completed = (output: ReadonlyArray<object>, fields: object = {}) => ({
  type: "response.completed",
  sequence_number: 2,
  response: response({ status: "completed", output, usage, ...fields }),
})
const incomplete = (output: ReadonlyArray<object>, reason: string) => ({
  type: "response.incomplete",
  sequence_number: 2,
  response: response({ status: "incomplete", output, usage, incomplete_details: { reason } }),
})

type Mode = "strict" | "lenient"
const decode = (stream: string, options: ResponsesCodec.Options = {}) =>
  feed(ResponsesCodec.decoder(options), [utf8.encode(stream)])
const kind = (stream: string, mode: Mode = "strict") => decode(stream, { mode }).error?.reason._tag
const decodeWhole = (body: unknown, mode: Mode = "strict") =>
  Effect.runSyncExit(ResponsesCodec.decodeResponse(JSON.stringify(body), { mode }))
const wholeKind = (body: unknown, mode: Mode = "strict") => {
  const exit = decodeWhole(body, mode)
  return Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail"
    ? exit.cause.reasons[0].error.reason._tag
    : undefined
}
const completionOf = (body: unknown): Completion.Completion => {
  const exit = decodeWhole(body)
  if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
  return exit.value
}

const hello = sse(
  created,
  added(0, { ...message(""), status: "in_progress", content: [] }),
  partAdded(0),
  textDelta(0, "Hel"),
  textDelta(0, "lo"),
  done(0, message("Hello")),
  completed([message("Hello")]),
)

describe("the decoder", () => {
  it("gives the text, then Completed last; nothing after the terminal event is read", () => {
    const outcome = decode(`${hello}event: response.output_text.delta\ndata: not json\n\n`)
    assert.deepStrictEqual(
      outcome.events.map((event) => event._tag),
      ["TextDelta", "TextDelta", "Completed"],
    )
    assert.deepStrictEqual(outcome.completion, {
      id: "resp_1",
      model: "gpt-5",
      text: "Hello",
      reasoning: "",
      reasoningBySource: [],
      refusal: "",
      calls: [],
      finish: "stop",
      usage: { input: 120, output: 30, total: 150, cachedInput: 64, reasoning: 12 },
    })
    const decoder = ResponsesCodec.decoder()
    decoder.push(utf8.encode(hello))
    assert.isTrue(decoder.done())
    assert.deepStrictEqual(decoder.push(utf8.encode("more")).events, [])
  })

  it("a stream cut before the terminal event is a TruncatedStream, and releases no call", () => {
    const cut = sse(
      created,
      added(0, functionCall("call_1", "")),
      argsDelta(0, '{"q":1}'),
      done(0, functionCall("call_1", '{"q":1}')),
    )
    for (const mode of ["strict", "lenient"] as const) {
      const outcome = decode(cut, { mode })
      assert.strictEqual(outcome.error?.reason._tag, "TruncatedStream")
      assert.isTrue(outcome.error?.isRetryable)
      assert.isFalse(outcome.events.some((event) => event._tag === "Completed"))
    }
    assert.strictEqual(kind(""), "TruncatedStream")
  })

  it("the last event is read without its blank line; a data line cut short is not an event", () => {
    assert.strictEqual(decode(hello.slice(0, -2)).completion?.text, "Hello")
    assert.strictEqual(kind(hello.slice(0, -5)), "TruncatedStream")
  })

  it("calls: the call_id is the id, the index the call's place among the calls", () => {
    const outcome = decode(
      sse(
        created,
        added(0, reasoningItem("rs_1", [])),
        done(0, reasoningItem("rs_1", [])),
        added(1, functionCall("call_a", "")),
        argsDelta(1, '{"a"'),
        argsDelta(1, ":1}"),
        done(1, functionCall("call_a", '{"a":1}')),
        added(2, { ...message(""), content: [] }),
        done(2, { ...message(""), content: [] }),
        added(3, functionCall("call_b", "")),
        done(3, functionCall("call_b", "{}")),
        completed([]),
      ),
    )
    const pieces = outcome.events.filter((event) => event._tag === "ToolCallDelta")
    assert.deepStrictEqual(pieces, [
      { _tag: "ToolCallDelta", index: 0, id: "call_a", name: "lookup", arguments: "" },
      { _tag: "ToolCallDelta", index: 0, arguments: '{"a"' },
      { _tag: "ToolCallDelta", index: 0, arguments: ":1}" },
      { _tag: "ToolCallDelta", index: 1, id: "call_b", name: "lookup", arguments: "" },
      // No delta came: the arguments of the item done are the rest (D15).
      { _tag: "ToolCallDelta", index: 1, arguments: "{}" },
    ])
    assert.strictEqual(outcome.completion?.finish, "tool_calls")
    assert.deepStrictEqual(outcome.completion?.calls, [
      { id: "call_a", name: "lookup", arguments: '{"a":1}' },
      { id: "call_b", name: "lookup", arguments: "{}" },
    ])
  })

  it("reasoning: parts joined by a blank line, sent as its own delta; the items kept as sent", () => {
    const first = reasoningItem("rs_1", ["**Plan**", "Add them."])
    const second = { ...reasoningItem("rs_2", ["Check."]), content: [] }
    const outcome = decode(
      sse(
        created,
        added(0, { ...reasoningItem("rs_1", [], "partial"), summary: [] }),
        summaryPart(0, 0),
        summaryDelta(0, 0, "**Pl"),
        summaryDelta(0, 0, "an**"),
        summaryPart(0, 1),
        summaryDelta(0, 1, "Add them."),
        done(0, first),
        added(1, { ...second, summary: [] }),
        // No part event: the delta of a new part starts it.
        summaryDelta(1, 0, "Check."),
        done(1, second),
        completed([{ ...first, encrypted_content: "gAAAA-again" }, second]),
      ),
    )
    const reasoning = outcome.events.filter((event) => event._tag === "ReasoningDelta")
    assert.deepStrictEqual(
      reasoning.map((event) => event.text),
      ["**Pl", "an**", "\n\n", "Add them.", "\n\n", "Check."],
    )
    assert.isTrue(reasoning.every((event) => event.source === "reasoning"))
    const completion = outcome.completion!
    assert.strictEqual(completion.reasoning, "**Plan**\n\nAdd them.\n\nCheck.")
    assert.strictEqual(completion.reasoning, joined(outcome.events).reasoning)
    // The items of `output_item.done`, encrypted_content included (D16, D18).
    assert.deepStrictEqual(completion.reasoningBySource, [Reasoning.reasoning([first, second])])
    assert.deepStrictEqual(Reasoning.items(completion), [first, second])
  })

  it("raw reasoning text (reasoning_text.delta) is reasoning too", () => {
    const item = {
      type: "reasoning",
      id: "rs_1",
      summary: [],
      content: [{ type: "reasoning_text", text: "Think." }],
    }
    const outcome = decode(
      sse(
        added(0, { ...item, content: [] }),
        { type: "response.reasoning_text.delta", output_index: 0, content_index: 0, delta: "Thi" },
        { type: "response.reasoning_text.delta", output_index: 0, content_index: 0, delta: "nk." },
        done(0, item),
        completed([]),
      ),
    )
    assert.strictEqual(outcome.completion?.reasoning, "Think.")
    assert.strictEqual(joined(outcome.events).reasoning, "Think.")
  })

  it("incomplete answers: max_output_tokens is length, content_filter is content_filter", () => {
    const call = functionCall("call_1", '{"q":')
    const cut = decode(sse(added(0, call), done(0, call), incomplete([], "max_output_tokens")))
    assert.strictEqual(cut.completion?.finish, "length")
    assert.deepStrictEqual(
      cut.completion?.calls,
      [],
      "a call of an answer cut short is not released",
    )
    assert.deepStrictEqual(cut.completion?.notes, [
      "1 call(s) of the answer were not released (incomplete: max_output_tokens)",
    ])
    const filtered = decode(
      sse(added(0, message("Hi")), done(0, message("Hi")), incomplete([], "content_filter")),
    )
    assert.strictEqual(filtered.completion?.finish, "content_filter")
    assert.strictEqual(kind(sse(incomplete([], "tired"))), "Unsupported")
    assert.strictEqual(kind(sse(incomplete([], "tired")), "lenient"), "Unsupported")
  })

  it("a refusal finishes refusal; a refusal beside text is a Protocol error", () => {
    const refused = {
      ...message(""),
      content: [{ type: "refusal", refusal: "I can't help with that." }],
    }
    const outcome = decode(
      sse(
        added(0, { ...refused, content: [] }),
        partAdded(0, 0, "refusal"),
        { type: "response.refusal.delta", output_index: 0, content_index: 0, delta: "I can't" },
        {
          type: "response.refusal.delta",
          output_index: 0,
          content_index: 0,
          delta: " help with that.",
        },
        done(0, refused),
        completed([refused]),
      ),
    )
    assert.strictEqual(outcome.completion?.finish, "refusal")
    assert.strictEqual(outcome.completion?.refusal, "I can't help with that.")
    assert.strictEqual(joined(outcome.events).refusal, "I can't help with that.")
    const mixed = {
      ...message("Sure."),
      content: [...message("Sure.").content, { type: "refusal", refusal: "No." }],
    }
    assert.strictEqual(kind(sse(done(0, mixed), completed([]))), "Protocol")
  })
})

describe("usage (D23)", () => {
  it("every input token in input, the cached ones and the reasoning ones where reported", () => {
    const answer = (counts: object | null) => sse(completed([message("Hi")], { usage: counts }))
    assert.deepStrictEqual(decode(hello).completion?.usage, {
      input: 120,
      output: 30,
      total: 150,
      cachedInput: 64,
      reasoning: 12,
    })
    assert.deepStrictEqual(
      decode(answer({ input_tokens: 5, output_tokens: 2 })).completion?.usage,
      {
        input: 5,
        output: 2,
        total: 7,
      },
    )
    assert.isUndefined(decode(answer(null)).completion?.usage)
  })

  it("counts that are not counts: strict refuses, lenient leaves the usage out with a note", () => {
    const stream = sse(completed([message("Hi")], { usage: { ...usage, input_tokens: -1 } }))
    assert.strictEqual(kind(stream), "Protocol")
    const lenient = decode(stream, { mode: "lenient" }).completion
    assert.isUndefined(lenient?.usage)
    assert.deepStrictEqual(lenient?.notes, [
      "the usage the server sent could not be read and was left out",
    ])
  })
})

describe("log probabilities (D27)", () => {
  const token = (value: string) => ({
    token: value,
    logprob: -0.5,
    bytes: [...utf8.encode(value)],
    top_logprobs: [{ token: value, logprob: -0.5, bytes: [...utf8.encode(value)] }],
  })
  const core = (value: string) => ({
    token: value,
    logprob: -0.5,
    bytes: [...utf8.encode(value)],
    topLogprobs: [{ token: value, logprob: -0.5, bytes: [...utf8.encode(value)] }],
  })
  const withLogprobs = (values: ReadonlyArray<string>) => ({
    ...message(values.join("")),
    content: [
      { type: "output_text", text: values.join(""), annotations: [], logprobs: values.map(token) },
    ],
  })

  it("come beside the text, and the completion has those of the items done", () => {
    const outcome = decode(
      sse(
        added(0, message("")),
        { ...textDelta(0, "Hi"), logprobs: [token("Hi")] },
        // The last token's log probability comes only with the item done: it is given then.
        textDelta(0, "!"),
        done(0, withLogprobs(["Hi", "!"])),
        completed([]),
      ),
    )
    assert.deepStrictEqual(
      outcome.events.filter((event) => event._tag === "LogprobsDelta"),
      [
        { _tag: "LogprobsDelta", tokens: [core("Hi")] },
        { _tag: "LogprobsDelta", tokens: [core("!")] },
      ],
    )
    assert.deepStrictEqual(outcome.completion?.logprobs, [core("Hi"), core("!")])
    assert.isUndefined(decode(hello).completion?.logprobs, "none asked for, none given")
  })

  it("log probabilities that are not are a Protocol error", () => {
    const stream = sse(added(0, message("")), {
      ...textDelta(0, "Hi"),
      logprobs: [{ token: "Hi" }],
    })
    assert.strictEqual(kind(stream, "lenient"), "Protocol")
  })
})

describe("the terminal response and the streamed items (D16)", () => {
  it("an empty output says nothing: the streamed items are the answer", () => {
    const stream = sse(
      added(0, message("")),
      textDelta(0, "Hi"),
      done(0, message("Hi")),
      completed([]),
    )
    assert.strictEqual(decode(stream).completion?.text, "Hi")
  })

  it("items the stream did not give come from the terminal response, with their events", () => {
    const outcome = decode(sse(created, completed([message("Hi"), functionCall("call_1", "{}")])))
    assert.deepStrictEqual(
      outcome.events.map((event) => event._tag),
      ["TextDelta", "ToolCallDelta", "ToolCallDelta", "Completed"],
    )
    assert.strictEqual(outcome.completion?.text, "Hi")
    assert.deepStrictEqual(outcome.completion?.calls, [
      { id: "call_1", name: "lookup", arguments: "{}" },
    ])
  })

  it("an item still open is completed by the terminal response", () => {
    const outcome = decode(
      sse(added(0, message("")), textDelta(0, "Hi"), completed([message("Hi there")])),
    )
    assert.strictEqual(outcome.completion?.text, "Hi there")
    assert.strictEqual(joined(outcome.events).text, "Hi there")
  })

  it("an item still open that the terminal response does not give is a Protocol error", () => {
    const stream = sse(added(0, message("")), textDelta(0, "Hi"), completed([]))
    assert.strictEqual(kind(stream), "Protocol")
    assert.strictEqual(kind(stream, "lenient"), "Protocol")
  })

  it("a terminal response whose output is not the streamed items is a Protocol error, in both modes", () => {
    const streamed = sse(added(0, message("")), textDelta(0, "Hi"), done(0, message("Hi")))
    for (const mode of ["strict", "lenient"] as const) {
      assert.strictEqual(kind(streamed + sse(completed([message("Bye")])), mode), "Protocol")
    }
    // An item past those streamed is read from the terminal response, with its events.
    const more = decode(streamed + sse(completed([message("Hi"), functionCall("call_1", "{}")])))
    assert.deepStrictEqual(more.completion?.calls, [
      { id: "call_1", name: "lookup", arguments: "{}" },
    ])
    assert.deepStrictEqual(joined(more.events).calls, [
      { id: "call_1", name: "lookup", arguments: "{}" },
    ])
    const twoItems = sse(done(0, message("Hi")), done(1, functionCall("call_1", "{}")))
    assert.strictEqual(kind(twoItems + sse(completed([message("Hi")]))), "Protocol")
  })

  it("ids and encrypted content may change between events (GitHub Copilot, OpenAI)", () => {
    const outcome = decode(
      sse(
        added(0, reasoningItem("id-1", [], "enc-1")),
        { ...summaryDelta(0, 0, "Plan."), item_id: "id-2" },
        done(0, reasoningItem("id-3", ["Plan."], "enc-2")),
        added(1, message("", "id-4")),
        { ...textDelta(1, "Hi"), item_id: "id-5" },
        done(1, message("Hi", "id-6")),
        completed([reasoningItem("id-7", ["Plan."], "enc-3"), message("Hi", "id-8")]),
      ),
    )
    assert.strictEqual(outcome.completion?.text, "Hi")
    assert.deepStrictEqual(Reasoning.items(outcome.completion!), [
      reasoningItem("id-3", ["Plan."], "enc-2"),
    ])
  })

  it("streamed pieces that are not what the item holds: strict refuses, lenient keeps the item", () => {
    const stream = sse(
      added(0, message("")),
      textDelta(0, "X"),
      done(0, message("Hello")),
      completed([]),
    )
    assert.strictEqual(kind(stream), "Protocol")
    const lenient = decode(stream, { mode: "lenient" })
    assert.strictEqual(lenient.completion?.text, "Hello")
    assert.deepStrictEqual(lenient.completion?.notes, [
      "the streamed pieces of an output item were not what the item holds; the item is kept",
    ])
  })

  it("a whole response gives what the same answer streamed gives", () => {
    const output = [
      reasoningItem("rs_1", ["One.", "Two."]),
      message("Hi"),
      functionCall("call_1", '{"a":1}'),
    ]
    const whole = completionOf(response({ status: "completed", output, usage }))
    const streamed = decode(sse(created, completed(output))).completion
    assert.deepStrictEqual(whole, streamed)
    assert.strictEqual(whole.reasoning, "One.\n\nTwo.")
    assert.strictEqual(whole.finish, "tool_calls")
    const cut = completionOf(
      response({
        status: "incomplete",
        output: [message("Hi")],
        incomplete_details: { reason: "max_output_tokens" },
      }),
    )
    assert.strictEqual(cut.finish, "length")
    assert.strictEqual(wholeKind(response({ status: "queued" })), "Unsupported")
    assert.strictEqual(
      wholeKind(response({ status: "failed", error: { code: "server_error", message: "x" } })),
      "Transport",
    )
    assert.strictEqual(wholeKind(response({ status: "failed" })), "Server")
  })
})

describe("what cannot be represented (D21)", () => {
  const search = {
    type: "web_search_call",
    id: "ws_1",
    status: "completed",
    action: { type: "search", query: "q" },
  }
  const withSearch = sse(
    added(0, search),
    { type: "response.web_search_call.completed", output_index: 0, item_id: "ws_1" },
    done(0, search),
    added(1, message("")),
    textDelta(1, "Found it."),
    done(1, message("Found it.")),
    completed([search, message("Found it.")]),
  )

  it("a built-in tool's item: strict refuses it, lenient leaves it out with a note", () => {
    assert.strictEqual(kind(withSearch), "Unsupported")
    const lenient = decode(withSearch, { mode: "lenient" })
    assert.strictEqual(lenient.completion?.text, "Found it.")
    assert.deepStrictEqual(lenient.completion?.notes, [
      "an output item of type web_search_call was left out",
    ])
    assert.strictEqual(
      wholeKind(response({ status: "completed", output: [search] })),
      "Unsupported",
    )
  })

  it("a content part of an unknown type, and annotations: strict refuses, lenient notes", () => {
    const audio = {
      ...message("Hi"),
      content: [...message("Hi").content, { type: "output_audio", data: "UklG" }],
    }
    const stream = sse(
      added(0, message("")),
      partAdded(0, 1, "output_audio"),
      done(0, audio),
      completed([]),
    )
    assert.strictEqual(kind(stream), "Unsupported")
    assert.deepStrictEqual(decode(stream, { mode: "lenient" }).completion?.notes, [
      "a content part of type output_audio was left out",
    ])
    const cited = {
      ...message("Hi"),
      content: [
        {
          type: "output_text",
          text: "Hi",
          annotations: [
            {
              type: "url_citation",
              url: "https://example.com",
              start_index: 0,
              end_index: 2,
              title: "E",
            },
          ],
        },
      ],
    }
    assert.strictEqual(kind(sse(done(0, cited), completed([]))), "Unsupported")
    const lenient = decode(sse(done(0, cited), completed([])), { mode: "lenient" }).completion
    assert.strictEqual(lenient?.text, "Hi")
    assert.deepStrictEqual(lenient?.notes, ["annotations of the text were left out"])
  })

  it("an item that asks the caller for an answer is refused in both modes: no call is dropped", () => {
    const custom = {
      type: "custom_tool_call",
      id: "ctc_1",
      call_id: "call_1",
      name: "grep",
      input: "x",
    }
    const unknown = { type: "future_call", id: "x_1", call_id: "call_2" }
    for (const item of [custom, unknown]) {
      for (const mode of ["strict", "lenient"] as const) {
        assert.strictEqual(
          kind(sse(added(0, item), done(0, item), completed([])), mode),
          "Unsupported",
        )
      }
    }
  })
})

describe("limits and what is not this wire (D24, D25)", () => {
  it("more calls than maxCalls is a ResponseLimit error", () => {
    const calls = [functionCall("call_1", "{}"), functionCall("call_2", "{}")]
    const outcome = decode(sse(completed(calls)), { maxCalls: 1 })
    assert.strictEqual(outcome.error?.reason._tag, "ResponseLimit")
    assert.deepStrictEqual(
      outcome.error?.reason._tag === "ResponseLimit" ? outcome.error.reason.limit : undefined,
      "maxCalls",
    )
  })

  it("an event larger than maxEventBytes, a stream larger than maxBytes", () => {
    assert.strictEqual(decode(hello, { maxEventBytes: 100 }).error?.reason._tag, "ResponseLimit")
    assert.strictEqual(decode(hello, { maxBytes: 100 }).error?.reason._tag, "ResponseLimit")
  })

  it("data that is not JSON: strict refuses, lenient skips; too deep ends the answer in both modes", () => {
    const noise = `data: {"type":"response.output_text.delta"\n\n${hello}`
    assert.strictEqual(kind(noise), "Protocol")
    assert.strictEqual(decode(noise, { mode: "lenient" }).completion?.text, "Hello")
    const deep = `data: ${"[".repeat(200)}${"]".repeat(200)}\n\n${hello}`
    assert.strictEqual(kind(deep, "lenient"), "Protocol")
  })

  it("unknown event types are skipped; an event with no type is not this wire", () => {
    const extra = sse(
      { type: "response.output_text.annotation.added", output_index: 0 },
      { type: "keepalive" },
    )
    assert.strictEqual(decode(extra + hello).completion?.text, "Hello")
    assert.strictEqual(kind(`data: {"delta":"Hi"}\n\n${hello}`), "Protocol")
  })

  it("deltas for an item never added, or after it was done, are Protocol errors", () => {
    assert.strictEqual(kind(sse(textDelta(0, "Hi"), completed([]))), "Protocol")
    assert.strictEqual(
      kind(sse(done(0, message("Hi")), textDelta(0, "!"), completed([]))),
      "Protocol",
    )
    assert.strictEqual(kind(sse(added(0, functionCall("c", "")), textDelta(0, "Hi"))), "Protocol")
  })

  it("two calls with one call_id are a Protocol error", () => {
    const calls = [functionCall("call_1", "{}", "fc_1"), functionCall("call_1", "{}", "fc_2")]
    assert.strictEqual(kind(sse(completed(calls)), "lenient"), "Protocol")
  })
})

describe("errors in the stream (D22)", () => {
  it("an error event ends the answer with the kind its code says, after the events before it", () => {
    const stream = sse(
      added(0, message("")),
      textDelta(0, "Hi"),
      {
        type: "error",
        code: "rate_limit_exceeded",
        message: "Slow down.",
        param: null,
        sequence_number: 3,
      },
      completed([]),
    )
    const outcome = decode(stream)
    assert.deepStrictEqual(outcome.events, [{ _tag: "TextDelta", text: "Hi" }])
    assert.strictEqual(outcome.error?.reason._tag, "RateLimited")
    assert.isTrue(outcome.error?.isRetryable)
    assert.strictEqual(outcome.error?.serverMessage, "Slow down.")
    assert.notInclude(
      outcome.error?.message ?? "",
      "Slow down.",
      "the server's words stay out of the message",
    )
  })

  it("OpenAI's error event nests the error; the failed response carries its own", () => {
    assert.strictEqual(kind(sse(created, quotaEvent)), "Authentication")
    const failed = {
      type: "response.failed",
      response: response({
        status: "failed",
        error: { code: "server_error", message: "Something went wrong." },
      }),
    }
    const outcome = decode(sse(created, failed))
    assert.strictEqual(outcome.error?.reason._tag, "Transport")
    assert.strictEqual(outcome.error?.serverMessage, "Something went wrong.")
    const overflow = {
      type: "error",
      code: "context_length_exceeded",
      message: "Your input exceeds the context window of this model.",
      param: "input",
    }
    const read = decode(sse(overflow)).error
    assert.strictEqual(read?.reason._tag, "ContextOverflow")
    assert.strictEqual(
      read?.reason._tag === "ContextOverflow" ? read.reason.code : undefined,
      "context_length_exceeded",
    )
  })

  it("an error with a code this codec does not know is a Server error with that code", () => {
    const error = decode(
      sse({ type: "error", code: "ERR_SOMETHING", message: "Something went wrong", param: null }),
    ).error
    assert.strictEqual(error?.reason._tag, "Server")
    assert.strictEqual(
      error?.reason._tag === "Server" ? error.reason.code : undefined,
      "ERR_SOMETHING",
    )
  })

  it("`event: error` whose data is not JSON is a Server error with the text as its words", () => {
    const outcome = decode("event: error\ndata: upstream closed\n\n")
    assert.strictEqual(outcome.error?.reason._tag, "Server")
    assert.strictEqual(outcome.error?.serverMessage, "upstream closed")
  })

  it("an error body in place of a whole response", () => {
    const body = {
      error: {
        message: "Incorrect API key provided",
        type: "invalid_request_error",
        code: "invalid_api_key",
        param: null,
      },
    }
    assert.strictEqual(wholeKind(body), "Authentication")
    // A gateway's body may repeat the status beside the error.
    assert.strictEqual(wholeKind({ ...body, status: 401 }), "Authentication")
  })
})

describe("the events and responses of these tests", () => {
  it("are valid Open Responses (the specification's schemas)", () => {
    const output = [reasoningItem("rs_1", ["Plan."]), message("Hi"), functionCall("call_1", "{}")]
    const events = [
      created,
      added(0, { ...reasoningItem("rs_1", []), summary: [] }),
      summaryPart(0, 0),
      summaryDelta(0, 0, "Plan."),
      done(0, output[0]!),
      added(1, { ...message(""), status: "in_progress", content: [] }),
      partAdded(1),
      textDelta(1, "Hi"),
      done(1, output[1]!),
      added(2, functionCall("call_1", "")),
      argsDelta(2, "{}"),
      done(2, output[2]!),
      completed(output),
      incomplete(output, "max_output_tokens"),
      quotaEvent,
    ]
    for (const event of events)
      assert.deepStrictEqual(eventErrors(event), [], JSON.stringify(event))
    const whole = response({ status: "completed", output, usage })
    assert.deepStrictEqual(responseErrors(whole), [])
    assert.deepStrictEqual(completionOf(whole).calls, [
      { id: "call_1", name: "lookup", arguments: "{}" },
    ])
  })
})

describe("the events add up to the completion (bugs found by test/Decoder.fuzz.test.ts)", () => {
  const adds = (stream: string) => {
    const outcome = decode(stream)
    assert.isDefined(outcome.completion, String(outcome.error?.message))
    return { events: joined(outcome.events), completion: outcome.completion! }
  }

  it("items are joined in the order they were given, not by output_index (D26)", () => {
    const { events, completion } = adds(
      sse(done(1, message("B")), done(0, message("A")), completed([])),
    )
    assert.strictEqual(events.text, "BA")
    assert.strictEqual(completion.text, "BA")
  })

  it("an item the terminal response completes comes after those the stream completed (D26)", () => {
    const { events, completion } = adds(
      sse(added(0, message("")), done(1, message("B")), completed([message("A"), message("B")])),
    )
    assert.strictEqual(events.text, "BA")
    assert.strictEqual(completion.text, "BA")
  })

  it("text of two items interleaved is a disagreement: strict refuses, lenient notes (D26)", () => {
    const stream = sse(
      added(0, message("")),
      added(1, message("")),
      textDelta(0, "A"),
      textDelta(1, "B"),
      textDelta(0, "a"),
      done(0, message("Aa")),
      done(1, message("B")),
      completed([]),
    )
    assert.strictEqual(kind(stream), "Protocol")
    assert.isDefined(decode(stream, { mode: "lenient" }).completion?.notes)
  })

  it("calls are released in the order of their indexes (D19, D26)", () => {
    const { events, completion } = adds(
      sse(
        done(1, functionCall("call_b", "{}")),
        done(0, functionCall("call_a", "{}")),
        completed([]),
      ),
    )
    assert.deepStrictEqual(
      events.calls.map((call) => call.id),
      completion.calls.map((call) => call.id),
    )
  })

  it("the separator between reasoning parts is decided when the part's text is given (D18)", () => {
    const { events, completion } = adds(
      sse(
        added(0, reasoningItem("rs_1", [])),
        added(1, reasoningItem("rs_2", [])),
        summaryDelta(1, 0, "B"),
        done(1, reasoningItem("rs_2", ["B"])),
        summaryDelta(0, 0, "A"),
        done(0, reasoningItem("rs_1", ["A"])),
        completed([]),
      ),
    )
    assert.strictEqual(events.reasoning, "B\n\nA")
    assert.strictEqual(completion.reasoning, "B\n\nA")
    assert.isUndefined(completion.notes)
  })

  it("reasoning items streamed in output_index order, added together, are read (D18)", () => {
    const { events, completion } = adds(
      sse(
        added(0, reasoningItem("rs_1", [])),
        added(1, reasoningItem("rs_2", [])),
        summaryDelta(0, 0, "A"),
        done(0, reasoningItem("rs_1", ["A"])),
        summaryDelta(1, 0, "B"),
        done(1, reasoningItem("rs_2", ["B"])),
        completed([]),
      ),
    )
    assert.strictEqual(events.reasoning, "A\n\nB")
    assert.strictEqual(completion.reasoning, "A\n\nB")
  })

  it("streamed log probabilities must be the start of the item's (D27)", () => {
    const token = (value: string) => ({ token: value, logprob: -0.5 })
    const item = (value: string) => ({
      ...message("A"),
      content: [{ type: "output_text", text: "A", annotations: [], logprobs: [token(value)] }],
    })
    const stream = sse(
      added(0, message("")),
      { ...textDelta(0, "A"), logprobs: [token("x")] },
      done(0, item("y")),
      completed([]),
    )
    assert.strictEqual(kind(stream), "Protocol")
    assert.isDefined(decode(stream, { mode: "lenient" }).completion?.notes)
  })

  it("a function_call with no arguments has blank arguments (D19)", () => {
    const call = { type: "function_call", call_id: "call_a", name: "time" }
    const { events, completion } = adds(sse(done(0, call), completed([])))
    assert.strictEqual(events.calls[0]?.arguments, "")
    assert.deepStrictEqual(completion.calls, [{ id: "call_a", name: "time", arguments: "" }])
    assert.deepStrictEqual(completionOf(response({ status: "completed", output: [call] })).calls, [
      { id: "call_a", name: "time", arguments: "" },
    ])
  })
})
