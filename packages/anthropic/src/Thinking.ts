/**
 * Claude's thinking, as the Messages API gives it and wants it back: `thinking` blocks with their
 * `signature`, and `redacted_thinking` blocks with their encrypted `data`. The API checks the
 * blocks of the last assistant turn of a tool-calling exchange against their signatures, so they
 * must go back exactly as they came, in their order (DECISIONS.md D9).
 *
 * Core's `Completion.Reasoning` holds a source and a text, and no signature yet. Until it does,
 * this codec's answers carry the blocks on their reasoning entry of source `thinking`, in a
 * `blocks` field beside `source` and `text`; `Message.assistant` keeps that entry as it is, so
 * the encoder finds the blocks again. {@link blocks} reads them; {@link reasoning} makes such an
 * entry, for a conversation kept elsewhere and read back.
 *
 * @since 0.2.0
 */
import type { Completion } from "@svir/core"

/**
 * The reasoning source of Claude's thinking.
 *
 * @since 0.2.0
 * @category constants
 */
export const source = "thinking"

/**
 * A block of thinking, exactly as the API sent it.
 *
 * @since 0.2.0
 * @category models
 */
export type Block =
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }
  | { readonly type: "redacted_thinking"; readonly data: string }

/**
 * The reasoning entry of source `thinking` that this codec's answers carry: the thinking text
 * joined, and the blocks to send back.
 *
 * @since 0.2.0
 * @category models
 */
export interface Reasoning extends Completion.Reasoning {
  readonly blocks: ReadonlyArray<Block>
}

const isBlock = (value: unknown): value is Block => {
  if (typeof value !== "object" || value === null) return false
  const block = value as { readonly [key: string]: unknown }
  if (block.type === "thinking") {
    return typeof block.thinking === "string" && typeof block.signature === "string"
  }
  return block.type === "redacted_thinking" && typeof block.data === "string"
}

/**
 * The thinking blocks an answer or an assistant turn carries, in order; none for reasoning from
 * another wire.
 *
 * @example
 * ```ts
 * import { Completion } from "@svir/core"
 * import { Thinking } from "@svir/anthropic"
 *
 * const completion = Completion.make({
 *   finish: "stop",
 *   reasoning: "2 + 2 = 4",
 *   reasoningBySource: [
 *     Thinking.reasoning([{ type: "thinking", thinking: "2 + 2 = 4", signature: "EqQB..." }]),
 *   ],
 * })
 * Thinking.blocks(completion) // [{ type: "thinking", thinking: "2 + 2 = 4", signature: "EqQB..." }]
 * ```
 *
 * @since 0.2.0
 * @category accessors
 */
export const blocks = (turn: {
  readonly reasoningBySource: ReadonlyArray<Completion.Reasoning>
}): ReadonlyArray<Block> => {
  for (const entry of turn.reasoningBySource) {
    if (entry.source !== source) continue
    const carried = (entry as { readonly blocks?: unknown }).blocks
    if (Array.isArray(carried) && carried.every(isBlock)) return carried
  }
  return []
}

/**
 * The reasoning entry for some thinking blocks: source `thinking`, the text of the `thinking`
 * blocks joined, and the blocks.
 *
 * @example
 * ```ts
 * import { Thinking } from "@svir/anthropic"
 *
 * Thinking.reasoning([{ type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix..." }]).text // ""
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const reasoning = (thinkingBlocks: ReadonlyArray<Block>): Reasoning => {
  let text = ""
  for (const block of thinkingBlocks) if (block.type === "thinking") text += block.thinking
  return { source, text, blocks: thinkingBlocks }
}
