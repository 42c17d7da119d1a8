/**
 * A whole answer of the model.
 *
 * @since 0.1.0
 */
import type * as ToolCall from "./ToolCall.js"

/**
 * Why the model stopped: `stop` (it finished), `tool_calls` (it called tools), `length` (the
 * output limit cut it off), `content_filter` (a filter stopped it), `refusal` (it refused).
 *
 * @since 0.1.0
 * @category models
 */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "refusal"

/**
 * Tokens counted by the server. `reasoning` is part of `output` where the server reports it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Usage {
  readonly input: number
  readonly output: number
  readonly total: number
  readonly reasoning?: number | undefined
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
 * A whole answer: its text, reasoning and refusal, the calls to execute, why it finished, the
 * usage, and the server's id and model name where it gave them. Calls are executable only from a
 * Completion.
 *
 * @since 0.1.0
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
 * @since 0.1.0
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
