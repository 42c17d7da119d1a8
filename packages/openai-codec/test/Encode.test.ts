import { assert, describe, it } from "@effect/vitest"
import { fc, it as prop } from "@fast-check/vitest"
import { Completion, Message, Request, Tool, ToolCall, ToolChoice, ToolResult } from "@svir/core"
import { Effect } from "effect"
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions"
import { OpenAiCodec, type RequestBody } from "../src/index.js"

const weather = Tool.make("weather", "The weather in a city.", {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
})
const now = Tool.make("now", "The current time.")
const base = Request.make("gpt-4o-mini").pipe(Request.system("Be brief."), Request.user("Hi"))

const encode = (request: Request.Request, stream = false) => OpenAiCodec.encode(request, { stream })

const kindOf = (request: Request.Request) =>
  encode(request).pipe(
    Effect.flip,
    Effect.map((error) => error.reason._tag),
  )

const turn = (calls: ReadonlyArray<ToolCall.ToolCall>, text = "") =>
  Completion.make({ text, calls, finish: "tool_calls" })

// The body type satisfies the official client's parameters; checked by `npm run typecheck`.
const asOfficial = (body: RequestBody.RequestBody): ChatCompletionCreateParams => body

describe("encode", () => {
  it.effect("writes model, system first, user, and only the fields that are set (D41)", () =>
    Effect.gen(function* () {
      const body = yield* encode(base)
      assert.deepStrictEqual(asOfficial(body), {
        model: "gpt-4o-mini",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hi" },
        ],
      })
      const full = yield* encode(
        base.pipe(
          Request.maxTokens(64),
          Request.temperature(0.2),
          Request.reasoningEffort("low"),
          Request.responseFormat({ _tag: "Json" }),
        ),
        true,
      )
      assert.deepStrictEqual(
        { ...full, messages: [] },
        {
          model: "gpt-4o-mini",
          messages: [],
          max_tokens: 64,
          temperature: 0.2,
          reasoning_effort: "low",
          response_format: { type: "json_object" },
          stream: true,
        },
      )
    }),
  )

  it.effect("asks for usage only when the request sets includeUsage to true, and streams", () =>
    Effect.gen(function* () {
      const asked = base.pipe(Request.includeUsage(true))
      assert.deepInclude(yield* encode(asked, true), { stream_options: { include_usage: true } })
      assert.notProperty(yield* encode(asked), "stream_options")
      assert.notProperty(
        yield* encode(base.pipe(Request.includeUsage(false)), true),
        "stream_options",
      )
      assert.notProperty(yield* encode(base, true), "stream_options")
    }),
  )

  it.effect("lean encoding leaves out the optional fields and keeps the requirements (D40)", () =>
    Effect.gen(function* () {
      const request = base.pipe(
        Request.maxTokens(64),
        Request.temperature(0.2),
        Request.reasoningEffort("low"),
        OpenAiCodec.options({ serviceTier: "flex", user: "user-1", prediction: "It is sunny." }),
        Request.includeUsage(true),
        Request.tool(weather),
        Request.toolChoice(ToolChoice.required),
        Request.responseFormat({ _tag: "Json" }),
      )
      const full = yield* OpenAiCodec.encode(request, { stream: true })
      const lean = yield* OpenAiCodec.encode(request, { stream: true, lean: true })
      assert.deepStrictEqual(
        Object.keys(full).filter((key) => !(key in lean)),
        [...OpenAiCodec.optionalFields],
      )
      assert.deepStrictEqual(lean, {
        model: "gpt-4o-mini",
        stream: true,
        max_tokens: 64,
        temperature: 0.2,
        tools: full.tools!,
        tool_choice: "required",
        response_format: { type: "json_object" },
        messages: full.messages,
      })
    }),
  )

  it.effect("writes tools, with an object schema for a tool that has none", () =>
    Effect.gen(function* () {
      const body = yield* encode(base.pipe(Request.tools([weather, now, Tool.make("x", "", {})])))
      assert.deepStrictEqual(body.tools, [
        {
          type: "function",
          function: {
            name: "weather",
            description: "The weather in a city.",
            parameters: weather.inputSchema,
          },
        },
        {
          type: "function",
          function: {
            name: "now",
            description: "The current time.",
            parameters: { type: "object", properties: {} },
          },
        },
        {
          type: "function",
          function: { name: "x", parameters: { type: "object", properties: {} } },
        },
      ])
    }),
  )

  it.effect("asks for strict arguments only for a tool that asks for them", () =>
    Effect.gen(function* () {
      const schema = { type: "object", properties: {}, additionalProperties: false, required: [] }
      const request = Request.make("m").pipe(
        Request.user("Hi"),
        Request.tools([{ ...Tool.make("exact", "Exact.", schema), strict: true }]),
        Request.tool(Tool.make("loose", "Loose.")),
      )
      const body = yield* OpenAiCodec.encode(request)
      assert.deepStrictEqual(
        body.tools?.map((tool) => tool.function.strict),
        [true, undefined],
      )
    }),
  )

  it.effect("writes the tool choice, and refuses the ones that cannot be made", () =>
    Effect.gen(function* () {
      const withTools = base.pipe(Request.tool(weather))
      assert.isUndefined((yield* encode(withTools)).tool_choice)
      assert.strictEqual(
        (yield* encode(withTools.pipe(Request.toolChoice(ToolChoice.none)))).tool_choice,
        "none",
      )
      assert.isUndefined(
        (yield* encode(base.pipe(Request.toolChoice(ToolChoice.none)))).tool_choice,
      )
      assert.strictEqual(
        (yield* encode(withTools.pipe(Request.toolChoice(ToolChoice.required)))).tool_choice,
        "required",
      )
      assert.deepStrictEqual(
        (yield* encode(withTools.pipe(Request.toolChoice(ToolChoice.tool("weather"))))).tool_choice,
        {
          type: "function",
          function: { name: "weather" },
        },
      )
      assert.strictEqual(
        yield* kindOf(base.pipe(Request.toolChoice(ToolChoice.required))),
        "Unsupported",
      )
      assert.strictEqual(
        yield* kindOf(withTools.pipe(Request.toolChoice(ToolChoice.tool("now")))),
        "Unsupported",
      )
    }),
  )

  it.effect("writes the response formats", () =>
    Effect.gen(function* () {
      // Text is every server's default: not sent (D41).
      assert.notProperty(
        yield* encode(base.pipe(Request.responseFormat({ _tag: "Text" }))),
        "response_format",
      )
      const schema = { type: "object", properties: { city: { type: "string" } } }
      const body = yield* encode(
        base.pipe(
          Request.responseFormat({
            _tag: "JsonSchema",
            name: "city",
            schema,
            strict: true,
            description: "A city",
          }),
        ),
      )
      assert.deepStrictEqual(body.response_format, {
        type: "json_schema",
        json_schema: { name: "city", schema, description: "A city", strict: true },
      })
    }),
  )

  it.effect(
    "sends a turn's calls in one message with empty content, blank arguments as {}, results in call order",
    () =>
      Effect.gen(function* () {
        const calls = [
          ToolCall.make("call_1", "weather", '{"city":"Paris"}'),
          ToolCall.make("call_2", "now", ""),
          ToolCall.make("call_3", "now", "  "),
        ]
        const request = base.pipe(
          Request.tools([weather, now]),
          Request.assistant(turn(calls)),
          Request.toolResults([
            ToolResult.make("call_3", "12:00"),
            ToolResult.error("call_1", "no station in Paris"),
            ToolResult.make("call_2", ""),
          ]),
        )
        const body = yield* encode(request)
        assert.deepStrictEqual(body.messages.slice(2), [
          {
            role: "assistant",
            content: "",
            tool_calls: [
              {
                id: "call_1",
                type: "function",
                function: { name: "weather", arguments: '{"city":"Paris"}' },
              },
              { id: "call_2", type: "function", function: { name: "now", arguments: "{}" } },
              { id: "call_3", type: "function", function: { name: "now", arguments: "{}" } },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: "error: no station in Paris" },
          { role: "tool", tool_call_id: "call_2", content: OpenAiCodec.emptyResultContent },
          { role: "tool", tool_call_id: "call_3", content: "12:00" },
        ])
      }),
  )

  it.effect(
    "answers calls that share an id in order, and refuses a missing or a stray result",
    () =>
      Effect.gen(function* () {
        const shared = [
          ToolCall.make("dup", "now", "{}"),
          ToolCall.make("dup", "now", '{"tz":"CET"}'),
        ]
        const body = yield* encode(
          base.pipe(
            Request.assistant(turn(shared)),
            Request.toolResults([ToolResult.make("dup", "a"), ToolResult.make("dup", "b")]),
          ),
        )
        assert.deepStrictEqual(
          body.messages.slice(3).map((m) => m.content),
          ["a", "b"],
        )
        const missing = base.pipe(
          Request.assistant(turn(shared)),
          Request.toolResults([ToolResult.make("dup", "a")]),
        )
        assert.strictEqual(yield* kindOf(missing), "Unsupported")
        const stray = base.pipe(Request.toolResults([ToolResult.make("x", "a")]))
        assert.strictEqual(yield* kindOf(stray), "Unsupported")
      }),
  )

  it.effect("says the error prefix once, added by the encoder only", () =>
    Effect.gen(function* () {
      const request = base.pipe(
        Request.assistant(turn([ToolCall.make("c", "now")])),
        Request.toolResults([ToolResult.error("c", "error: already prefixed")]),
      )
      const body = yield* encode(request)
      assert.strictEqual(body.messages.at(-1)!.content, "error: error: already prefixed")
    }),
  )

  it.effect("joins text and text files into one text, then the images as URLs (D9)", () =>
    Effect.gen(function* () {
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47])
      const body = yield* encode(
        Request.make("m").pipe(
          Request.user([
            Message.text("Look"),
            Message.imageUrl("https://example.test/cat.png"),
            Message.image(png, "image/png"),
            Message.file("notes.md", "text/markdown", "# Notes"),
            Message.file("data.json", "application/json", new TextEncoder().encode('{"a":1}')),
          ]),
        ),
      )
      assert.deepStrictEqual(body.messages[0], {
        role: "user",
        content: [
          {
            type: "text",
            text: 'Look\n\n<file name="notes.md">\n# Notes\n</file>\n\n<file name="data.json">\n{"a":1}\n</file>',
          },
          { type: "image_url", image_url: { url: "https://example.test/cat.png" } },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw==" } },
        ],
      })
    }),
  )

  it.effect("sends a turn without images as one string, and no empty text beside images", () =>
    Effect.gen(function* () {
      const textOnly = yield* encode(
        Request.make("m").pipe(
          Request.user([
            Message.file('my "notes" & <more>.txt', "text/plain", "x"),
            Message.text(""),
            Message.text("Summarize."),
          ]),
        ),
      )
      assert.deepStrictEqual(textOnly.messages[0], {
        role: "user",
        content: '<file name="my &quot;notes&quot; & <more>.txt">\nx\n</file>\n\nSummarize.',
      })
      const imageOnly = yield* encode(
        Request.make("m").pipe(
          Request.user([Message.text(""), Message.imageUrl("https://example.test/a.png")]),
        ),
      )
      assert.deepStrictEqual(imageOnly.messages[0]!.content, [
        { type: "image_url", image_url: { url: "https://example.test/a.png" } },
      ])
    }),
  )

  it.effect("refuses a file by path that was not read, naming the path (D43)", () =>
    Effect.gen(function* () {
      for (const part of [Message.textFileAt("/data/notes.md"), Message.imageAt("/data/cat.png")]) {
        const error = yield* Effect.flip(encode(Request.make("m").pipe(Request.user([part]))))
        assert.deepInclude(error.reason, { _tag: "Unsupported", attachment: part.path })
        assert.include(error.message, part.path)
      }
    }),
  )

  it.effect("refuses what a role cannot carry instead of dropping it", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* kindOf(Request.make("m").pipe(Request.user([]))), "Unsupported")
      const pdf = Message.file("a.pdf", "application/pdf", new Uint8Array([0x25, 0x50, 0x44, 0x46]))
      assert.strictEqual(yield* kindOf(Request.make("m").pipe(Request.user([pdf]))), "Unsupported")
      const refused = yield* Effect.flip(
        OpenAiCodec.encode(Request.make("m").pipe(Request.user([pdf])), { stream: false }),
      )
      assert.deepInclude(refused.reason, { _tag: "Unsupported", attachment: "a.pdf" })
      const badText = Message.file("a.txt", "text/plain", new Uint8Array([0xff, 0xfe]))
      const notUtf8 = yield* Effect.flip(encode(Request.make("m").pipe(Request.user([badText]))))
      assert.deepInclude(notUtf8.reason, { _tag: "Attachment", attachment: "a.txt" })
      const withImage: ToolResult.ToolResult = {
        ...ToolResult.make("c", "see image"),
        attachments: [Message.image(new Uint8Array([1]), "image/png")],
      }
      const request = base.pipe(
        Request.assistant(turn([ToolCall.make("c", "now")])),
        Request.toolResults([withImage]),
      )
      assert.strictEqual(yield* kindOf(request), "Unsupported")
      const withText: ToolResult.ToolResult = {
        ...ToolResult.make("c", "see file"),
        attachments: [Message.file("out.txt", "text/plain", "42")],
      }
      const body = yield* encode(
        base.pipe(
          Request.assistant(turn([ToolCall.make("c", "now")])),
          Request.toolResults([withText]),
        ),
      )
      // One string: DeepSeek rejects a tool message whose content is an array (D9).
      assert.strictEqual(
        body.messages.at(-1)!.content,
        'see file\n\n<file name="out.txt">\n42\n</file>',
      )
    }),
  )

  it.effect("sends reasoning back only when asked, under the key it came with (D7)", () =>
    Effect.gen(function* () {
      const answer = Completion.make({
        text: "42",
        reasoning: "abc",
        reasoningBySource: [
          { source: "reasoning_content", text: "a" },
          { source: "think", text: "b" },
          { source: "reasoning", text: "c" },
        ],
        calls: [ToolCall.make("c", "now")],
        finish: "tool_calls",
      })
      const request = base.pipe(
        Request.assistant(answer),
        Request.toolResults([ToolResult.make("c", "12:00")]),
      )
      assert.deepStrictEqual((yield* encode(request)).messages[2], {
        role: "assistant",
        content: "42",
        tool_calls: [{ id: "c", type: "function", function: { name: "now", arguments: "{}" } }],
      })
      const sent = yield* encode(request.pipe(Request.sendReasoning(true)))
      assert.deepInclude(sent.messages[2], { reasoning_content: "a", reasoning: "c" })
      const lean = yield* OpenAiCodec.encode(request.pipe(Request.sendReasoning(true)), {
        stream: true,
        lean: true,
      })
      assert.deepStrictEqual(lean.messages[2], sent.messages[2])
    }),
  )

  it.effect("admits a request whose body and max tokens fit its context size (D42)", () =>
    Effect.gen(function* () {
      const request = Request.make("m").pipe(Request.user("hi"), Request.maxTokens(16))
      const body = yield* encode(request, true)
      const bytes = new TextEncoder().encode(JSON.stringify(body)).length
      const exact = request.pipe(Request.contextTokens(bytes + 16))
      assert.deepStrictEqual(yield* encode(exact, true), body)
      const over = yield* Effect.flip(encode(request.pipe(Request.contextTokens(bytes + 13)), true))
      assert.strictEqual(over.reason._tag, "ContextOverflow")
      assert.include(over.message, "by 3")
      // Bytes, not characters: "é" is two.
      const accented = Request.make("m").pipe(Request.user("é"), Request.maxTokens(1))
      const size = new TextEncoder().encode(JSON.stringify(yield* encode(accented))).length
      assert.strictEqual(
        yield* kindOf(accented.pipe(Request.contextTokens(size))),
        "ContextOverflow",
      )
      assert.isDefined(yield* encode(accented.pipe(Request.contextTokens(size + 1))))
    }),
  )

  it.effect("max tokens 0 is an overflow with a context size, and Unsupported without", () =>
    Effect.gen(function* () {
      const none = Request.make("m").pipe(Request.user("hi"), Request.maxTokens(0))
      const overflow = yield* Effect.flip(encode(none.pipe(Request.contextTokens(100_000))))
      assert.strictEqual(overflow.reason._tag, "ContextOverflow")
      assert.include(overflow.message, "no room for the answer")
      assert.strictEqual(yield* kindOf(none), "Unsupported")
      // Another problem of the request is still reported as itself.
      assert.strictEqual(
        yield* kindOf(none.pipe(Request.model(""), Request.contextTokens(100_000))),
        "Unsupported",
      )
    }),
  )

  it.effect("runs Request.validate first", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* kindOf(Request.make("").pipe(Request.user("Hi"))), "Unsupported")
      assert.strictEqual(
        yield* kindOf(base.pipe(Request.tool(Tool.make("read file", "")))),
        "Unsupported",
      )
    }),
  )

  it.effect("the codec made by make encodes the same way", () =>
    Effect.gen(function* () {
      const codec = OpenAiCodec.make()
      assert.strictEqual(codec.path, "/chat/completions")
      assert.deepStrictEqual(yield* codec.encode(base, { stream: true }), yield* encode(base, true))
    }),
  )

  prop.prop([fc.string(), fc.boolean()])(
    "any result content reaches the wire, marked when failed",
    (content, failed) => {
      const result = failed ? ToolResult.error("c", content) : ToolResult.make("c", content)
      const request = base.pipe(
        Request.assistant(turn([ToolCall.make("c", "now")])),
        Request.toolResults([result]),
      )
      const body = Effect.runSync(encode(request))
      const sent = body.messages.at(-1)!.content as string
      const text = content.trim() === "" ? OpenAiCodec.emptyResultContent : content
      assert.strictEqual(sent, failed ? `${OpenAiCodec.errorPrefix}${text}` : text)
    },
  )
})
