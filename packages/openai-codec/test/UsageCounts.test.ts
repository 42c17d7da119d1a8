import { assert, describe, it } from "@effect/vitest"
import { fc, it as prop } from "@fast-check/vitest"
import type { Completion } from "@svir/core"
import { Effect } from "effect"
import { OpenAiCodec } from "../src/index.js"
import { feed, inPieces } from "./support/cases.js"

type Mode = "strict" | "lenient"

/**
 * The usage is written as JSON text, not built with `JSON.stringify`: `1e400` must reach the
 * decoder as the server sent it, and `JSON.parse` reads it as Infinity.
 */
const whole = (usage: string): string =>
  `{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],"usage":${usage}}`

/** A stream whose usage comes last, in a chunk with no choice, as `include_usage` sends it. */
const streamed = (usage: string): string =>
  [
    '{"id":"chatcmpl-1","model":"m","choices":[{"index":0,"delta":{"content":"Hi"}}]}',
    '{"id":"chatcmpl-1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
    `{"id":"chatcmpl-1","model":"m","choices":[],"usage":${usage}}`,
    "[DONE]",
  ]
    .map((data) => `data: ${data}\n\n`)
    .join("")

type Outcome = { readonly usage?: Completion.Usage; readonly error?: string }

/** The usage of the answer, or the error kind, whole and streamed at three chunkings. */
const decodeAll = (usage: string, mode: Mode): ReadonlyArray<Outcome> => {
  const outcomes: Array<Outcome> = []
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

const counts = (prompt: string, completion: string, total: string) =>
  `{"prompt_tokens":${prompt},"completion_tokens":${completion},"total_tokens":${total}}`

describe("usage counts (D55)", () => {
  const badTotals = ["-1", "1e400", "-1e400", "10.5", '"10"', "9007199254740993"]
  for (const total of badTotals) {
    it(`a total_tokens of ${total}: strict mode refuses it, lenient mode adds up the counts`, () => {
      for (const outcome of decodeAll(counts("4", "6", total), "strict")) {
        assert.deepStrictEqual(outcome, { error: "protocol" })
      }
      for (const outcome of decodeAll(counts("4", "6", total), "lenient")) {
        assert.deepStrictEqual(outcome, { usage: { input: 4, output: 6, total: 10 } })
      }
    })
  }

  const badCounts: ReadonlyArray<readonly [string, string]> = [
    ["-1", "6"],
    ["4", "-1"],
    ["1.5", "6"],
    ["4", "1e400"],
    ["-1e400", "6"],
  ]
  for (const [prompt, completion] of badCounts) {
    it(`prompt_tokens ${prompt}, completion_tokens ${completion}: refused, or the usage left out`, () => {
      for (const outcome of decodeAll(counts(prompt, completion, "10"), "strict")) {
        assert.deepStrictEqual(outcome, { error: "protocol" })
      }
      for (const outcome of decodeAll(counts(prompt, completion, "10"), "lenient")) {
        assert.deepStrictEqual(outcome, {})
      }
    })
  }

  it("a sound usage, and one without a total, are read as they were", () => {
    for (const mode of ["strict", "lenient"] as const) {
      for (const outcome of decodeAll(counts("4", "6", "11"), mode)) {
        assert.deepStrictEqual(outcome, { usage: { input: 4, output: 6, total: 11 } })
      }
      for (const outcome of decodeAll('{"prompt_tokens":4,"completion_tokens":0}', mode)) {
        assert.deepStrictEqual(outcome, { usage: { input: 4, output: 0, total: 4 } })
      }
    }
  })

  /** Any number a server may write, as JSON text: whole, negative, fractional, past a double. */
  const number = fc.oneof(
    fc.nat({ max: 1_000_000 }).map(String),
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    fc
      .tuple(fc.integer({ min: -9, max: 9 }), fc.integer({ min: -400, max: 400 }))
      .map(([mantissa, exponent]) => `${mantissa}e${exponent}`),
    fc.constantFrom("1e400", "-1e400", "0", "-0", "null", '"12"', "true"),
  )
  const field = (key: string) =>
    fc.option(
      number.map((value) => `"${key}":${value}`),
      { nil: undefined },
    )
  const usageText = fc
    .tuple(
      field("prompt_tokens"),
      field("completion_tokens"),
      field("total_tokens"),
      field("cached_tokens"),
      field("reasoning_tokens"),
    )
    .map(([prompt, completion, total, cached, reasoning]) => {
      const entries = [prompt, completion, total].filter((entry) => entry !== undefined)
      if (cached !== undefined) entries.push(`"prompt_tokens_details":{${cached}}`)
      if (reasoning !== undefined) entries.push(`"completion_tokens_details":{${reasoning}}`)
      return `{${entries.join(",")}}`
    })

  const isSoundCount = (value: unknown): boolean =>
    typeof value === "number" && Number.isFinite(value) && Number.isInteger(value) && value >= 0

  prop.prop([usageText], { numRuns: 300 })(
    "whatever numbers a server sends, each count read is absent or a finite whole number of 0 or more",
    (usage) => {
      for (const mode of ["strict", "lenient"] as const) {
        for (const outcome of decodeAll(usage, mode)) {
          if (outcome.usage === undefined) continue
          for (const [key, value] of Object.entries(outcome.usage)) {
            assert.isTrue(isSoundCount(value), `${mode}: ${key} is ${value} from ${usage}`)
          }
        }
      }
    },
  )
})
