import { assert, describe, it as effectIt } from "@effect/vitest"
import { fc, it } from "@fast-check/vitest"
import { Cause, Effect, Exit } from "effect"
import { OpenAiCodec } from "../src/index.js"

const response = (message: unknown, finish: unknown = "stop") =>
  JSON.stringify({ id: "r", model: "m", choices: [{ index: 0, message, finish_reason: finish }] })

describe("decodeResponse", () => {
  it.prop([
    fc.oneof(
      fc.json(),
      fc.string(),
      fc.anything().map((message) => response(message)),
      fc
        .record({ content: fc.anything(), tool_calls: fc.anything() })
        .map((message) => response(message)),
    ),
    fc.constantFrom("strict" as const, "lenient" as const),
  ])("any body gives a completion or a SvirError, never a defect", (body, mode) => {
    const exit = Effect.runSyncExit(OpenAiCodec.decodeResponse(body, { mode }))
    if (Exit.isFailure(exit)) assert.isFalse(Cause.hasDies(exit.cause))
  })

  effectIt.effect("a body longer than maxBytes is a ResponseLimit error", () =>
    Effect.gen(function* () {
      const body = response({ role: "assistant", content: "x".repeat(100) })
      const error = yield* OpenAiCodec.decodeResponse(body, { maxBytes: 50 }).pipe(Effect.flip)
      assert.strictEqual(error.reason._tag, "ResponseLimit")
      assert.deepInclude(error.reason, { limit: "maxBytes", max: 50 })
      const done = yield* OpenAiCodec.decodeResponse(body, { maxBytes: body.length })
      assert.strictEqual(done.text.length, 100)
    }),
  )

  it.prop([fc.string(), fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 5 })])(
    "text and calls come back as sent",
    (text, calls) => {
      const toolCalls = calls.map(([name, args], i) => ({
        id: `call_${i}`,
        type: "function",
        function: { name: `t${name.length}`, arguments: args },
      }))
      const body = response(
        { role: "assistant", content: text, tool_calls: toolCalls },
        calls.length > 0 ? "tool_calls" : "stop",
      )
      const done = Effect.runSync(OpenAiCodec.decodeResponse(body, { think: "keep" }))
      assert.strictEqual(done.text, text)
      assert.deepStrictEqual(
        done.calls.map((call) => [call.id, call.name, call.arguments]),
        toolCalls.map((call) => [call.id, call.function.name, call.function.arguments]),
      )
    },
  )
})
