import { assert, describe, it } from "@effect/vitest"
import { Client } from "@svir/client"
import { Completion, Request, Toolbox, ToolCall, ToolResult } from "@svir/core"
import { Answer, ScriptedServer } from "@svir/testing"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import * as Reason from "../src/reason.js"
import * as ToolChoiceExample from "../src/tool-choice.js"
import * as Notes from "../src/toolbox-of-your-own.js"
import * as ByHand from "../src/without-a-registry.js"

describe("requiring or forbidding a call", () => {
  it.effect("sends each choice as the wire wants it, and refuses what cannot be sent", () =>
    Effect.gen(function* () {
      const sent = yield* ToolChoiceExample.choices
      assert.strictEqual(sent.auto, "(not sent)")
      assert.strictEqual(sent.none, "none")
      assert.strictEqual(sent.noneWithoutTools, "(not sent)")
      assert.strictEqual(sent.required, "required")
      assert.match(String(sent.requiredWithoutTools), /^Unsupported: .*offers no tools/)
      assert.deepStrictEqual(sent.named, { type: "function", function: { name: "label" } })
      assert.match(String(sent.namedNotOffered), /^Unsupported: .*escalate/)
    }),
  )
})

describe("the tool choice in a loop", () => {
  it("is set back to Auto with the results, and to None at the bound", () => {
    const request = ToolChoiceExample.classify("I was charged twice.")
    const done = Completion.make({
      calls: [ToolCall.make("c1", "label", '{"topic":"billing"}')],
      finish: "tool_calls",
    })
    const next = ToolChoiceExample.continueAfter(request, done, [ToolResult.make("c1", "ok")])
    assert.strictEqual(request.toolChoice._tag, "Tool")
    assert.strictEqual(next.toolChoice._tag, "Auto")
    assert.deepStrictEqual(
      next.messages.map((message) => message._tag),
      ["User", "Assistant", "Tool"],
    )
    const last = ToolChoiceExample.lastTurn(next)
    assert.strictEqual(last.toolChoice._tag, "None")
    assert.strictEqual(last.tools.length, 1)
  })
})

describe("a toolbox of your own", () => {
  it.effect("keeps state across calls and answers bad calls with failed results", () =>
    Effect.gen(function* () {
      const notes = yield* Notes.makeNotes
      const results = yield* Toolbox.callAll(notes, [
        ToolCall.make("c1", "note", '{"text": "buy milk"}'),
        ToolCall.make("c2", "note", '{"txt": "typo"}'),
        ToolCall.make("c3", "note", '{"text": "call Ann"}'),
        ToolCall.make("c4", "notes"),
        ToolCall.make("c5", "erase"),
      ])
      assert.deepStrictEqual(results[0], ToolResult.make("c1", "kept"))
      assert.isTrue(results[1]!.isError)
      assert.include(results[1]!.content, "invalid arguments: text: Missing key")
      assert.deepStrictEqual(results[3], ToolResult.make("c4", "buy milk\ncall Ann"))
      assert.deepStrictEqual(results[4], ToolResult.error("c5", "no tool named erase"))
    }),
  )
})

describe("without a registry", () => {
  it.effect("decodes by hand, reads empty arguments as {}, and fails readably", () =>
    Effect.gen(function* () {
      const ok = yield* ByHand.answer(ToolCall.make("c1", "lookup", '{"id": 42}'))
      assert.deepStrictEqual(ok, ToolResult.make("c1", "order 42 is shipped"))
      const wrongType = yield* ByHand.answer(ToolCall.make("c2", "lookup", '{"id": "42"}'))
      assert.include(wrongType.content, "invalid arguments: id: Expected")
      const broken = yield* ByHand.answer(ToolCall.make("c3", "lookup", '{"id": 4'))
      assert.include(broken.content, "not valid JSON: the text ends")
      const empty = yield* ByHand.answer(ToolCall.make("c4", "lookup", ""))
      assert.strictEqual(empty.content, "invalid arguments: id: Missing key")
    }),
  )
})

describe("the reason extension", () => {
  it.live("sends a request that offers tools, and refuses one without, before sending", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.toolCalls([{ name: "list_files", arguments: { path: "." } }]),
      ])
      const client = yield* Client.make({ baseUrl: server.url }).pipe(
        Effect.provide(FetchHttpClient.layer),
      )
      const response = yield* Reason.singleShot(client)
      assert.deepStrictEqual(
        response.calls.map((call) => [call.name, call.arguments]),
        [["list_files", '{"path":"."}']],
      )
      const offered = (server.bodies[0] as { readonly tools: ReadonlyArray<unknown> }).tools
      assert.strictEqual(offered.length, 1)

      const refused = yield* Effect.flip(
        Reason.reason(client, Request.make("m").pipe(Request.user("Hi"))),
      )
      assert.strictEqual(refused.reason._tag, "Unsupported")
      assert.strictEqual(server.requests.length, 1)
    }),
  )
})
