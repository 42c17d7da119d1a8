/**
 * A whole answer of the model.
 *
 * @since 0.2.0
 * @module
 */
import type * as ToolCall from "./ToolCall.js"

/**
 * Why the model stopped: `stop` (it finished), `tool_calls` (it called tools), `length` (the
 * output limit cut it off), `content_filter` (a filter stopped it), `refusal` (it refused).
 *
 * @since 0.2.0
 * @category models
 */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "refusal"

/**
 * Tokens counted by the server. The details are present only where the server reported them:
 * `cachedInput` and `audioInput` are part of `input`; `reasoning` and `audioOutput` are part of
 * `output`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Usage {
  readonly input: number
  readonly output: number
  readonly total: number
  /** Input tokens the server read from its prompt cache. @since 0.2.0 */
  readonly cachedInput?: number | undefined
  readonly reasoning?: number | undefined
  /** Input tokens of audio. @since 0.2.0 */
  readonly audioInput?: number | undefined
  /** Output tokens of audio. @since 0.2.0 */
  readonly audioOutput?: number | undefined
}

const usageDetails = ["cachedInput", "reasoning", "audioInput", "audioOutput"] as const

/**
 * Sums two usages field by field, as a loop does over its turns. A detail is absent only when it
 * is absent in both; where one side lacks it, it counts as 0.
 *
 * @example
 * ```ts
 * import { Completion } from "@svir/core"
 *
 * const first = { input: 100, output: 20, total: 120, cachedInput: 64 }
 * const second = { input: 130, output: 10, total: 140, reasoning: 4 }
 * Completion.addUsage(first, second) // { input: 230, output: 30, total: 260, cachedInput: 64, reasoning: 4 }
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const addUsage = (a: Usage, b: Usage): Usage => {
  const sum: { -readonly [K in keyof Usage]: Usage[K] } = {
    input: a.input + b.input,
    output: a.output + b.output,
    total: a.total + b.total,
  }
  for (const detail of usageDetails) {
    const x = a[detail]
    const y = b[detail]
    if (x !== undefined || y !== undefined) sum[detail] = (x ?? 0) + (y ?? 0)
  }
  return sum
}

/**
 * The reasoning that came under one source: the wire key or carrier it arrived with, such as
 * `reasoning_content`, `reasoning` or `think` (tags in the text), and its text joined.
 *
 * @since 0.2.0
 * @category models
 */
export interface Reasoning {
  readonly source: string
  readonly text: string
}

/**
 * One of the likeliest tokens at a position of the answer: its text, its log probability, and its
 * UTF-8 bytes where the server gave them (a token can be part of a character).
 *
 * @since 0.2.0
 * @category models
 */
export interface TopLogprob {
  readonly token: string
  readonly logprob: number
  readonly bytes?: ReadonlyArray<number> | undefined
}

/**
 * A token of the answer with its log probability, and the likeliest tokens at its position (as
 * many as `Request.topLogprobs` asked for; none when it did not).
 *
 * @since 0.2.0
 * @category models
 */
export interface TokenLogprob extends TopLogprob {
  readonly topLogprobs: ReadonlyArray<TopLogprob>
}

/**
 * A whole answer: its text, reasoning and refusal, the calls to execute, why it finished, the
 * usage, and the server's id and model name where it gave them. Calls are executable only from a
 * Completion.
 *
 * @since 0.2.0
 * @category models
 */
export interface Completion {
  readonly id?: string | undefined
  readonly model?: string | undefined
  readonly text: string
  /** All reasoning, joined in the order it arrived. */
  readonly reasoning: string
  /** The reasoning by source, one entry per source in order of first appearance. */
  readonly reasoningBySource: ReadonlyArray<Reasoning>
  readonly refusal: string
  readonly calls: ReadonlyArray<ToolCall.ToolCall>
  readonly finish: FinishReason
  readonly usage?: Usage | undefined
  /**
   * The answer's tokens with their log probabilities, where the server sent them
   * (`Request.logprobs`): the tokens of the text as the server wrote it, or of the refusal.
   *
   * @since 0.2.0
   */
  readonly logprobs?: ReadonlyArray<TokenLogprob> | undefined
  /**
   * What the decoder had to read into an answer that the server left unsaid, in a few words
   * each: a finish reason it inferred, a stream that ended without its last marker. Absent when
   * there is nothing to say.
   *
   * @since 0.2.0
   */
  readonly notes?: ReadonlyArray<string> | undefined
}

/**
 * Makes a completion; what is not given is empty.
 *
 * @example
 * ```ts
 * import { Completion } from "@svir/core"
 *
 * Completion.make({ text: "Paris.", finish: "stop" })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (fields: Partial<Completion> & Pick<Completion, "finish">): Completion => ({
  text: "",
  reasoning: "",
  reasoningBySource: [],
  refusal: "",
  calls: [],
  ...fields,
})
