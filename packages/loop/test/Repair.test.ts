import { assert, describe, it } from "@effect/vitest"
import { Completion, Request, Toolbox, ToolCall, ToolResult } from "@svir/core"
import { Answer } from "@svir/testing"
import { Effect } from "effect"
import { Loop } from "../src/index.js"
import { sent, serverAndClient, tools } from "./helpers.js"

/** A repair hook that writes down what it was asked, and mends with `mend`. */
const repairWith = (mend: (broken: Loop.Broken) => ToolCall.ToolCall | undefined) => {
  const asked: Array<Loop.Broken> = []
  const repair: Loop.Repair<never> = (broken) =>
    Effect.sync(() => {
      asked.push(broken)
      return mend(broken)
    })
  return { asked, repair }
}

describe("the repair hook", () => {
  it.live("mends arguments that do not fit; the mended call keeps the model's id", () =>
    Effect.gen(function* () {
      const { server, client, request } = yield* serverAndClient([
        Answer.toolCalls([{ name: "lookup", arguments: { id: "42" } }]),
        Answer.text("Order 42 is shipped."),
      ])
      const { asked, repair } = repairWith((broken) =>
        ToolCall.make("other-id", broken.call.name, '{"id": 42}'),
      )
      const result = yield* Loop.run({ send: client.stream, toolbox: tools, request, repair })

      assert.strictEqual(asked.length, 1)
      assert.match(asked[0]!.problem, /^invalid arguments: id: Expected number, got "42"/)
      assert.strictEqual(asked[0]!.request, request)
      assert.deepStrictEqual(result.steps[0]!.calls, [
        ToolCall.make("call_1", "lookup", '{"id": 42}'),
      ])
      assert.deepStrictEqual(result.steps[0]!.results, [
        ToolResult.make("call_1", "order 42 is shipped"),
      ])
      // The model is shown the call as mended, and its result.
      const [, assistant, answer] = sent(server, 1)
      assert.deepStrictEqual(assistant!.tool_calls, [
        { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"id": 42}' } },
      ])
      assert.strictEqual(answer!.content, "order 42 is shipped")
    }),
  )

  it.live("mends a call of a tool that does not exist", () =>
    Effect.gen(function* () {
      const { client, request } = yield* serverAndClient([
        Answer.toolCalls([{ name: "lookpu", arguments: { id: 7 } }]),
        Answer.text("done"),
      ])
      const { asked, repair } = repairWith((broken) =>
        ToolCall.make(broken.call.id, "lookup", broken.call.arguments),
      )
      const result = yield* Loop.run({ send: client.stream, toolbox: tools, request, repair })
      assert.strictEqual(asked[0]!.problem, "no tool named lookpu; the tools are: lookup, now")
      assert.strictEqual(result.steps[0]!.results[0]!.content, "order 7 is shipped")
    }),
  )

  it.effect("arguments that are not JSON go to the hook before the toolbox sees them", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const strict = Toolbox.make({
        tools: [],
        call: (call) =>
          Effect.sync(() => {
            seen.push(call.arguments)
            return ToolResult.make(call.id, "ran")
          }),
      })
      let turn = 0
      const send = () =>
        Effect.succeed(
          turn++ === 0
            ? Completion.make({
                calls: [ToolCall.make("c1", "run", '{"cmd": "ls"')],
                finish: "tool_calls",
              })
            : Completion.make({ text: "done", finish: "stop" }),
        )
      const { asked, repair } = repairWith((broken) =>
        ToolCall.make(broken.call.id, broken.call.name, `${broken.call.arguments}}`),
      )
      const result = yield* Loop.run({ send, toolbox: strict, request: Request.make("m"), repair })
      assert.match(
        asked[0]!.problem,
        /^invalid arguments: arguments are not valid JSON: the text ends/,
      )
      assert.deepStrictEqual(seen, ['{"cmd": "ls"}'])
      assert.strictEqual(result.steps[0]!.results[0]!.content, "ran")
    }),
  )

  it.effect("sends a failure of kind invalid_arguments to the hook whatever its words", () =>
    Effect.gen(function* () {
      // Worded as an MCP server words it; a handler's own failure is not sent to the hook.
      const refusing = Toolbox.make({
        tools: [],
        call: (call) =>
          Effect.succeed(
            call.name === "greet" && call.arguments !== '{"who":"Ada"}'
              ? ToolResult.error(
                  call.id,
                  "Input validation error: 7 is not a string",
                  "invalid_arguments",
                )
              : call.name === "greet"
                ? ToolResult.make(call.id, "hello Ada")
                : ToolResult.error(call.id, "Input validation error: the disk is full"),
          ),
      })
      let turn = 0
      const send = () =>
        Effect.succeed(
          turn++ === 0
            ? Completion.make({
                calls: [ToolCall.make("c1", "greet", '{"who":7}'), ToolCall.make("c2", "save")],
                finish: "tool_calls",
              })
            : Completion.make({ text: "done", finish: "stop" }),
        )
      const { asked, repair } = repairWith((broken) =>
        ToolCall.make(broken.call.id, broken.call.name, '{"who":"Ada"}'),
      )
      const result = yield* Loop.run({
        send,
        toolbox: refusing,
        request: Request.make("m"),
        repair,
      })
      assert.deepStrictEqual(
        asked.map((broken) => [broken.call.id, broken.problem]),
        [["c1", "Input validation error: 7 is not a string"]],
      )
      assert.deepStrictEqual(
        result.steps[0]!.results.map((r) => [r.content, r.failure]),
        [
          ["hello Ada", undefined],
          ["Input validation error: the disk is full", "handler_failed"],
        ],
      )
    }),
  )

  it.live(
    "a hook that gives nothing leaves the failed result; a mended call is not mended twice",
    () =>
      Effect.gen(function* () {
        const { client, request } = yield* serverAndClient([
          Answer.toolCalls([
            { name: "lookup", arguments: { id: "1" } },
            { name: "lookup", arguments: { id: "2" } },
          ]),
          Answer.text("done"),
        ])
        const { asked, repair } = repairWith((broken) =>
          broken.call.id === "call_1"
            ? undefined
            : ToolCall.make(broken.call.id, "lookup", '{"id": "still wrong"}'),
        )
        const result = yield* Loop.run({ send: client.stream, toolbox: tools, request, repair })
        assert.strictEqual(asked.length, 2)
        assert.deepStrictEqual(
          result.steps[0]!.results.map(
            (r) => r.isError && r.content.startsWith("invalid arguments: id: "),
          ),
          [true, true],
        )
        assert.strictEqual(result.steps[0]!.calls[1]!.arguments, '{"id": "still wrong"}')
      }),
  )

  it.live("without a hook, a broken call's failed result goes to the model as it is", () =>
    Effect.gen(function* () {
      const { server, client, request } = yield* serverAndClient([
        Answer.toolCalls([{ name: "lookup", arguments: { id: "42" } }]),
        Answer.text("done"),
      ])
      const result = yield* Loop.run({ send: client.stream, toolbox: tools, request })
      assert.isTrue(result.steps[0]!.results[0]!.isError)
      assert.match(String(sent(server, 1)[2]!.content), /^error: invalid arguments: id: /)
    }),
  )
})
