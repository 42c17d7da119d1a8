import { assert, describe, it } from "@effect/vitest"
import {
  Completion,
  Message,
  Request,
  type SvirError,
  Tool,
  ToolCall,
  ToolChoice,
  ToolResult,
} from "@svir/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { Reasoning, type RequestBody, ResponsesCodec } from "../src/index.js"
import { requestErrors } from "./support/openapi.js"

/** A body the Open Responses specification's schema accepts. */
const checked = (body: RequestBody.RequestBody): RequestBody.RequestBody => {
  assert.deepStrictEqual(requestErrors(body), [], JSON.stringify(body))
  return body
}

const encode = (
  request: Request.Request,
  options: { stream: boolean; lean?: boolean } = { stream: false },
) => checked(Effect.runSync(ResponsesCodec.encode(request, options)))

/**
 * A body OpenAI's API takes and the specification's schema does not (D12): refused by the schema
 * as it is, accepted once `field` is set to the specification's `fix`.
 */
const outsideSpec = (
  request: Request.Request,
  fix: (body: RequestBody.RequestBody) => RequestBody.RequestBody,
) => {
  const body = Effect.runSync(ResponsesCodec.encode(request, { stream: false }))
  assert.isAbove(requestErrors(body).length, 0, JSON.stringify(body))
  checked(fix(body))
  return body
}

const failure = (request: Request.Request): SvirError.SvirError => {
  const exit = Effect.runSyncExit(ResponsesCodec.encode(request, { stream: false }))
  if (Exit.isSuccess(exit)) return assert.fail(`encoded: ${JSON.stringify(exit.value)}`)
  const error = exit.cause.reasons[0]
  if (error?._tag !== "Fail") return assert.fail(String(exit.cause))
  return error.error
}

const weather = Tool.make("weather", "The weather in a city.", {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
})
const base = Request.make("gpt-5")

const withCalls = (calls: ReadonlyArray<ToolCall.ToolCall>, text = "") =>
  Request.assistant(Completion.make({ finish: "tool_calls", text, calls }))

const userItem = (text: string): RequestBody.UserMessage => ({
  type: "message",
  role: "user",
  content: [{ type: "input_text", text }],
})

describe("encode", () => {
  it("writes model, instructions, store false with the encrypted reasoning, and the input; stream when streamed", () => {
    const request = base.pipe(Request.system("Be brief."), Request.user("Hi"))
    assert.deepStrictEqual(encode(request), {
      model: "gpt-5",
      store: false,
      instructions: "Be brief.",
      include: ["reasoning.encrypted_content"],
      input: [userItem("Hi")],
    })
    assert.strictEqual(encode(request, { stream: true }).stream, true)
    assert.isUndefined(encode(request).stream)
  })

  it("sampling, max_output_tokens and the reasoning effort, each under its wire name", () => {
    const body = encode(
      base.pipe(
        Request.temperature(0.2),
        Request.topP(0.9),
        Request.maxTokens(300),
        Request.reasoningEffort("low"),
        ResponsesCodec.options({ reasoningSummary: "auto" }),
        Request.user("Hi"),
      ),
    )
    assert.strictEqual(body.temperature, 0.2)
    assert.strictEqual(body.top_p, 0.9)
    assert.strictEqual(body.max_output_tokens, 300)
    assert.deepStrictEqual(body.reasoning, { effort: "low", summary: "auto" })
    const summaryOnly = encode(
      base.pipe(ResponsesCodec.options({ reasoningSummary: "detailed" }), Request.user("Hi")),
    )
    assert.deepStrictEqual(summaryOnly.reasoning, { summary: "detailed" })
    assert.deepStrictEqual(
      encode(base.pipe(Request.reasoningEffort("none"), Request.user("Hi"))).reasoning,
      { effort: "none" },
    )
  })

  it("max tokens under 16 are refused: the API's minimum", () => {
    assert.strictEqual(
      failure(base.pipe(Request.maxTokens(15), Request.user("Hi"))).reason._tag,
      "Unsupported",
    )
    assert.strictEqual(
      encode(base.pipe(Request.maxTokens(16), Request.user("Hi"))).max_output_tokens,
      16,
    )
  })

  it("refuses every field the wire cannot carry, before anything is sent", () => {
    for (const request of [
      base.pipe(Request.seed(7), Request.user("Hi")),
      base.pipe(Request.stop("END"), Request.user("Hi")),
      base.pipe(Request.presencePenalty(0.5), Request.user("Hi")),
      base.pipe(Request.frequencyPenalty(0.5), Request.user("Hi")),
      base.pipe(
        Request.responseFormat({ _tag: "JsonSchema", name: "a b", schema: { type: "object" } }),
        Request.user("Hi"),
      ),
      base,
    ]) {
      assert.strictEqual(failure(request).reason._tag, "Unsupported")
    }
  })

  it("structured output: a JSON schema with its name, description and strictness; text is not sent", () => {
    const body = encode(
      base.pipe(
        Request.responseFormat({
          _tag: "JsonSchema",
          name: "city",
          schema: { type: "object", properties: { name: { type: "string" } } },
          description: "A city",
          strict: true,
        }),
        ResponsesCodec.options({ textVerbosity: "low" }),
        Request.user("Hi"),
      ),
    )
    assert.deepStrictEqual(body.text, {
      format: {
        type: "json_schema",
        name: "city",
        schema: { type: "object", properties: { name: { type: "string" } } },
        description: "A city",
        strict: true,
      },
      verbosity: "low",
    })
    const text = encode(base.pipe(Request.responseFormat({ _tag: "Text" }), Request.user("Hi")))
    assert.isUndefined(text.text)
  })

  it("any JSON object is json_object, which OpenAI takes and the specification does not list", () => {
    const body = outsideSpec(
      base.pipe(Request.responseFormat({ _tag: "Json" }), Request.user("Hi")),
      (full) => ({ ...full, text: { format: { type: "json_schema", name: "a", schema: {} } } }),
    )
    assert.deepStrictEqual(body.text, { format: { type: "json_object" } })
  })

  it("the minimal effort is sent as it is: OpenAI takes it, the specification does not list it", () => {
    const body = outsideSpec(
      base.pipe(Request.reasoningEffort("minimal"), Request.user("Hi")),
      (full) => ({ ...full, reasoning: { effort: "low" } }),
    )
    assert.deepStrictEqual(body.reasoning, { effort: "minimal" })
  })

  it("tools as function tools with strict always sent; auto is not sent; choice and parallel calls only with tools", () => {
    const strict = { ...Tool.make("now", ""), strict: true }
    const offered = base.pipe(Request.tool(weather), Request.tool(strict), Request.user("Hi"))
    const body = encode(offered)
    assert.deepStrictEqual(body.tools, [
      {
        type: "function",
        name: "weather",
        description: "The weather in a city.",
        parameters: weather.inputSchema,
        strict: false,
      },
      {
        type: "function",
        name: "now",
        parameters: { type: "object", properties: {} },
        strict: true,
      },
    ])
    assert.isUndefined(body.tool_choice, "auto is the API's default")
    const choice = (request: Request.Request) => encode(request).tool_choice
    assert.strictEqual(choice(offered.pipe(Request.toolChoice(ToolChoice.none))), "none")
    assert.strictEqual(choice(offered.pipe(Request.toolChoice(ToolChoice.required))), "required")
    assert.deepStrictEqual(choice(offered.pipe(Request.toolChoice(ToolChoice.tool("weather")))), {
      type: "function",
      name: "weather",
    })
    assert.strictEqual(
      encode(offered.pipe(Request.parallelToolCalls(false))).parallel_tool_calls,
      false,
    )
    const none = encode(
      base.pipe(
        Request.toolChoice(ToolChoice.none),
        Request.parallelToolCalls(false),
        Request.user("Hi"),
      ),
    )
    assert.isUndefined(none.tool_choice)
    assert.isUndefined(none.parallel_tool_calls)
    assert.isUndefined(none.tools)
  })

  it("options only the Responses API has, under their wire names", () => {
    const body = encode(
      base.pipe(
        ResponsesCodec.options({
          truncation: "auto",
          serviceTier: "flex",
          metadata: { ticket: "T-42" },
          safetyIdentifier: "user-5f2a",
          promptCacheKey: "support-v3",
          user: "user-5f2a",
          logprobs: true,
          topLogprobs: 3,
        }),
        Request.user("Hi"),
      ),
    )
    assert.strictEqual(body.truncation, "auto")
    assert.strictEqual(body.service_tier, "flex")
    assert.deepStrictEqual(body.metadata, { ticket: "T-42" })
    assert.strictEqual(body.safety_identifier, "user-5f2a")
    assert.strictEqual(body.prompt_cache_key, "support-v3")
    assert.strictEqual(body.user, "user-5f2a")
    assert.strictEqual(body.top_logprobs, 3)
    assert.deepStrictEqual(body.include, [
      "reasoning.encrypted_content",
      "message.output_text.logprobs",
    ])
  })

  it("an option this codec does not know, or a value out of range, is Unsupported", () => {
    const options = (given: Record<string, unknown>) =>
      base.pipe(Request.codecOptions("openai-responses", given), Request.user("Hi"))
    for (const given of [
      { topK: 40 },
      { store: "no" },
      { serviceTier: "cheap" },
      { topLogprobs: 3 },
      { logprobs: true, topLogprobs: 21 },
      { metadata: { a: 1 } },
      { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) },
      { metadata: { k: "v".repeat(513) } },
      { safetyIdentifier: "x".repeat(65) },
      { promptCacheKey: "" },
      { previousResponseId: " " },
      { reasoningSummary: "long" },
      { textVerbosity: "loud" },
      { truncation: "middle" },
    ]) {
      assert.strictEqual(failure(options(given)).reason._tag, "Unsupported", JSON.stringify(given))
    }
  })

  it("options of other codecs are not this codec's", () => {
    const body = encode(
      base.pipe(Request.codecOptions("openai-chat", { logprobs: true }), Request.user("Hi")),
    )
    assert.isUndefined(body.top_logprobs)
    assert.deepStrictEqual(body.include, ["reasoning.encrypted_content"])
  })

  it("lean leaves out the optional fields and the encrypted reasoning, wherever they came from", () => {
    const request = base.pipe(
      ResponsesCodec.options({
        serviceTier: "flex",
        metadata: { ticket: "T-42" },
        safetyIdentifier: "user-5f2a",
        promptCacheKey: "support-v3",
        user: "user-5f2a",
        truncation: "auto",
        logprobs: true,
      }),
      Request.reasoningEffort("low"),
      Request.tool(weather),
      Request.toolChoice(ToolChoice.required),
      Request.user("Hi"),
    )
    const lean = encode(request, { stream: true, lean: true })
    for (const field of ResponsesCodec.optionalFields) assert.isFalse(Object.hasOwn(lean, field))
    assert.deepStrictEqual(lean.include, ["message.output_text.logprobs"])
    assert.strictEqual(lean.store, false)
    assert.strictEqual(lean.truncation, "auto")
    assert.strictEqual(lean.tool_choice, "required")
    assert.deepStrictEqual(lean.reasoning, { effort: "low" })
    assert.strictEqual(lean.stream, true)
    const plain = encode(base.pipe(Request.user("Hi")), { stream: false, lean: true })
    assert.isFalse(Object.hasOwn(plain, "include"))
    const fromExtra = encode(
      base.pipe(Request.extra({ service_tier: "scale" }), Request.user("Hi")),
      {
        stream: false,
        lean: true,
      },
    )
    assert.isFalse(Object.hasOwn(fromExtra, "service_tier"))
  })

  it("extra fields go in as they are, never over a field the encoder writes", () => {
    const body = encode(base.pipe(Request.extra({ max_tool_calls: 3 }), Request.user("Hi")))
    assert.strictEqual(body.max_tool_calls, 3)
    for (const field of ["model", "input", "stream", "store"]) {
      assert.strictEqual(
        failure(base.pipe(Request.extra({ [field]: 1 }), Request.user("Hi"))).reason._tag,
        "Config",
      )
    }
    assert.strictEqual(
      failure(
        base.pipe(Request.system("x"), Request.extra({ instructions: "y" }), Request.user("Hi")),
      ).reason._tag,
      "Config",
    )
    assert.strictEqual(
      failure(base.pipe(Request.extra({ include: [] }), Request.user("Hi"))).reason._tag,
      "Config",
      "include is written whenever store is false",
    )
  })

  it("a request that cannot fit its context is a ContextOverflow", () => {
    const request = base.pipe(Request.maxTokens(4000), Request.user("Hi"))
    assert.strictEqual(
      failure(request.pipe(Request.contextTokens(4000))).reason._tag,
      "ContextOverflow",
    )
    assert.strictEqual(encode(request.pipe(Request.contextTokens(8000))).max_output_tokens, 4000)
  })

  it("the codec of make writes what encode writes, and claims the same fields", () => {
    const request = base.pipe(
      Request.system("Be brief."),
      Request.tool(weather),
      Request.user("Hi"),
    )
    const codec = ResponsesCodec.make({ mode: "lenient" })
    const body = Effect.runSync(codec.encode(request, { stream: true })) as RequestBody.RequestBody
    assert.deepStrictEqual(checked(body), encode(request, { stream: true }))
    assert.deepStrictEqual(codec.fields, ResponsesCodec.fields)
    const invalid = Effect.runSyncExit(
      codec.encode(base.pipe(Request.toolChoice(ToolChoice.required), Request.user("Hi")), {
        stream: false,
      }),
    )
    assert.isTrue(Exit.isFailure(invalid), "Request.validate runs first")
  })

  it("usage is claimed and nothing is sent for it: every answer reports it", () => {
    const body = encode(base.pipe(Request.includeUsage(true), Request.user("Hi")), { stream: true })
    assert.deepStrictEqual(Object.keys(body).sort(), [
      "include",
      "input",
      "model",
      "store",
      "stream",
    ])
  })
})

describe("encode: turns", () => {
  const call = ToolCall.make("call_1", "weather", '{"city":"Paris"}')

  it("calls are function_call items after the turn's text; results follow in the order of the calls; a failure is marked error:", () => {
    const second = ToolCall.make("call_2", "weather", '{"city":"Oslo"}')
    const request = base.pipe(
      Request.tool(weather),
      Request.user("Weather?"),
      withCalls([call, second], "Checking."),
      Request.toolResults([
        ToolResult.error("call_2", "no station"),
        ToolResult.make("call_1", "18°C"),
      ]),
      Request.user("Thanks"),
    )
    assert.deepStrictEqual(encode(request).input, [
      userItem("Weather?"),
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
      { type: "function_call", call_id: "call_1", name: "weather", arguments: '{"city":"Paris"}' },
      { type: "function_call", call_id: "call_2", name: "weather", arguments: '{"city":"Oslo"}' },
      { type: "function_call_output", call_id: "call_1", output: "18°C" },
      { type: "function_call_output", call_id: "call_2", output: "error: no station" },
      userItem("Thanks"),
    ])
  })

  it("blank arguments are {}; blank results are (no output), marked when failed", () => {
    const request = base.pipe(
      Request.user("Go"),
      withCalls([ToolCall.make("call_1", "now", " "), ToolCall.make("call_2", "now")]),
      Request.toolResults([ToolResult.make("call_1", ""), ToolResult.error("call_2", "  ")]),
    )
    assert.deepStrictEqual(encode(request).input.slice(1), [
      { type: "function_call", call_id: "call_1", name: "now", arguments: "{}" },
      { type: "function_call", call_id: "call_2", name: "now", arguments: "{}" },
      { type: "function_call_output", call_id: "call_1", output: "(no output)" },
      { type: "function_call_output", call_id: "call_2", output: "error: (no output)" },
    ])
  })

  it("a result's attachments make its output parts: the text, then images, PDFs and text files", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47])
    const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46])
    const request = base.pipe(
      Request.user("Go"),
      withCalls([call, ToolCall.make("call_2", "weather")]),
      Request.toolResults([
        {
          ...ToolResult.make("call_1", "a map"),
          attachments: [
            Message.image(png, "image/png"),
            Message.file("report.pdf", "application/pdf", pdf),
            Message.file("notes.md", "text/markdown", "# Notes"),
          ],
        },
        {
          ...ToolResult.make("call_2", " "),
          attachments: [Message.imageUrl("https://example.com/m.png")],
        },
      ]),
    )
    assert.deepStrictEqual(encode(request).input.slice(3), [
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [
          { type: "input_text", text: "a map" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw==", detail: "auto" },
          {
            type: "input_file",
            filename: "report.pdf",
            file_data: "data:application/pdf;base64,JVBERg==",
          },
          { type: "input_text", text: '<file name="notes.md">\n# Notes\n</file>' },
        ],
      },
      {
        type: "function_call_output",
        call_id: "call_2",
        output: [{ type: "input_image", image_url: "https://example.com/m.png", detail: "auto" }],
      },
    ])
  })

  it("a call without its result, a result of no call, a result first, a call id over 64 characters, are Unsupported", () => {
    const long = ToolCall.make("c".repeat(65), "weather")
    for (const request of [
      base.pipe(Request.user("Go"), withCalls([call])),
      base.pipe(
        Request.user("Go"),
        withCalls([call]),
        Request.toolResults([ToolResult.make("call_1", "a"), ToolResult.make("call_9", "b")]),
      ),
      base.pipe(Request.toolResults([ToolResult.make("call_1", "a")])),
      base.pipe(
        Request.user("Go"),
        withCalls([long]),
        Request.toolResults([ToolResult.make(long.id, "a")]),
      ),
    ]) {
      assert.strictEqual(failure(request).reason._tag, "Unsupported")
    }
  })

  it("an assistant turn with no text and no calls is not sent, nor its reasoning", () => {
    const request = base.pipe(
      Request.user("Hi"),
      Request.assistant(Completion.make({ finish: "length" })),
      Request.user("Hello?"),
    )
    assert.deepStrictEqual(encode(request).input, [userItem("Hi"), userItem("Hello?")])
    const entry = Reasoning.reasoning([{ type: "reasoning", id: "rs_1", summary: [] }])
    const cut = base.pipe(
      Request.user("Hi"),
      Request.assistant(Completion.make({ finish: "length", reasoningBySource: [entry] })),
    )
    assert.deepStrictEqual(encode(cut.pipe(Request.sendReasoning(true))).input, [userItem("Hi")])
  })

  it("user parts in order: text, images by URL and bytes, PDFs, text files; empty text left out", () => {
    const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46])
    const request = base.pipe(
      Request.user([
        Message.imageUrl("https://example.com/a.jpg"),
        Message.image(new Uint8Array([1, 2, 3]), "image/gif"),
        Message.file("photo.webp", "image/webp", new Uint8Array([4])),
        Message.file("report.pdf", "application/pdf", pdf),
        Message.file('say "hi".txt', "text/plain", "hi"),
        Message.file("data.json", "application/json", new TextEncoder().encode('{"a":1}')),
        Message.text(""),
        Message.text("Summarize."),
      ]),
    )
    assert.deepStrictEqual(encode(request).input, [
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_image", image_url: "https://example.com/a.jpg", detail: "auto" },
          { type: "input_image", image_url: "data:image/gif;base64,AQID", detail: "auto" },
          { type: "input_image", image_url: "data:image/webp;base64,BA==", detail: "auto" },
          {
            type: "input_file",
            filename: "report.pdf",
            file_data: "data:application/pdf;base64,JVBERg==",
          },
          { type: "input_text", text: '<file name="say &quot;hi&quot;.txt">\nhi\n</file>' },
          { type: "input_text", text: '<file name="data.json">\n{"a":1}\n</file>' },
          { type: "input_text", text: "Summarize." },
        ],
      },
    ])
  })

  it("attachments the wire cannot carry fail before anything is sent", () => {
    const kinds = [
      [Message.file("a.zip", "application/zip", new Uint8Array([1])), "Unsupported"],
      [Message.file("a.txt", "text/plain", new Uint8Array([0xff, 0xfe])), "Attachment"],
      [Message.textFileAt("./notes.md"), "Unsupported"],
      [Message.text(""), "Unsupported"],
    ] as const
    for (const [part, kind] of kinds) {
      assert.strictEqual(failure(base.pipe(Request.user([part]))).reason._tag, kind)
    }
    const zip = {
      ...ToolResult.make("call_1", "a"),
      attachments: [Message.file("a.zip", "application/zip", new Uint8Array([1]))],
    }
    assert.strictEqual(
      failure(base.pipe(Request.user("Go"), withCalls([call]), Request.toolResults([zip]))).reason
        ._tag,
      "Unsupported",
    )
  })
})

describe("encode: reasoning items go back exactly as they came", () => {
  const first: Reasoning.Item = {
    type: "reasoning",
    id: "rs_1",
    summary: [{ type: "summary_text", text: "Paris is in France." }],
    encrypted_content: "gAAAAB1",
  }
  const second: Reasoning.Item = {
    type: "reasoning",
    id: "rs_2",
    summary: [],
    encrypted_content: "gAAAAB2",
    status: "completed",
  }
  const turn = (
    items: ReadonlyArray<Reasoning.Item>,
    calls: ReadonlyArray<ToolCall.ToolCall>,
    text = "",
  ) => {
    const entry = Reasoning.reasoning(items)
    return Completion.make({
      finish: calls.length > 0 ? "tool_calls" : "stop",
      text,
      reasoning: entry.text,
      reasoningBySource: [entry],
      calls,
    })
  }
  const call = ToolCall.make("call_1", "weather", '{"city":"Paris"}')
  const request = base.pipe(
    Request.user("Weather?"),
    Request.assistant(turn([first, second], [call], "Checking.")),
    Request.toolResults([ToolResult.make("call_1", "18°C")]),
  )

  it("before the turn's message and calls, unchanged and in order", () => {
    const input = encode(request).input
    assert.deepStrictEqual(input.slice(1), [
      first,
      second,
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
      { type: "function_call", call_id: "call_1", name: "weather", arguments: '{"city":"Paris"}' },
      { type: "function_call_output", call_id: "call_1", output: "18°C" },
    ])
  })

  it("only the turns after the last user message by default; every turn's with sendReasoning(true); none with false", () => {
    const earlier = base.pipe(
      Request.user("Hi"),
      Request.assistant(turn([first], [], "Hello.")),
      Request.user("Weather?"),
      Request.assistant(turn([second], [call])),
      Request.toolResults([ToolResult.make("call_1", "18°C")]),
    )
    const reasoningIds = (body: RequestBody.RequestBody) =>
      body.input.flatMap((item) => (item.type === "reasoning" ? [item.id] : []))
    assert.deepStrictEqual(reasoningIds(encode(earlier)), ["rs_2"])
    assert.deepStrictEqual(reasoningIds(encode(earlier.pipe(Request.sendReasoning(true)))), [
      "rs_1",
      "rs_2",
    ])
    assert.deepStrictEqual(reasoningIds(encode(earlier.pipe(Request.sendReasoning(false)))), [])
  })

  it("fields the item came with are kept, content too (which the specification's input schema does not take)", () => {
    const raw: Reasoning.Item = {
      type: "reasoning",
      id: "rs_3",
      summary: [],
      content: [{ type: "reasoning_text", text: "Adding." }],
    }
    const body = outsideSpec(
      base.pipe(
        Request.user("Sum?"),
        Request.assistant(turn([raw], [call])),
        Request.toolResults([ToolResult.make("call_1", "3")]),
      ),
      (full) => ({
        ...full,
        input: full.input.map((item) =>
          item.type === "reasoning"
            ? ({ ...item, content: null } as unknown as RequestBody.InputItem)
            : item,
        ),
      }),
    )
    assert.deepStrictEqual(body.input[1], raw)
  })

  it("reasoning without items cannot go back: left out, or Unsupported when asked for", () => {
    const other = Completion.make({
      finish: "tool_calls",
      reasoning: "hmm",
      reasoningBySource: [{ source: "reasoning_content", text: "hmm" }],
      calls: [call],
    })
    const plain = base.pipe(
      Request.user("Hi"),
      Request.assistant(other),
      Request.toolResults([ToolResult.make("call_1", "18°C")]),
    )
    assert.isFalse(encode(plain).input.some((item) => item.type === "reasoning"))
    assert.strictEqual(failure(plain.pipe(Request.sendReasoning(true))).reason._tag, "Unsupported")
  })

  it("encrypted reasoning is asked for when the server keeps nothing, or when the request says so", () => {
    const include = (options: ResponsesCodec.WireOptions) =>
      encode(base.pipe(ResponsesCodec.options(options), Request.user("Hi"))).include
    assert.deepStrictEqual(include({}), ["reasoning.encrypted_content"])
    assert.isUndefined(include({ store: true }))
    assert.isUndefined(include({ encryptedReasoning: false }))
    assert.deepStrictEqual(include({ store: true, encryptedReasoning: true }), [
      "reasoning.encrypted_content",
    ])
  })
})

describe("encode: previous_response_id", () => {
  const call = ToolCall.make("call_1", "weather", '{"city":"Paris"}')
  const item: Reasoning.Item = {
    type: "reasoning",
    id: "rs_1",
    summary: [],
    encrypted_content: "gAAAAB1",
  }
  const entry = Reasoning.reasoning([item])
  const conversation = base.pipe(
    Request.system("Be brief."),
    Request.user("Weather?"),
    Request.assistant(
      Completion.make({
        finish: "tool_calls",
        reasoning: entry.text,
        reasoningBySource: [entry],
        calls: [call],
      }),
    ),
    Request.toolResults([ToolResult.make("call_1", "18°C")]),
    Request.user("And tomorrow?"),
  )

  it("sends only what came after the last assistant turn, stores the response, and asks for no encrypted reasoning", () => {
    const body = encode(conversation.pipe(ResponsesCodec.options({ previousResponseId: "resp_1" })))
    assert.strictEqual(body.previous_response_id, "resp_1")
    assert.strictEqual(body.store, true)
    assert.isUndefined(body.include)
    assert.strictEqual(body.instructions, "Be brief.")
    assert.deepStrictEqual(body.input, [
      { type: "function_call_output", call_id: "call_1", output: "18°C" },
      userItem("And tomorrow?"),
    ])
  })

  it("store false is kept when asked, with the encrypted reasoning", () => {
    const body = encode(
      conversation.pipe(ResponsesCodec.options({ previousResponseId: "resp_1", store: false })),
    )
    assert.strictEqual(body.store, false)
    assert.deepStrictEqual(body.include, ["reasoning.encrypted_content"])
  })

  it("results with no assistant turn before them go in the order given; nothing new is Unsupported", () => {
    const body = encode(
      base.pipe(
        ResponsesCodec.options({ previousResponseId: "resp_1" }),
        Request.toolResults([ToolResult.make("call_2", "b"), ToolResult.make("call_1", "a")]),
      ),
    )
    assert.deepStrictEqual(
      body.input.map((entry) =>
        entry.type === "function_call_output" ? entry.call_id : entry.type,
      ),
      ["call_2", "call_1"],
    )
    const nothing = base.pipe(
      ResponsesCodec.options({ previousResponseId: "resp_1" }),
      Request.user("Hi"),
      Request.assistant(Completion.make({ finish: "stop", text: "Hello." })),
    )
    assert.strictEqual(failure(nothing).reason._tag, "Unsupported")
    const missing = conversation.pipe(
      ResponsesCodec.options({ previousResponseId: "resp_1" }),
      Request.assistant(
        Completion.make({ finish: "tool_calls", calls: [ToolCall.make("call_3", "weather")] }),
      ),
      Request.user("Well?"),
    )
    assert.strictEqual(
      failure(missing).reason._tag,
      "Unsupported",
      "a call of that turn has no result",
    )
  })
})
