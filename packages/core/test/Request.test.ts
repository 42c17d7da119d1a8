import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  Completion,
  Message,
  Request,
  Tool,
  Toolbox,
  ToolCall,
  ToolChoice,
  ToolResult,
} from "../src/index.js"

const label = Tool.make("label", "Label a ticket.", {
  type: "object",
  properties: { topic: { type: "string" } },
  required: ["topic"],
})
const now = Tool.make("now", "The current time, UTC.")

describe("Request", () => {
  it("builds a request step by step without changing the earlier one", () => {
    const base = Request.make("qwen3-27b")
    const asked = base.pipe(Request.system("Be brief."), Request.user("Hello"))
    assert.strictEqual(base.messages.length, 0)
    assert.isUndefined(base.system)
    assert.strictEqual(asked.system, "Be brief.")
    assert.deepStrictEqual(asked.messages, [Message.user("Hello")])
    assert.strictEqual(asked.model, "qwen3-27b")
  })

  it("is data-first as well as pipeable", () => {
    const request = Request.maxTokens(Request.make("m"), 128)
    assert.strictEqual(request.maxTokens, 128)
    assert.strictEqual(Request.temperature(request, 0.2).temperature, 0.2)
  })

  it("carries user parts: text, images and text files", () => {
    const png = new Uint8Array([1, 2, 3])
    const request = Request.make("m").pipe(
      Request.user([
        Message.text("What is this?"),
        Message.image(png, "image/png"),
        Message.imageUrl("https://example.com/cat.png"),
        Message.file("notes.md", "text/markdown", "# Notes"),
      ]),
    )
    const turn = request.messages[0]
    assert.strictEqual(turn?._tag, "User")
    assert.deepStrictEqual(turn?._tag === "User" ? turn.parts.map((part) => part._tag) : [], [
      "Text",
      "Image",
      "Image",
      "File",
    ])
  })

  it("carries the assistant turn with its calls and ids, then the results in order", () => {
    const calls = [ToolCall.make("c1", "now"), ToolCall.make("c2", "label", '{"topic":"bug"}')]
    const done = Completion.make({ text: "", calls, finish: "tool_calls" })
    const results = [ToolResult.make("c1", "12:00"), ToolResult.error("c2", "no such topic")]
    const request = Request.make("m").pipe(
      Request.user("Hi"),
      Request.assistant(done),
      Request.toolResults(results),
    )
    assert.deepStrictEqual(
      request.messages.map((message) => message._tag),
      ["User", "Assistant", "Tool", "Tool"],
    )
    const assistant = request.messages[1]
    assert.deepStrictEqual(assistant?._tag === "Assistant" ? assistant.calls : [], calls)
    assert.deepStrictEqual(
      request.messages.slice(2).map((message) => (message._tag === "Tool" ? message.result : null)),
      results,
    )
  })

  it("replaces a tool offered again under the same name", () => {
    const again = Tool.make("now", "The time where the user is.")
    const request = Request.make("m").pipe(Request.tools([now, label]), Request.tool(again))
    assert.deepStrictEqual(
      request.tools.map((tool) => tool.description),
      ["The time where the user is.", "Label a ticket."],
    )
  })

  it.effect("offers the tools of a toolbox", () =>
    Effect.gen(function* () {
      const toolbox = Toolbox.make({
        tools: [now, label],
        call: (call) => Effect.succeed(ToolResult.make(call.id, "")),
      })
      const request = yield* Request.make("m").pipe(Request.toolsFrom(toolbox))
      assert.deepStrictEqual(
        request.tools.map((tool) => tool.name),
        ["now", "label"],
      )
    }),
  )

  it.effect("refuses what cannot be sent, saying why", () =>
    Effect.gen(function* () {
      const base = Request.make("m").pipe(Request.user("Hi"))
      const cases: ReadonlyArray<readonly [Request.Request, string]> = [
        [Request.toolChoice(base, ToolChoice.required), "offers no tools"],
        [base.pipe(Request.tool(now), Request.toolChoice(ToolChoice.tool("label"))), "label"],
        [Request.tool(base, Tool.make("read file", "bad name")), "position 4"],
        [Request.model(base, " "), "names no model"],
        [Request.maxTokens(base, 0), "max tokens"],
        [Request.temperature(base, 3), "temperature"],
      ]
      for (const [request, why] of cases) {
        const error = yield* Effect.flip(Request.validate(request))
        assert.strictEqual(error.reason._tag, "Unsupported")
        assert.include(error.message, why)
      }
    }),
  )

  it.effect("accepts what can be sent", () =>
    Effect.gen(function* () {
      const base = Request.make("m").pipe(Request.user("Hi"), Request.tools([now, label]))
      for (const choice of [
        ToolChoice.auto,
        ToolChoice.none,
        ToolChoice.required,
        ToolChoice.tool("label"),
      ]) {
        const request = Request.toolChoice(base, choice)
        assert.strictEqual(yield* Request.validate(request), request)
      }
      // None asks for no call, so it needs no tools.
      const plain = Request.make("m").pipe(Request.toolChoice(ToolChoice.none))
      assert.strictEqual(yield* Request.validate(plain), plain)
    }),
  )

  it.effect("requireTools refuses a request without tools", () =>
    Effect.gen(function* () {
      const plain = Request.make("m").pipe(Request.user("What files are here?"))
      const error = yield* Effect.flip(Request.requireTools(plain))
      assert.strictEqual(error.reason._tag, "Unsupported")
      assert.include(error.message, "offers no tools")
      const withTools = Request.tool(plain, now)
      assert.strictEqual(yield* Request.requireTools(withTools), withTools)
    }),
  )

  it("keeps response format and reasoning effort", () => {
    const format: Request.ResponseFormat = {
      _tag: "JsonSchema",
      name: "city",
      schema: { type: "object" },
    }
    const request = Request.make("m").pipe(
      Request.responseFormat(format),
      Request.reasoningEffort("low"),
    )
    assert.strictEqual(request.responseFormat, format)
    assert.strictEqual(request.reasoningEffort, "low")
  })
})
