import { assert, describe, it } from "@effect/vitest"
import { Client } from "@svir/client"
import { Request } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"
import { Answer, ScriptedServer } from "@svir/testing"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { Loop, Stop } from "../src/index.js"
import { tools } from "./helpers.js"

/**
 * A streamed call to `now` whose usage says `total_tokens` as written here: `1e400` must reach
 * the decoder as text, since `JSON.parse` reads it as Infinity.
 */
const callWithTotal = (id: string, total: string) =>
  Answer.raw(
    [
      `{"id":"chatcmpl-${id}","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_${id}","type":"function","function":{"name":"now","arguments":"{}"}}]}}]}`,
      `{"id":"chatcmpl-${id}","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
      `{"id":"chatcmpl-${id}","model":"m","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":${total}}}`,
      "[DONE]",
    ].map((data) => `data: ${data}\n\n`),
  )

/** A loop over a scripted server whose every answer is a call with that total. */
const run = (total: string, mode: "strict" | "lenient") =>
  Effect.gen(function* () {
    const script = ["1", "2", "3", "4"].map((id) => callWithTotal(id, total))
    const server = yield* ScriptedServer.start(script)
    const client = yield* Client.make({
      baseUrl: server.url,
      apiKey: "sk-test",
      retry: false,
      codec: OpenAiCodec.make({ mode }),
    }).pipe(Effect.provide(FetchHttpClient.layer))
    const request = Request.includeUsage(
      yield* Request.make("scripted").pipe(
        Request.user("What time is it?"),
        Request.toolsFrom(tools),
      ),
      true,
    )
    return yield* Effect.result(
      Loop.run({ send: client.stream, toolbox: tools, request, stopWhen: Stop.tokenBudget(200) }),
    )
  })

describe("Stop.tokenBudget reads counts that are what they claim (D55)", () => {
  for (const total of ["-1", "1e400"]) {
    it.live(
      `a total_tokens of ${total}: lenient mode adds up the counts, and the budget holds`,
      () =>
        Effect.gen(function* () {
          const outcome = yield* run(total, "lenient")
          assert.strictEqual(outcome._tag, "Success")
          if (outcome._tag !== "Success") return
          // 110 tokens a step: over 200 after the second, not at once and not never.
          assert.deepStrictEqual(outcome.success.stop, { _tag: "Condition", index: 0 })
          assert.strictEqual(outcome.success.steps.length, 2)
          assert.deepStrictEqual(outcome.success.usage, { input: 200, output: 20, total: 220 })
        }),
    )

    it.live(`a total_tokens of ${total}: strict mode ends the loop with a Protocol error`, () =>
      Effect.gen(function* () {
        const outcome = yield* run(total, "strict")
        assert.strictEqual(outcome._tag, "Failure")
        if (outcome._tag === "Failure") assert.strictEqual(outcome.failure.reason._tag, "Protocol")
      }),
    )
  }
})
