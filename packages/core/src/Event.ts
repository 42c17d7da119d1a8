/**
 * What a streamed answer gives as it arrives.
 *
 * @since 0.2.0
 * @module
 */
import type * as Completion from "./Completion.js"

/**
 * A piece of the answer's text.
 *
 * @since 0.2.0
 * @category models
 */
export interface TextDelta {
  readonly _tag: "TextDelta"
  readonly text: string
}

/**
 * A piece of the model's reasoning, with the source it came under (the wire key or carrier, such
 * as `reasoning_content`, `reasoning` or `think`).
 *
 * @since 0.2.0
 * @category models
 */
export interface ReasoningDelta {
  readonly _tag: "ReasoningDelta"
  readonly text: string
  readonly source: string
}

/**
 * A piece of a refusal.
 *
 * @since 0.2.0
 * @category models
 */
export interface RefusalDelta {
  readonly _tag: "RefusalDelta"
  readonly text: string
}

/**
 * A piece of a call: `index` tells calls apart (pieces of different calls can interleave); `id`
 * and `name` come with the first piece of a call; `arguments` is a fragment, not JSON until the
 * decoder has joined them. To execute a call, take it from the Completion.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolCallDelta {
  readonly _tag: "ToolCallDelta"
  readonly index: number
  readonly id?: string | undefined
  readonly name?: string | undefined
  readonly arguments: string
}

/**
 * Log probabilities of tokens of the answer, as the server sent them beside the text
 * (`Request.logprobs`). The Completion has them all.
 *
 * @since 0.2.0
 * @category models
 */
export interface LogprobsDelta {
  readonly _tag: "LogprobsDelta"
  readonly tokens: ReadonlyArray<Completion.TokenLogprob>
}

/**
 * The whole answer, always the last event.
 *
 * @since 0.2.0
 * @category models
 */
export interface Completed {
  readonly _tag: "Completed"
  readonly completion: Completion.Completion
}

/**
 * An event of a streamed answer.
 *
 * @since 0.2.0
 * @category models
 */
export type Event =
  | TextDelta
  | ReasoningDelta
  | RefusalDelta
  | ToolCallDelta
  | LogprobsDelta
  | Completed

/**
 * A text piece.
 *
 * @since 0.2.0
 * @category constructors
 */
export const textDelta = (text: string): TextDelta => ({ _tag: "TextDelta", text })

/**
 * A reasoning piece, by default from the `reasoning` source.
 *
 * @since 0.2.0
 * @category constructors
 */
export const reasoningDelta = (text: string, source = "reasoning"): ReasoningDelta => ({
  _tag: "ReasoningDelta",
  text,
  source,
})

/**
 * A refusal piece.
 *
 * @since 0.2.0
 * @category constructors
 */
export const refusalDelta = (text: string): RefusalDelta => ({ _tag: "RefusalDelta", text })

/**
 * A piece of a call.
 *
 * @since 0.2.0
 * @category constructors
 */
export const toolCallDelta = (piece: Omit<ToolCallDelta, "_tag">): ToolCallDelta => ({
  _tag: "ToolCallDelta",
  ...piece,
})

/**
 * Log probabilities of some tokens.
 *
 * @since 0.2.0
 * @category constructors
 */
export const logprobsDelta = (tokens: ReadonlyArray<Completion.TokenLogprob>): LogprobsDelta => ({
  _tag: "LogprobsDelta",
  tokens,
})

/**
 * The last event, with the whole answer.
 *
 * @since 0.2.0
 * @category constructors
 */
export const completed = (completion: Completion.Completion): Completed => ({
  _tag: "Completed",
  completion,
})
