import { describe, it } from "@effect/vitest"
import { Answer } from "@svir/testing"
import { Effect } from "effect"
import fc from "fast-check"
import { assert } from "vitest"
import { Loop } from "../src/index.js"
import { sent, serverAndClient, tools } from "./helpers.js"

/** A call the scripted model makes, and the result the seeds' registry gives it. */
const scriptedCall = fc.oneof(
  fc.nat({ max: 100_000 }).map((id) => ({
    call: { name: "lookup", arguments: { id } },
    content: `order ${id} is shipped`,
  })),
  fc.constant({ call: { name: "now" }, content: "2026-01-01T00:00:00Z" }),
)

/** N answers of one to three calls each, with or without text before them. */
const script = fc.array(
  fc.record({
    text: fc.constantFrom("", "Let me look."),
    calls: fc.array(scriptedCall, { minLength: 1, maxLength: 3 }),
  }),
  { maxLength: 5 },
)

/**
 * For a script of N answers with calls and one of text, the loop takes N + 1 steps, and the
 * last request carries every call's result right after the assistant turn that made it, in
 * the order of the calls, with the ids the server gave (`call_1`, `call_2`, ... across it).
 */
const followsTheScript = (
  steps: typeof script extends fc.Arbitrary<infer A> ? A : never,
  streamed: boolean,
) =>
  Effect.gen(function* () {
    const answers = [
      ...steps.map((step) =>
        Answer.reply({ text: step.text, calls: step.calls.map((c) => c.call) }),
      ),
      Answer.text("Done."),
    ]
    const { server, client, request } = yield* serverAndClient(answers)
    const result = yield* Loop.run({
      send: streamed ? client.stream : client.complete,
      toolbox: tools,
      request,
    })

    assert.deepStrictEqual(result.stop, { _tag: "Answered" })
    assert.strictEqual(result.steps.length, steps.length + 1)
    assert.strictEqual(server.bodies.length, steps.length + 1)
    assert.strictEqual(result.text, "Done.")

    let id = 0
    const expected: Array<readonly [string, unknown, unknown]> = [["user", undefined, undefined]]
    const history: Array<readonly [string, unknown, unknown]> = [["User", undefined, undefined]]
    for (const [k, step] of steps.entries()) {
      const ids = step.calls.map(() => `call_${++id}`)
      const answered = step.calls.map((c, i) => [ids[i], c.content])
      // The step's results, one per call, in the calls' order, and so in the conversation.
      assert.deepStrictEqual(
        result.steps[k]!.results.map((r) => [r.callId, r.content]),
        answered,
      )
      expected.push(["assistant", ids.join(","), undefined])
      history.push(["Assistant", ids.join(","), undefined])
      for (const [callId, content] of answered) {
        expected.push(["tool", callId, content])
        history.push(["Tool", callId, content])
      }
    }
    history.push(["Assistant", "", undefined])
    assert.deepStrictEqual(
      result.request.messages.map((message) =>
        message._tag === "Assistant"
          ? (["Assistant", message.calls.map((c) => c.id).join(","), undefined] as const)
          : message._tag === "Tool"
            ? (["Tool", message.result.callId, message.result.content] as const)
            : ([message._tag, undefined, undefined] as const),
      ),
      history,
    )
    const last = sent(server, steps.length).map((message) =>
      message.role === "assistant"
        ? ([
            "assistant",
            (message.tool_calls as ReadonlyArray<{ readonly id: string }>)
              .map((c) => c.id)
              .join(","),
            undefined,
          ] as const)
        : ([
            String(message.role),
            message.tool_call_id,
            message.role === "tool" ? message.content : undefined,
          ] as const),
    )
    assert.deepStrictEqual(last, expected)
  })

describe("Loop.run, for any script", () => {
  it("N answers with calls, then text: N + 1 steps, every result in order after its turn", () =>
    fc.assert(
      fc.asyncProperty(script, fc.boolean(), (steps, streamed) =>
        Effect.runPromise(Effect.scoped(followsTheScript(steps, streamed))),
      ),
      { numRuns: 40 },
    ))
})
