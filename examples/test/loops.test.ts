import { assert, describe, it } from "@effect/vitest"
import { Client } from "@svir/client"
import { Request } from "@svir/core"
import { Answer, ScriptedServer } from "@svir/testing"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { vi } from "vitest"
import * as Loop from "../src/loop.js"
import * as StreamedLoop from "../src/streamed-loop.js"

const recorder = () => {
  const printed = { text: "", calls: "" }
  const print: StreamedLoop.Printer = {
    text: (piece) => {
      printed.text += piece
    },
    call: (piece) => {
      printed.calls += piece
    },
  }
  return { printed, print }
}

const setUp = (script: ReadonlyArray<Answer.Answer>) =>
  Effect.gen(function* () {
    const server = yield* ScriptedServer.start(script, { chunkSize: 3 })
    const client = yield* Client.make({ baseUrl: server.url }).pipe(
      Effect.provide(FetchHttpClient.layer),
    )
    const request = yield* Request.make("scripted").pipe(
      Request.user("Where is order 42, and what time is it?"),
      Request.toolsFrom(Loop.tools),
    )
    return { server, client, request }
  })

type Message = Record<string, unknown>

const secondRequest = (server: ScriptedServer.ScriptedServer) =>
  (server.bodies[1] as { readonly messages: ReadonlyArray<Message> }).messages

describe("the loops of the seeds", () => {
  it.live("the loop runs the calls and feeds the results back", () =>
    Effect.gen(function* () {
      const { server, client, request } = yield* setUp(Loop.script)
      const done = yield* Loop.run(client, Loop.tools, request)
      assert.strictEqual(done.text, "Order 42 is shipped (checked at 2026-01-01T00:00:00Z).")
      const messages = secondRequest(server)
      assert.deepStrictEqual(
        messages.map((message) => message.role),
        ["user", "assistant", "tool", "tool"],
      )
      assert.strictEqual(messages[2]!.content, "order 42 is shipped")
      assert.strictEqual(messages[3]!.content, "2026-01-01T00:00:00Z")
    }),
  )

  it.live("the streamed loop prints text and calls as they arrive", () =>
    Effect.gen(function* () {
      const { server, client, request } = yield* setUp([
        Answer.reply({ text: "Checking.", calls: [{ name: "lookup", arguments: { id: 42 } }] }),
        Answer.text("Order 42 is shipped."),
      ])
      const { printed, print } = recorder()
      const done = yield* StreamedLoop.run(client, Loop.tools, request, print)
      assert.strictEqual(done.text, "Order 42 is shipped.")
      assert.strictEqual(printed.text, "Checking.Order 42 is shipped.")
      assert.strictEqual(printed.calls, '\ncalling lookup {"id":42}')
      assert.deepStrictEqual(secondRequest(server)[1]!.tool_calls, [
        { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"id":42}' } },
      ])
    }),
  )

  it.live("both loops stop at their bound", () =>
    Effect.gen(function* () {
      const again = Answer.toolCalls([{ name: "now" }])
      const { client, request } = yield* setUp([again, again, again, again])
      const plain = yield* Effect.flip(Loop.run(client, Loop.tools, request, 2))
      assert.strictEqual(plain.message, "the model kept calling tools")
      const streamed = yield* Effect.flip(
        StreamedLoop.run(client, Loop.tools, request, recorder().print, 2),
      )
      assert.strictEqual(streamed.reason._tag, "Unsupported")
    }),
  )

  it.live("a streamed turn cut short is an error, and its calls are never run", () =>
    Effect.gen(function* () {
      const { server, client, request } = yield* setUp([
        Answer.toolCalls([{ name: "lookup", arguments: { id: 7 } }], {
          quirks: { resetAfterEvents: 3, eventDelayMillis: 10 },
        }),
      ])
      const error = yield* Effect.flip(
        StreamedLoop.run(client, Loop.tools, request, recorder().print),
      )
      assert.strictEqual(error.reason._tag, "TruncatedStream")
      assert.strictEqual(server.requests.length, 1)
    }),
  )

  it.live("the runnable programs play the scripted conversation, and say so", () =>
    Effect.gen(function* () {
      const notices = vi.spyOn(console, "error").mockImplementation(() => {})
      yield* Effect.addFinalizer(() => Effect.sync(() => notices.mockRestore()))
      const scripted = { baseUrl: undefined, model: "scripted" }
      const done = yield* Loop.ask(scripted)
      assert.include(done.text, "Order 42 is shipped")
      const { printed, print } = recorder()
      yield* StreamedLoop.ask(scripted, print)
      assert.include(printed.text, "Order 42 is shipped")
      assert.include(printed.calls, "calling lookup")
      const said = notices.mock.calls.map((args) => String(args[0]))
      assert.strictEqual(said.length, 2)
      for (const notice of said)
        assert.match(
          notice,
          /^\(no OPENAI_BASE_URL: talking to a scripted server at http:\/\/127\.0\.0\.1:\d+\/v1\)$/,
        )
    }).pipe(Effect.scoped),
  )
})
