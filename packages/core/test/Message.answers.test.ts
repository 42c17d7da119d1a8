import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { Completion, Message, ToolCall, ToolResult } from "../src/index.js"

const turn = (ids: ReadonlyArray<string>) =>
  Message.assistant(
    Completion.make({
      calls: ids.map((id, n) => ToolCall.make(id, `tool_${n}`)),
      finish: "tool_calls",
    }),
  )

/** The result made for the call at `n`: its content names the call's place. */
const resultFor = (id: string, n: number) => Message.toolResult(ToolResult.make(id, `call ${n}`))

/**
 * The order the results go in, by another way than the function's: the results of each id in
 * the order given, handed out to that id's calls in the order of the calls.
 */
const oracle = (ids: ReadonlyArray<string>, given: ReadonlyArray<Message.Tool>) => {
  const queues = new Map<string, Array<ToolResult.ToolResult>>()
  for (const { result } of given) {
    queues.set(result.callId, [...(queues.get(result.callId) ?? []), result])
  }
  return ids.map((id) => queues.get(id)?.shift())
}

/** A turn's call ids (few distinct ids, so that some repeat) and its results, shuffled. */
const answeredTurn = fc
  .array(fc.constantFrom("a", "b", "c", "call_1"), { minLength: 0, maxLength: 8 })
  .chain((ids) =>
    fc.record({
      ids: fc.constant(ids),
      given: fc.shuffledSubarray(
        ids.map((id, n) => resultFor(id, n)),
        { minLength: ids.length, maxLength: ids.length },
      ),
    }),
  )

const failureOf = (outcome: ReturnType<typeof Message.answersAt>) =>
  Result.isFailure(outcome) ? outcome.failure : undefined

describe("Message.answersAt", () => {
  it("puts a turn's results in the order of its calls, calls that share an id in turn", () =>
    fc.assert(
      fc.property(answeredTurn, fc.boolean(), ({ ids, given }, followed) => {
        const after = followed ? [Message.user("thanks")] : []
        const messages = [Message.user("hi"), turn(ids), ...given, ...after]
        const answers = Message.answersAt(messages, 1)
        assert.isTrue(Result.isSuccess(answers))
        if (Result.isFailure(answers)) return
        assert.deepStrictEqual<ReadonlyArray<ToolResult.ToolResult | undefined>>(
          answers.success.results,
          oracle(ids, given),
        )
        assert.strictEqual(answers.success.next, 2 + given.length)
      }),
    ))

  it("refuses a turn with a call left unanswered, or with a result of no call", () =>
    fc.assert(
      fc.property(
        answeredTurn.filter(({ ids }) => ids.length > 0),
        fc.nat(),
        fc.boolean(),
        ({ ids, given }, pick, drop) => {
          const at = pick % given.length
          const changed = drop
            ? given.filter((_, n) => n !== at)
            : [...given, Message.toolResult(ToolResult.make("stray", "?"))]
          const failure = failureOf(Message.answersAt([turn(ids), ...changed], 0))
          assert.strictEqual(failure?.reason._tag, "Unsupported")
          assert.include(
            failure?.message,
            drop
              ? "has no result after the assistant turn"
              : "result for call stray answers no call",
          )
        },
      ),
    ))

  it("gives nothing for a turn without calls, and cuts a model's long tool name", () => {
    const plain = Message.assistant(Completion.make({ text: "done", finish: "stop" }))
    assert.deepStrictEqual(
      Message.answersAt([plain, Message.user("ok")], 0),
      Result.succeed({ results: [], next: 1 }),
    )
    const long = Message.assistant(
      Completion.make({ calls: [ToolCall.make("x", "n".repeat(20_000))], finish: "tool_calls" }),
    )
    const failure = failureOf(Message.answersAt([long], 0))
    assert.isBelow(failure?.message.length ?? Infinity, 300)
  })
})
