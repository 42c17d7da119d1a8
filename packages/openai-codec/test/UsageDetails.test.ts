import { assert, describe, it } from "@effect/vitest"
import { fc, it as prop } from "@fast-check/vitest"
import type { Completion } from "@svir/core"
import { Effect } from "effect"
import { OpenAiCodec } from "../src/index.js"
import { feed, inPieces } from "./support/cases.js"

type Mode = "strict" | "lenient"
const modes: ReadonlyArray<Mode> = ["strict", "lenient"]

/** A whole answer whose body carries `usage`. */
const whole = (usage: unknown): string =>
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }],
    usage,
  })

/** A stream whose usage comes last, in a chunk with no choice, as `include_usage` sends it. */
const streamed = (usage: unknown): string => {
  const chunks = [
    { id: "chatcmpl-1", model: "m", choices: [{ index: 0, delta: { content: "Hi" } }] },
    { id: "chatcmpl-1", model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    { id: "chatcmpl-1", model: "m", choices: [], usage },
  ]
  return `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("")}data: [DONE]\n\n`
}

/** The usage of the answer, or the error kind, whole and streamed at every chunking. */
const decodeAll = (usage: unknown, mode: Mode) => {
  const outcomes: Array<{ readonly usage?: Completion.Usage; readonly error?: string }> = []
  const response = Effect.runSync(Effect.result(OpenAiCodec.decodeResponse(whole(usage), { mode })))
  outcomes.push(
    response._tag === "Success"
      ? { ...(response.success.usage && { usage: response.success.usage }) }
      : { error: response.failure.reason._tag.toLowerCase() },
  )
  for (const size of [1, 3, 0]) {
    const outcome = feed(OpenAiCodec.decoder({ mode }), inPieces(streamed(usage), size))
    outcomes.push(
      outcome.completion === undefined
        ? { error: outcome.error ?? "none" }
        : { ...(outcome.completion.usage && { usage: outcome.completion.usage }) },
    )
  }
  return outcomes
}

/** Usage blocks as servers sent them, each with where it was seen, and what is read of it. */
const recorded: ReadonlyArray<{
  readonly server: string
  readonly usage: unknown
  readonly read: Completion.Usage
}> = [
  {
    // OpenAI, prompt caching (run-llama/llama_index#17372).
    server: "OpenAI, cached prompt",
    usage: {
      prompt_tokens: 2006,
      completion_tokens: 300,
      total_tokens: 2306,
      prompt_tokens_details: { cached_tokens: 1920 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    read: { input: 2006, output: 300, total: 2306, cachedInput: 1920, reasoning: 0 },
  },
  {
    // OpenAI, an audio model: every detail of the official client's CompletionUsage.
    server: "OpenAI, audio",
    usage: {
      prompt_tokens: 120,
      completion_tokens: 240,
      total_tokens: 360,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 80 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 200,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    read: {
      input: 120,
      output: 240,
      total: 360,
      cachedInput: 0,
      audioInput: 80,
      reasoning: 0,
      audioOutput: 200,
    },
  },
  {
    // vLLM with --enable-prompt-tokens-details (vllm-project/vllm#18149, vllm-ascend#8910).
    server: "vLLM, prompt tokens details on",
    usage: {
      prompt_tokens: 4609,
      total_tokens: 4614,
      completion_tokens: 5,
      prompt_tokens_details: { cached_tokens: 4608 },
      completion_tokens_details: null,
    },
    read: { input: 4609, output: 5, total: 4614, cachedInput: 4608 },
  },
  {
    // vLLM without it: the details are null (vllm-project/vllm#7299).
    server: "vLLM, prompt tokens details off",
    usage: {
      prompt_tokens: 21,
      total_tokens: 28,
      completion_tokens: 7,
      prompt_tokens_details: null,
    },
    read: { input: 21, output: 7, total: 28 },
  },
  {
    // vLLM behind LiteLLM, every detail named, most null (BerriAI/litellm#22984).
    server: "vLLM, reasoning parser",
    usage: {
      total_tokens: 150687,
      prompt_tokens: 150383,
      completion_tokens: 304,
      prompt_tokens_details: {
        text_tokens: null,
        audio_tokens: null,
        image_tokens: null,
        cached_tokens: 149936,
      },
      completion_tokens_details: {
        text_tokens: null,
        audio_tokens: null,
        image_tokens: null,
        reasoning_tokens: 15,
        accepted_prediction_tokens: null,
        rejected_prediction_tokens: null,
      },
    },
    read: { input: 150383, output: 304, total: 150687, cachedInput: 149936, reasoning: 15 },
  },
  {
    // llama.cpp's server since cached tokens were added (ggml-org/llama.cpp#19361).
    server: "llama.cpp",
    usage: {
      completion_tokens: 12,
      prompt_tokens: 448,
      total_tokens: 460,
      prompt_tokens_details: { cached_tokens: 447 },
    },
    read: { input: 448, output: 12, total: 460, cachedInput: 447 },
  },
  {
    // OpenRouter with usage accounting: cost fields beside the counts (tailcallhq/forgecode#1641).
    server: "OpenRouter",
    usage: {
      prompt_tokens: 9171,
      completion_tokens: 113,
      total_tokens: 9284,
      cost: 0,
      is_byok: true,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      cost_details: {
        upstream_inference_cost: 0.0360795,
        upstream_inference_prompt_cost: 0.0343845,
        upstream_inference_completions_cost: 0.001695,
      },
      completion_tokens_details: { reasoning_tokens: 55, image_tokens: 0 },
    },
    read: {
      input: 9171,
      output: 113,
      total: 9284,
      cachedInput: 0,
      audioInput: 0,
      reasoning: 55,
    },
  },
  {
    // DeepSeek's own API: cache hits at the top of the usage (BerriAI/litellm#5017).
    server: "DeepSeek",
    usage: {
      completion_tokens: 40,
      prompt_tokens: 11,
      total_tokens: 51,
      prompt_cache_hit_tokens: 0,
      prompt_cache_miss_tokens: 11,
    },
    read: { input: 11, output: 40, total: 51, cachedInput: 0 },
  },
  {
    // Gemini through LiteLLM: a detail sent as null is absent (BerriAI/litellm#10667).
    server: "Gemini",
    usage: {
      completion_tokens: 35,
      prompt_tokens: 18420,
      total_tokens: 18455,
      completion_tokens_details: { reasoning_tokens: null },
      prompt_tokens_details: { audio_tokens: null, cached_tokens: 18403 },
    },
    read: { input: 18420, output: 35, total: 18455, cachedInput: 18403 },
  },
]

describe("usage details (D51)", () => {
  for (const { server, usage, read } of recorded) {
    it(`reads ${server}'s usage, whole and streamed, in both modes`, () => {
      for (const mode of modes) {
        for (const outcome of decodeAll(usage, mode)) {
          assert.deepStrictEqual(outcome, { usage: read }, mode)
        }
      }
    })
  }

  it("the nested cached count wins over DeepSeek's, as a proxy may send both", () => {
    const usage = {
      prompt_tokens: 100,
      completion_tokens: 5,
      total_tokens: 105,
      prompt_tokens_details: { cached_tokens: 64 },
      prompt_cache_hit_tokens: 80,
    }
    for (const outcome of decodeAll(usage, "strict")) {
      assert.strictEqual(outcome.usage?.cachedInput, 64)
    }
  })

  const counts = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }
  const unreadable: ReadonlyArray<readonly [string, unknown, Completion.Usage]> = [
    [
      "a count as text",
      { ...counts, prompt_tokens_details: { cached_tokens: "8" } },
      { input: 10, output: 2, total: 12 },
    ],
    [
      "a negative count",
      {
        ...counts,
        completion_tokens_details: { reasoning_tokens: -1, audio_tokens: 1 },
      },
      { input: 10, output: 2, total: 12, audioOutput: 1 },
    ],
    [
      "details that are not an object",
      { ...counts, completion_tokens_details: 3, prompt_tokens_details: { audio_tokens: 2 } },
      { input: 10, output: 2, total: 12, audioInput: 2 },
    ],
    [
      "a cache hit count that is not one",
      { ...counts, prompt_cache_hit_tokens: 1.5 },
      { input: 10, output: 2, total: 12 },
    ],
  ]
  for (const [what, usage, lenient] of unreadable) {
    it(`strict mode refuses ${what}; lenient mode leaves that detail out`, () => {
      for (const outcome of decodeAll(usage, "strict")) {
        assert.deepStrictEqual(outcome, { error: "protocol" })
      }
      for (const outcome of decodeAll(usage, "lenient")) {
        assert.deepStrictEqual(outcome, { usage: lenient })
      }
    })
  }

  const detail = fc.oneof(
    { weight: 3, arbitrary: fc.nat({ max: 100_000 }) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  )
  const group = fc.oneof(
    fc.constant(null),
    fc.constant(undefined),
    fc.record({ cached_tokens: detail, audio_tokens: detail, reasoning_tokens: detail }),
  )

  prop.prop([fc.nat({ max: 100_000 }), fc.nat({ max: 100_000 }), group, group, detail])(
    "reads each detail where the server put it, and nothing where it did not",
    (input, output, prompt, completion, cacheHits) => {
      const usage = {
        prompt_tokens: input,
        completion_tokens: output,
        prompt_tokens_details: prompt,
        completion_tokens_details: completion,
        prompt_cache_hit_tokens: cacheHits,
      }
      // The oracle: each wire place, read on its own.
      const expected: { -readonly [K in keyof Completion.Usage]: Completion.Usage[K] } = {
        input,
        output,
        total: input + output,
      }
      const cached = prompt?.cached_tokens ?? cacheHits
      if (cached !== null && cached !== undefined) expected.cachedInput = cached
      if (prompt?.audio_tokens != null) expected.audioInput = prompt.audio_tokens
      if (completion?.reasoning_tokens != null) expected.reasoning = completion.reasoning_tokens
      if (completion?.audio_tokens != null) expected.audioOutput = completion.audio_tokens
      // D61: reasoning larger than the completion cannot be part of it (xAI counts it beside).
      const reasoning = expected.reasoning ?? 0
      if (reasoning > output) {
        expected.output = output + reasoning
        expected.total = input + expected.output
      }
      for (const mode of modes) {
        for (const outcome of decodeAll(JSON.parse(JSON.stringify(usage)), mode)) {
          assert.deepStrictEqual(outcome, { usage: expected })
        }
      }
    },
  )
})
