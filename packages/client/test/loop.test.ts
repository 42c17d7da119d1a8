import { assert, describe, it } from "@effect/vitest"
import { type Completion, Request, SvirError, Tool } from "@svir/core"
import { Tools } from "@svir/registry"
import { Answer } from "@svir/testing"
import { Data, Effect, Schema } from "effect"
import type { Client } from "../src/index.js"
import { serverAndClient } from "./helpers.js"

class ClockBroken extends Data.TaggedError("ClockBroken")<{ readonly message: string }> {}

const tools = Tools.empty.pipe(
  Tools.add(
    "lookup",
    "Find an order by its number.",
    Schema.Struct({ id: Schema.Int }),
    (args) => `order ${args.id} is shipped`,
  ),
  Tools.addTool(Tool.make("now", "The current time, UTC."), () =>
    Effect.fail(new ClockBroken({ message: "the clock is broken" })),
  ),
)

/** The loop of the seeds: a bound on turns, the assistant turn first, then the results. */
const run = (client: Client.Service, start: Request.Request, turns: number) =>
  Effect.gen(function* () {
    let request = start
    for (let turn = 0; turn < turns; turn++) {
      const done: Completion.Completion = yield* client.complete(request)
      if (done.calls.length === 0) return done
      const results = yield* Tools.callAll(tools, done.calls)
      request = request.pipe(Request.assistant(done), Request.toolResults(results))
    }
    return yield* SvirError.make("Unsupported", "the model kept calling tools")
  })

describe("the loop, through client, registry and codec", () => {
  it.live("feeds the assistant turn and the results back, failures marked `error: `", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([
        Answer.reply({
          text: "Let me look.",
          calls: [
            { name: "lookup", arguments: { id: 42 } },
            { name: "now" },
            { name: "weather", arguments: { city: "Paris" } },
          ],
        }),
        Answer.text("Order 42 is shipped."),
      ])
      const start = yield* Request.make("scripted").pipe(
        Request.user("Where is order 42?"),
        Request.toolsFrom(tools),
      )
      const done = yield* run(client, start, 8)
      assert.strictEqual(done.text, "Order 42 is shipped.")

      const second = server.bodies[1] as {
        readonly messages: ReadonlyArray<Record<string, unknown>>
        readonly tools: ReadonlyArray<{ readonly function: { readonly name: string } }>
      }
      assert.deepStrictEqual(
        second.tools.map((tool) => tool.function.name),
        ["lookup", "now"],
      )
      const [user, assistant, ...results] = second.messages
      assert.deepStrictEqual(user, { role: "user", content: "Where is order 42?" })
      assert.strictEqual(assistant!.role, "assistant")
      assert.strictEqual(assistant!.content, "Let me look.")
      assert.deepStrictEqual(assistant!.tool_calls, [
        { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"id":42}' } },
        { id: "call_2", type: "function", function: { name: "now", arguments: "{}" } },
        {
          id: "call_3",
          type: "function",
          function: { name: "weather", arguments: '{"city":"Paris"}' },
        },
      ])
      assert.deepStrictEqual(
        results.map((result) => [result.role, result.tool_call_id]),
        [
          ["tool", "call_1"],
          ["tool", "call_2"],
          ["tool", "call_3"],
        ],
      )
      assert.strictEqual(results[0]!.content, "order 42 is shipped")
      assert.match(String(results[1]!.content), /^error: .*clock is broken/)
      assert.match(String(results[2]!.content), /^error: no tool named weather/)
    }),
  )

  it.live("stops at the bound when the model keeps calling tools", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([
        Answer.toolCalls([{ name: "lookup", arguments: { id: 1 } }]),
        Answer.toolCalls([{ name: "lookup", arguments: { id: 2 } }]),
        Answer.toolCalls([{ name: "lookup", arguments: { id: 3 } }]),
      ])
      const start = yield* Request.make("scripted").pipe(
        Request.user("loop"),
        Request.toolsFrom(tools),
      )
      const error = yield* Effect.flip(run(client, start, 3))
      assert.strictEqual(error.reason._tag, "Unsupported")
      assert.strictEqual(server.requests.length, 3)
    }),
  )
})
