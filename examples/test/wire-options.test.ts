import { assert, describe, it } from "@effect/vitest"
import { OpenAiCodec } from "@svir/openai-codec"
import { Effect } from "effect"
import * as WireOptions from "../src/wire-options.js"

describe("the wire options example", () => {
  it.live("gets the log probabilities and sums the usage of both turns", () =>
    Effect.gen(function* () {
      const summary = yield* WireOptions.run
      assert.strictEqual(summary.first, "Yes")
      assert.deepStrictEqual(summary.alternatives, ["Yes -0.02, No -3.9"])
      assert.strictEqual(summary.second, "About 2,850 km.")
      assert.deepStrictEqual(summary.usage, { input: 79, output: 10, total: 89, cachedInput: 48 })
    }),
  )

  it.effect("sends the options and vLLM's own field", () =>
    Effect.gen(function* () {
      const body: Record<string, unknown> = { ...(yield* OpenAiCodec.encode(WireOptions.question)) }
      assert.deepInclude(body, {
        seed: 7,
        top_p: 0.9,
        stop: "\n",
        logprobs: true,
        top_logprobs: 2,
        chat_template_kwargs: { enable_thinking: false },
      })
    }),
  )
})
