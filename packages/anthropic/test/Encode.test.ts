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
import { AnthropicCodec, type RequestBody, Thinking } from "../src/index.js"

const encode = (
  request: Request.Request,
  options: { stream: boolean; lean?: boolean } = { stream: false },
) => Effect.runSync(AnthropicCodec.encode(request, options))

const failure = (
  request: Request.Request,
  options?: AnthropicCodec.Options,
): SvirError.SvirError => {
  const exit = Effect.runSyncExit(AnthropicCodec.encode(request, { stream: false }, options))
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
const base = Request.make("claude-sonnet-4-5")

const withCalls = (calls: ReadonlyArray<ToolCall.ToolCall>, text = "") =>
  Request.assistant(Completion.make({ finish: "tool_calls", text, calls }))

describe("encode", () => {
  it("writes model, max_tokens (the default when none is set), system and messages; stream when streamed", () => {
    const request = base.pipe(Request.system("Be brief."), Request.user("Hi"))
    assert.deepStrictEqual(encode(request), {
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      system: "Be brief.",
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
    })
    assert.strictEqual(encode(request, { stream: true }).stream, true)
    assert.strictEqual(encode(request.pipe(Request.maxTokens(200))).max_tokens, 200)
    const codec = AnthropicCodec.make({ defaultMaxTokens: 1000 })
    const body = Effect.runSync(codec.encode(request, { stream: false })) as RequestBody.RequestBody
    assert.strictEqual(body.max_tokens, 1000)
  })

  it("sampling: temperature (0 to 1), top_p, stop_sequences, and top_k as an option", () => {
    const body = encode(
      base.pipe(
        Request.temperature(0.2),
        Request.topP(0.9),
        Request.stop("END"),
        AnthropicCodec.options({ topK: 40 }),
        Request.user("Hi"),
      ),
    )
    assert.strictEqual(body.temperature, 0.2)
    assert.strictEqual(body.top_p, 0.9)
    assert.deepStrictEqual(body.stop_sequences, ["END"])
    assert.strictEqual(body.top_k, 40)
    const hot = failure(base.pipe(Request.temperature(1.5), Request.user("Hi")))
    assert.strictEqual(hot.reason._tag, "Unsupported")
  })

  it("refuses every field the wire cannot carry, before anything is sent", () => {
    for (const request of [
      base.pipe(Request.seed(7), Request.user("Hi")),
      base.pipe(Request.presencePenalty(0.5), Request.user("Hi")),
      base.pipe(Request.frequencyPenalty(0.5), Request.user("Hi")),
      base.pipe(Request.responseFormat({ _tag: "Json" }), Request.user("Hi")),
      base.pipe(
        Request.responseFormat({
          _tag: "JsonSchema",
          name: "a",
          schema: { type: "object" },
          description: "An answer",
        }),
        Request.user("Hi"),
      ),
      base.pipe(AnthropicCodec.options({ serviceTier: "flex" as "auto" }), Request.user("Hi")),
      base.pipe(Request.codecOptions("anthropic-messages", { logprobs: true }), Request.user("Hi")),
      base,
    ]) {
      assert.strictEqual(failure(request).reason._tag, "Unsupported")
    }
  })

  it("options of other codecs are not this codec's", () => {
    const body = encode(
      base.pipe(Request.codecOptions("openai-chat", { logprobs: true }), Request.user("Hi")),
    )
    assert.isUndefined((body as Record<string, unknown>).logprobs)
  })

  it("the end user as metadata.user_id and the service tier, both left out by lean encoding", () => {
    const request = base.pipe(
      AnthropicCodec.options({ user: "user-5f2a", serviceTier: "standard_only" }),
      Request.user("Hi"),
    )
    const body = encode(request)
    assert.deepStrictEqual(body.metadata, { user_id: "user-5f2a" })
    assert.strictEqual(body.service_tier, "standard_only")
    const lean = encode(request, { stream: true, lean: true })
    assert.isUndefined(lean.metadata)
    assert.isUndefined(lean.service_tier)
    assert.strictEqual(lean.stream, true)
    assert.deepStrictEqual(AnthropicCodec.optionalFields, ["metadata", "service_tier"])
  })

  it("a JSON schema response format is output_config.format", () => {
    const body = encode(
      base.pipe(
        Request.responseFormat({ _tag: "JsonSchema", name: "city", schema: { type: "object" } }),
        Request.user("Hi"),
      ),
    )
    assert.deepStrictEqual(body.output_config, {
      format: { type: "json_schema", schema: { type: "object" } },
    })
  })

  it("tools as name, description and input_schema; an empty schema is an object with no properties", () => {
    const body = encode(
      base.pipe(Request.tool(weather), Request.tool(Tool.make("now", "")), Request.user("Hi")),
    )
    assert.deepStrictEqual(body.tools, [
      { name: "weather", description: "The weather in a city.", input_schema: weather.inputSchema },
      { name: "now", input_schema: { type: "object", properties: {} } },
    ])
    assert.isUndefined(body.tool_choice, "auto is the API's default")
  })

  it("tool choice: any for Required, a named tool, none; parallel calls off on each", () => {
    const offered = base.pipe(Request.tool(weather), Request.user("Hi"))
    const choice = (request: Request.Request) => encode(request).tool_choice
    assert.deepStrictEqual(choice(offered.pipe(Request.toolChoice(ToolChoice.required))), {
      type: "any",
    })
    assert.deepStrictEqual(choice(offered.pipe(Request.toolChoice(ToolChoice.tool("weather")))), {
      type: "tool",
      name: "weather",
    })
    assert.deepStrictEqual(choice(offered.pipe(Request.toolChoice(ToolChoice.none))), {
      type: "none",
    })
    assert.deepStrictEqual(choice(offered.pipe(Request.parallelToolCalls(false))), {
      type: "auto",
      disable_parallel_tool_use: true,
    })
    assert.deepStrictEqual(
      choice(
        offered.pipe(Request.toolChoice(ToolChoice.required), Request.parallelToolCalls(false)),
      ),
      { type: "any", disable_parallel_tool_use: true },
    )
    assert.isUndefined(choice(offered.pipe(Request.parallelToolCalls(true))))
    assert.isUndefined(
      choice(base.pipe(Request.parallelToolCalls(false), Request.user("Hi"))),
      "only with tools",
    )
  })

  it("thinking: a budget from the reasoning effort, max_tokens above it; none turns it off", () => {
    const high = encode(base.pipe(Request.reasoningEffort("high"), Request.user("Hi")))
    assert.deepStrictEqual(high.thinking, { type: "enabled", budget_tokens: 4096 })
    assert.strictEqual(high.max_tokens, 4096 + 4096)
    const minimal = encode(base.pipe(Request.reasoningEffort("minimal"), Request.user("Hi")))
    assert.deepStrictEqual(minimal.thinking, { type: "enabled", budget_tokens: 1024 })
    const none = encode(base.pipe(Request.reasoningEffort("none"), Request.user("Hi")))
    assert.deepStrictEqual(none.thinking, { type: "disabled" })
    assert.strictEqual(none.max_tokens, 4096)
    const own = encode(
      base.pipe(
        AnthropicCodec.options({ thinkingBudget: 10000 }),
        Request.maxTokens(16000),
        Request.user("Hi"),
      ),
    )
    assert.deepStrictEqual(own.thinking, { type: "enabled", budget_tokens: 10000 })
    assert.strictEqual(own.max_tokens, 16000)
    const budgets = AnthropicCodec.make({ thinkingBudgets: { medium: 3000 } })
    const medium = Effect.runSync(
      budgets.encode(base.pipe(Request.reasoningEffort("medium"), Request.user("Hi")), {
        stream: false,
      }),
    ) as RequestBody.RequestBody
    assert.deepStrictEqual(medium.thinking, { type: "enabled", budget_tokens: 3000 })
  })

  it("thinking: max_tokens no larger than the budget, both effort and budget, a budget under 1024 are refused", () => {
    assert.strictEqual(
      failure(
        base.pipe(Request.reasoningEffort("high"), Request.maxTokens(4096), Request.user("Hi")),
      ).reason._tag,
      "Unsupported",
    )
    assert.strictEqual(
      failure(
        base.pipe(
          Request.reasoningEffort("high"),
          AnthropicCodec.options({ thinkingBudget: 2000 }),
          Request.user("Hi"),
        ),
      ).reason._tag,
      "Config",
    )
    assert.strictEqual(
      failure(base.pipe(AnthropicCodec.options({ thinkingBudget: 100 }), Request.user("Hi"))).reason
        ._tag,
      "Unsupported",
    )
  })

  it("thinking given as the API's own field in extra still counts for max_tokens", () => {
    const body = encode(
      base.pipe(
        Request.extra({ thinking: { type: "enabled", budget_tokens: 5000 } }),
        Request.user("Hi"),
      ),
    )
    assert.deepStrictEqual(body.thinking, { type: "enabled", budget_tokens: 5000 })
    assert.strictEqual(body.max_tokens, 4096 + 5000)
  })

  it("extra fields go in as they are, never over a field the encoder writes", () => {
    const body = encode(base.pipe(Request.extra({ container: "c_1" }), Request.user("Hi")))
    assert.strictEqual(body.container, "c_1")
    for (const field of ["max_tokens", "model", "messages", "stream"]) {
      assert.strictEqual(
        failure(base.pipe(Request.extra({ [field]: 1 }), Request.user("Hi"))).reason._tag,
        "Config",
      )
    }
    assert.strictEqual(
      failure(base.pipe(Request.system("x"), Request.extra({ system: "y" }), Request.user("Hi")))
        .reason._tag,
      "Config",
    )
  })

  it("a request that cannot fit its context is a ContextOverflow", () => {
    const error = failure(base.pipe(Request.contextTokens(4000), Request.user("Hi")))
    assert.strictEqual(error.reason._tag, "ContextOverflow")
    const fits = encode(base.pipe(Request.contextTokens(8000), Request.user("Hi")))
    assert.strictEqual(fits.max_tokens, 4096)
  })
})

describe("encode: turns", () => {
  const call = ToolCall.make("toolu_1", "weather", '{"city":"Paris"}')

  it("results are tool_result blocks of a user turn, in the order of the calls; a failure is is_error, its text as it is", () => {
    const second = ToolCall.make("toolu_2", "weather", '{"city":"Oslo"}')
    const request = base.pipe(
      Request.tool(weather),
      Request.user("Weather?"),
      withCalls([call, second], "Checking."),
      Request.toolResults([
        ToolResult.error("toolu_2", "no station"),
        ToolResult.make("toolu_1", "18°C"),
      ]),
    )
    assert.deepStrictEqual(encode(request).messages, [
      { role: "user", content: [{ type: "text", text: "Weather?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_2", name: "weather", input: { city: "Oslo" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "18°C" },
          { type: "tool_result", tool_use_id: "toolu_2", content: "no station", is_error: true },
        ],
      },
    ])
  })

  it("a user turn after the results joins their turn, after them; consecutive user turns are one", () => {
    const request = base.pipe(
      Request.user("One"),
      Request.user("Two"),
      withCalls([call]),
      Request.toolResults([ToolResult.make("toolu_1", "18°C")]),
      Request.user("Thanks"),
    )
    const messages = encode(request).messages
    assert.deepStrictEqual(
      messages.map((message) => message.role),
      ["user", "assistant", "user"],
    )
    assert.deepStrictEqual(messages[0]!.content, [
      { type: "text", text: "One" },
      { type: "text", text: "Two" },
    ])
    assert.deepStrictEqual(messages[2]!.content, [
      { type: "tool_result", tool_use_id: "toolu_1", content: "18°C" },
      { type: "text", text: "Thanks" },
    ])
  })

  it("blank result content is left out; attachments follow the text", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47])
    const request = base.pipe(
      Request.user("Go"),
      withCalls([call, ToolCall.make("toolu_2", "weather")]),
      Request.toolResults([
        ToolResult.make("toolu_1", "  "),
        { ...ToolResult.make("toolu_2", "a map"), attachments: [Message.image(png, "image/png")] },
      ]),
    )
    assert.deepStrictEqual(encode(request).messages[2]!.content, [
      { type: "tool_result", tool_use_id: "toolu_1" },
      {
        type: "tool_result",
        tool_use_id: "toolu_2",
        content: [
          { type: "text", text: "a map" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw==" } },
        ],
      },
    ])
  })

  it("a call without its result, a result of no call, a result first, are Unsupported", () => {
    assert.strictEqual(
      failure(base.pipe(Request.user("Go"), withCalls([call]))).reason._tag,
      "Unsupported",
    )
    assert.strictEqual(
      failure(
        base.pipe(
          Request.user("Go"),
          withCalls([call]),
          Request.toolResults([ToolResult.make("toolu_1", "a"), ToolResult.make("toolu_9", "b")]),
        ),
      ).reason._tag,
      "Unsupported",
    )
    assert.strictEqual(
      failure(base.pipe(Request.toolResults([ToolResult.make("toolu_1", "a")]))).reason._tag,
      "Unsupported",
    )
  })

  it("arguments that are not a JSON object are Unsupported; blank arguments are {}", () => {
    const blank = encode(
      base.pipe(
        Request.user("Go"),
        withCalls([ToolCall.make("toolu_1", "now", "")]),
        Request.toolResults([ToolResult.make("toolu_1", "12:00")]),
      ),
    )
    assert.deepStrictEqual(blank.messages[1]!.content, [
      { type: "tool_use", id: "toolu_1", name: "now", input: {} },
    ])
    for (const args of ["[1]", "{", '"x"']) {
      const request = base.pipe(
        Request.user("Go"),
        withCalls([ToolCall.make("toolu_1", "now", args)]),
        Request.toolResults([ToolResult.make("toolu_1", "12:00")]),
      )
      assert.strictEqual(failure(request).reason._tag, "Unsupported")
    }
  })

  it("an empty assistant turn is not sent", () => {
    const request = base.pipe(
      Request.user("Hi"),
      Request.assistant(Completion.make({ finish: "stop" })),
      Request.user("Hello?"),
    )
    assert.deepStrictEqual(encode(request).messages, [
      {
        role: "user",
        content: [
          { type: "text", text: "Hi" },
          { type: "text", text: "Hello?" },
        ],
      },
    ])
  })

  it("images by URL, data URL and bytes; PDFs and text files as documents", () => {
    const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46])
    const request = base.pipe(
      Request.user([
        Message.imageUrl("https://example.com/a.jpg"),
        Message.imageUrl("data:image/webp;base64,UklGRg=="),
        Message.image(new Uint8Array([1, 2, 3]), "image/gif"),
        Message.file("report.pdf", "application/pdf", pdf),
        Message.file("notes.md", "text/markdown", "# Notes"),
        Message.file("data.json", "application/json", new TextEncoder().encode('{"a":1}')),
        Message.text("Summarize."),
      ]),
    )
    assert.deepStrictEqual(encode(request).messages[0]!.content, [
      { type: "image", source: { type: "url", url: "https://example.com/a.jpg" } },
      { type: "image", source: { type: "base64", media_type: "image/webp", data: "UklGRg==" } },
      { type: "image", source: { type: "base64", media_type: "image/gif", data: "AQID" } },
      {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: "JVBERg==" },
        title: "report.pdf",
      },
      {
        type: "document",
        source: { type: "text", media_type: "text/plain", data: "# Notes" },
        title: "notes.md",
      },
      {
        type: "document",
        source: { type: "text", media_type: "text/plain", data: '{"a":1}' },
        title: "data.json",
      },
      { type: "text", text: "Summarize." },
    ])
  })

  it("attachments the wire cannot carry fail before anything is sent", () => {
    const kinds = [
      [Message.image(new Uint8Array([1]), "image/bmp"), "Unsupported"],
      [Message.file("a.zip", "application/zip", new Uint8Array([1])), "Unsupported"],
      [Message.file("a.txt", "text/plain", new Uint8Array([0xff, 0xfe])), "Attachment"],
      [Message.textFileAt("./notes.md"), "Unsupported"],
      [Message.imageUrl("data:image/png,raw"), "Unsupported"],
    ] as const
    for (const [part, kind] of kinds) {
      assert.strictEqual(failure(base.pipe(Request.user([part]))).reason._tag, kind)
    }
    assert.strictEqual(
      failure(base.pipe(Request.user([Message.text("")]))).reason._tag,
      "Unsupported",
    )
  })
})

describe("encode: thinking goes back", () => {
  const signed = Thinking.reasoning([
    { type: "thinking", thinking: "Paris is in France.", signature: "EqQBsig" },
    { type: "redacted_thinking", data: "EmwKAhgBredacted" },
  ])
  const turn = Completion.make({
    finish: "tool_calls",
    text: "Checking.",
    reasoning: signed.text,
    reasoningBySource: [signed],
    calls: [ToolCall.make("toolu_1", "weather", '{"city":"Paris"}')],
  })
  const request = base.pipe(
    Request.user("Weather?"),
    Request.assistant(turn),
    Request.toolResults([ToolResult.make("toolu_1", "18°C")]),
  )

  it("the signed blocks first, unchanged, then the text and the calls", () => {
    assert.deepStrictEqual(encode(request).messages[1]!.content, [
      { type: "thinking", thinking: "Paris is in France.", signature: "EqQBsig" },
      { type: "redacted_thinking", data: "EmwKAhgBredacted" },
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
    ])
  })

  it("not with Request.sendReasoning(false)", () => {
    const content = encode(request.pipe(Request.sendReasoning(false))).messages[1]!.content
    assert.isFalse(
      content.some((block) => block.type === "thinking" || block.type === "redacted_thinking"),
    )
  })

  it("reasoning without signed blocks cannot go back: left out, or Unsupported when asked for", () => {
    const unsigned = Completion.make({
      finish: "stop",
      text: "Hi",
      reasoning: "hmm",
      reasoningBySource: [{ source: "reasoning_content", text: "hmm" }],
    })
    const plain = base.pipe(Request.user("Hi"), Request.assistant(unsigned), Request.user("And?"))
    assert.deepStrictEqual(encode(plain).messages[1]!.content, [{ type: "text", text: "Hi" }])
    assert.strictEqual(failure(plain.pipe(Request.sendReasoning(true))).reason._tag, "Unsupported")
  })
})
