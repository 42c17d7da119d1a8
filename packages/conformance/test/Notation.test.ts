import { assert, describe, it } from "@effect/vitest"
import { Message, SvirError } from "@svir/core"
import { Effect, Result, Schema } from "effect"
import { Notation } from "../src/index.js"

const request = (notation: unknown) => Schema.decodeUnknownSync(Notation.Request)(notation)

describe("Notation.toRequest", () => {
  it.effect("sets every field the notation gives, and nothing else", () =>
    Effect.gen(function* () {
      const bare = yield* Notation.toRequest(request({ model: "m", messages: [] }))
      assert.deepStrictEqual(
        [bare.system, bare.maxTokens, bare.temperature, bare.includeUsage, bare.toolChoice._tag],
        [undefined, undefined, undefined, undefined, "Auto"],
      )
      const full = yield* Notation.toRequest(
        request({
          model: "m",
          system: "Be brief.",
          max_tokens: 16,
          temperature: 0.5,
          reasoning_effort: "low",
          include_usage: false,
          tools: [{ name: "lookup", description: "Finds.", input_schema: { type: "object" } }],
          tool_choice: { tool: "lookup" },
          response_format: { schema: { name: "a", schema: { type: "object" } } },
          messages: [],
        }),
      )
      assert.strictEqual(full.system, "Be brief.")
      assert.deepStrictEqual(
        [full.maxTokens, full.temperature, full.reasoningEffort, full.includeUsage],
        [16, 0.5, "low", false],
      )
      assert.deepStrictEqual(full.tools, [
        { name: "lookup", description: "Finds.", inputSchema: { type: "object" } },
      ])
      assert.deepStrictEqual(full.toolChoice, { _tag: "Tool", name: "lookup" })
      // strict is left out when the notation leaves it out
      assert.deepStrictEqual(full.responseFormat, {
        _tag: "JsonSchema",
        name: "a",
        schema: { type: "object" },
      })
    }),
  )

  it.effect("reads the choices and formats by name", () =>
    Effect.gen(function* () {
      const of = (tool_choice: string, response_format: string) =>
        Notation.toRequest(request({ model: "m", tool_choice, response_format, messages: [] }))
      const none = yield* of("none", "text")
      assert.deepStrictEqual(
        [none.toolChoice, none.responseFormat],
        [{ _tag: "None" }, { _tag: "Text" }],
      )
      const required = yield* of("required", "json")
      assert.deepStrictEqual(
        [required.toolChoice, required.responseFormat],
        [{ _tag: "Required" }, { _tag: "Json" }],
      )
    }),
  )

  it.effect("builds the turns: reasoning by source, calls, failed results, a system turn", () =>
    Effect.gen(function* () {
      const built = yield* Notation.toRequest(
        request({
          model: "m",
          messages: [
            { role: "system", parts: [{ text: "Be " }, { text: "brief." }] },
            { role: "user", parts: [{ text: "hi" }] },
            {
              role: "assistant",
              parts: [
                { reasoning: { source: "reasoning", text: "a" } },
                { reasoning: { source: "think", text: "b" } },
                { reasoning: { source: "reasoning", text: "c" } },
                { text: "ok" },
                { tool_call: { id: "c1", name: "f", arguments: "{}" } },
              ],
            },
            {
              role: "tool",
              parts: [
                { tool_result: { call_id: "c1", content: "failed", is_error: true } },
                { tool_result: { call_id: "c2", content: "fine" } },
              ],
            },
          ],
        }),
      )
      assert.strictEqual(built.system, "Be brief.")
      assert.deepStrictEqual(built.messages, [
        Message.user([Message.text("hi")]),
        {
          _tag: "Assistant",
          text: "ok",
          reasoning: "abc",
          reasoningBySource: [
            { source: "reasoning", text: "ac" },
            { source: "think", text: "b" },
          ],
          calls: [{ id: "c1", name: "f", arguments: "{}" }],
        },
        {
          _tag: "Tool",
          result: { callId: "c1", content: "failed", isError: true, failure: "handler_failed" },
        },
        { _tag: "Tool", result: { callId: "c2", content: "fine", isError: false } },
      ])
    }),
  )

  it.effect("takes attachments from memory by default, and from a resolver when given", () =>
    Effect.gen(function* () {
      const notation = request({
        model: "m",
        messages: [{ role: "user", parts: [{ file: "a" }, { file: "b" }, { image: "c" }] }],
      })
      const attachments = {
        a: { name: "notes.md", text: "# hi" },
        b: { name: "raw.bin", hex: "ff00" },
        c: { media_type: "image/png", hex: "0102" },
      }
      const built = yield* Notation.toRequest(notation, attachments)
      assert.deepStrictEqual(built.messages[0], {
        _tag: "User",
        parts: [
          Message.file("notes.md", "text/markdown", "# hi"),
          Message.file("raw.bin", "text/plain", new Uint8Array([0xff, 0x00])),
          Message.image(new Uint8Array([1, 2]), "image/png"),
        ],
      })
      const failed = yield* Effect.flip(
        Notation.toRequest(notation, attachments, (key) =>
          Effect.fail(SvirError.make("Attachment", "gone", { attachment: key })),
        ),
      )
      assert.strictEqual(failed.reason._tag, "Attachment")
    }),
  )

  it("mediaTypeOf knows a few text types and falls back to text/plain", () => {
    assert.strictEqual(Notation.mediaTypeOf("a.JSON"), "application/json")
    assert.strictEqual(Notation.mediaTypeOf("notes"), "text/plain")
    assert.strictEqual(Notation.mediaTypeOf("main.rs"), "text/plain")
  })

  it("refuses a part in a role that has no such part, and a system turn after the first", () => {
    const problem = (notation: unknown) => {
      const decoded = Schema.decodeUnknownResult(Notation.Request)(notation)
      return Result.isFailure(decoded) ? String(decoded.failure) : "accepted"
    }
    assert.include(
      problem({ model: "m", messages: [{ role: "assistant", parts: [{ image: "x" }] }] }),
      "the assistant role has no image part",
    )
    assert.include(
      problem({
        model: "m",
        messages: [
          { role: "user", parts: [{ text: "hi" }] },
          { role: "system", parts: [{ text: "late" }] },
        ],
      }),
      "a system turn must come first",
    )
    assert.include(
      problem({ model: "m", system: "s", messages: [{ role: "system", parts: [] }] }),
      "a system turn must come first",
    )
  })
})
