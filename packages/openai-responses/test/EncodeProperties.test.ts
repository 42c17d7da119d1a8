import { assert, describe } from "@effect/vitest"
import { fc, it } from "@fast-check/vitest"
import { Completion, Request, Tool, ToolCall, ToolChoice, ToolResult } from "@svir/core"
import * as Effect from "effect/Effect"
import { Reasoning, type RequestBody, ResponsesCodec } from "../src/index.js"
import { requestErrors } from "./support/openapi.js"

const encode = (request: Request.Request, options: { stream: boolean; lean?: boolean }) =>
  Effect.runSync(ResponsesCodec.encode(request, options))

const text = fc.string({ unit: "grapheme", maxLength: 30 })
const nonBlank = text.filter((value) => value.trim() !== "")
const name = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_-]{0,20}$/)
const args = fc.oneof(
  fc.constant(""),
  fc
    .dictionary(fc.string({ maxLength: 8 }), fc.oneof(text, fc.integer(), fc.boolean()), {
      maxKeys: 3,
    })
    .map((value) => JSON.stringify(value)),
)
const reasoningItem = fc.record({
  type: fc.constant("reasoning" as const),
  id: fc.stringMatching(/^rs_[a-z0-9]{4,12}$/),
  summary: fc.array(fc.record({ type: fc.constant("summary_text"), text: nonBlank }), {
    maxLength: 2,
  }),
  encrypted_content: fc.base64String({ minLength: 4, maxLength: 40 }),
})

/** One step of the model: its reasoning items, its text, its calls, and how each call ended. */
const step = fc
  .record({
    items: fc.array(reasoningItem, { maxLength: 2 }),
    text,
    calls: fc.array(fc.record({ name, args, failed: fc.boolean(), output: text }), {
      maxLength: 3,
    }),
    order: fc.array(fc.nat(), { maxLength: 3 }),
  })
  .filter((s) => s.text !== "" || s.calls.length > 0)

/** A conversation: user turns, each answered by steps of the model. */
const conversation = fc.array(
  fc.record({ user: nonBlank, steps: fc.array(step, { maxLength: 3 }) }),
  { minLength: 1, maxLength: 4 },
)

type Conversation = typeof conversation extends fc.Arbitrary<infer A> ? A : never

interface Built {
  readonly request: Request.Request
  readonly calls: ReadonlyArray<ToolCall.ToolCall>
  readonly results: ReadonlyArray<ToolResult.ToolResult>
  readonly texts: ReadonlyArray<string>
  /** The reasoning items that go back by default: those of the steps after the last user turn. */
  readonly lastItems: ReadonlyArray<Reasoning.Item>
}

/** The request of a conversation; call ids are unique, and each step's results come shuffled. */
const build = (turns: Conversation, request: Request.Request): Built => {
  const calls: Array<ToolCall.ToolCall> = []
  const results: Array<ToolResult.ToolResult> = []
  const texts: Array<string> = []
  let lastItems: Array<Reasoning.Item> = []
  let out = request
  let n = 0
  for (const turn of turns) {
    out = Request.user(out, turn.user)
    texts.push(turn.user)
    lastItems = []
    for (const s of turn.steps) {
      const made = s.calls.map((c) => ToolCall.make(`call_${n++}`, c.name, c.args))
      const entry = Reasoning.reasoning(s.items)
      out = Request.assistant(
        out,
        Completion.make({
          finish: made.length > 0 ? "tool_calls" : "stop",
          text: s.text,
          reasoning: entry.text,
          reasoningBySource: s.items.length > 0 ? [entry] : [],
          calls: made,
        }),
      )
      if (s.text !== "") texts.push(s.text)
      lastItems.push(...s.items)
      const answered = made.map((call, k) =>
        s.calls[k]!.failed
          ? ToolResult.error(call.id, s.calls[k]!.output)
          : ToolResult.make(call.id, s.calls[k]!.output),
      )
      // Results come in any order: the encoder puts them in the order of the calls.
      const shuffled = [...answered]
      for (let k = shuffled.length - 1; k > 0; k--) {
        const j = (s.order[k] ?? 0) % (k + 1)
        ;[shuffled[k], shuffled[j]] = [shuffled[j]!, shuffled[k]!]
      }
      out = Request.toolResults(out, shuffled)
      calls.push(...made)
      results.push(...answered)
    }
  }
  return { request: out, calls, results, texts, lastItems }
}

/** Settings within the specification's ranges (D12 names the values it does not list). */
const settings = fc.record(
  {
    system: text,
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    topP: fc.double({ min: 0, max: 1, noNaN: true }),
    maxTokens: fc.integer({ min: 16, max: 100_000 }),
    effort: fc.constantFrom("none", "low", "medium", "high" as const),
    tools: fc.uniqueArray(name, { maxLength: 3 }),
    strict: fc.boolean(),
    choice: fc.constantFrom("auto", "none", "required", "tool"),
    parallel: fc.boolean(),
    schema: fc.boolean(),
    wire: fc.record(
      {
        store: fc.boolean(),
        reasoningSummary: fc.constantFrom("auto", "concise", "detailed" as const),
        textVerbosity: fc.constantFrom("low", "medium", "high" as const),
        logprobs: fc.constant(true),
        topLogprobs: fc.integer({ min: 0, max: 20 }),
        truncation: fc.constantFrom("auto", "disabled" as const),
        serviceTier: fc.constantFrom("auto", "default", "flex", "priority" as const),
        metadata: fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 }), {
          maxKeys: 3,
        }),
        safetyIdentifier: fc.stringMatching(/^[a-z0-9-]{1,64}$/),
        promptCacheKey: fc.stringMatching(/^[a-z0-9-]{1,64}$/),
        user: fc.stringMatching(/^[a-z0-9-]{1,64}$/),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
)

type Settings = typeof settings extends fc.Arbitrary<infer A> ? A : never

const configure = (s: Settings): Request.Request => {
  let request = Request.make("gpt-5")
  if (s.system !== undefined) request = Request.system(request, s.system)
  if (s.temperature !== undefined) request = Request.temperature(request, s.temperature)
  if (s.topP !== undefined) request = Request.topP(request, s.topP)
  if (s.maxTokens !== undefined) request = Request.maxTokens(request, s.maxTokens)
  if (s.effort !== undefined) request = Request.reasoningEffort(request, s.effort)
  const tools = (s.tools ?? []).map((toolName) => ({
    ...Tool.make(toolName, "A tool."),
    strict: s.strict,
  }))
  request = Request.tools(request, tools)
  if (tools.length > 0 && s.choice !== undefined && s.choice !== "auto") {
    const choice =
      s.choice === "none"
        ? ToolChoice.none
        : s.choice === "required"
          ? ToolChoice.required
          : ToolChoice.tool(tools[0]!.name)
    request = Request.toolChoice(request, choice)
  }
  if (s.parallel !== undefined) request = Request.parallelToolCalls(request, s.parallel)
  if (s.schema === true) {
    request = Request.responseFormat(request, {
      _tag: "JsonSchema",
      name: "answer",
      schema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
      strict: true,
    })
  }
  const wire = { ...s.wire }
  if (wire.logprobs !== true) delete wire.topLogprobs
  return ResponsesCodec.options(wire)(request)
}

const ofType = <T extends RequestBody.InputItem["type"]>(
  body: RequestBody.RequestBody,
  type: T,
): Array<Extract<RequestBody.InputItem, { type: T }>> =>
  body.input.filter(
    (item): item is Extract<RequestBody.InputItem, { type: T }> => item.type === type,
  )

describe("encode: properties", () => {
  it.prop([conversation, settings, fc.boolean()])(
    "every body the encoder writes validates against the specification's schema",
    (turns, s, stream) => {
      const body = encode(build(turns, configure(s)).request, { stream })
      assert.deepStrictEqual(requestErrors(body), [], JSON.stringify(body))
    },
  )

  it.prop([conversation])(
    "every call and every result appears once, in order, each result right after its turn's calls",
    (turns) => {
      const built = build(turns, Request.make("gpt-5"))
      const body = encode(built.request, { stream: false })
      assert.deepStrictEqual(
        ofType(body, "function_call").map((item) => item.call_id),
        built.calls.map((call) => call.id),
      )
      assert.deepStrictEqual(
        ofType(body, "function_call_output").map((item) => item.call_id),
        built.calls.map((call) => call.id),
      )
      // After each run of calls come their outputs, in the same order, before anything else.
      const items = body.input
      for (let i = 0; i < items.length; i++) {
        const item = items[i]!
        if (item.type !== "function_call") continue
        const next = items[i + 1]!
        if (next.type === "function_call") continue
        let first = i
        while (first > 0 && items[first - 1]!.type === "function_call") first--
        const run = items.slice(first, i + 1) as Array<RequestBody.FunctionCall>
        const outputs = items.slice(i + 1, i + 1 + run.length) as Array<RequestBody.InputItem>
        assert.deepStrictEqual(
          outputs.map((output) => (output.type === "function_call_output" ? output.call_id : "")),
          run.map((call) => call.call_id),
        )
      }
    },
  )

  it.prop([conversation])(
    "what goes in comes out: texts, arguments, results and the last reasoning items, unchanged",
    (turns) => {
      const built = build(turns, Request.make("gpt-5"))
      const body = encode(built.request, { stream: false })
      const texts = body.input.flatMap((item) =>
        item.type === "message"
          ? item.content.map((part) => ("text" in part ? part.text : ""))
          : [],
      )
      assert.deepStrictEqual(texts, built.texts)
      assert.deepStrictEqual(
        ofType(body, "function_call").map((item) => [item.name, item.arguments]),
        built.calls.map((call) => [
          call.name,
          call.arguments.trim() === "" ? "{}" : call.arguments,
        ]),
      )
      const byId = new Map(built.results.map((result) => [result.callId, result]))
      for (const output of ofType(body, "function_call_output")) {
        const result = byId.get(output.call_id)!
        const content = result.content.trim() === "" ? "(no output)" : result.content
        assert.strictEqual(output.output, result.isError ? `error: ${content}` : content)
      }
      assert.deepStrictEqual(ofType(body, "reasoning"), [...built.lastItems])
    },
  )

  it.prop([conversation, settings])(
    "the lean body is the full one without the optional fields and the encrypted reasoning",
    (turns, s) => {
      const request = build(turns, configure(s)).request
      const full = encode(request, { stream: true })
      const lean = encode(request, { stream: true, lean: true })
      const expected: Record<string, unknown> = { ...full }
      for (const field of ResponsesCodec.optionalFields) delete expected[field]
      const include = full.include?.filter((entry) => entry !== "reasoning.encrypted_content")
      if (include === undefined || include.length === 0) delete expected.include
      else expected.include = include
      assert.deepStrictEqual(lean, expected)
    },
  )

  it.prop([conversation, settings])(
    "a streamed body is the whole one with stream: true",
    (turns, s) => {
      const request = build(turns, configure(s)).request
      assert.deepStrictEqual(encode(request, { stream: true }), {
        ...encode(request, { stream: false }),
        stream: true,
      })
    },
  )
})
