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
    Effect.map((error) => error.kind),
  )

const turn = (calls: ReadonlyArray<ToolCall.ToolCall>, text = "") =>
  Completion.make({ text, calls, finish: "tool_calls" })

// The body type satisfies the official client's parameters; checked by `npm run typecheck`.
const asOfficial = (body: RequestBody.RequestBody): ChatCompletionCreateParams => body

describe("encode", () => {
  it.effect("writes model, system first, user, and only the fields that are set", () =>
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
          stream_options: { include_usage: true },
        },
      )
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
      assert.deepStrictEqual(
        (yield* encode(base.pipe(Request.responseFormat({ _tag: "Text" })))).response_format,
        { type: "text" },
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

  it.effect("writes images as URLs and data URLs, text files as text parts", () =>
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
          { type: "text", text: "Look" },
          { type: "image_url", image_url: { url: "https://example.test/cat.png" } },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw==" } },
          { type: "text", text: '<file name="notes.md">\n# Notes\n</file>' },
          { type: "text", text: '<file name="data.json">\n{"a":1}\n</file>' },
        ],
      })
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
      assert.strictEqual(
        yield* kindOf(Request.make("m").pipe(Request.user([badText]))),
        "Unsupported",
      )
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
      assert.deepStrictEqual(body.messages.at(-1)!.content, [
        { type: "text", text: "see file" },
        { type: "text", text: '<file name="out.txt">\n42\n</file>' },
      ])
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
