/**
 * A reasoning model's reasoning, as the Responses API gives it and wants it back: `reasoning`
 * output items, each with its `id`, its `summary` parts, its `content` (the raw reasoning text,
 * from servers that send it) and, when asked for, its `encrypted_content`. With `store: false`
 * the server keeps nothing, so the items of the turns since the last user message go back on the
 * next request exactly as they came, in their order (DECISIONS.md D9).
 *
 * Core's `Completion.Reasoning` holds a source and a text. This codec's answers carry the items
 * on their reasoning entry of source `reasoning`, in an `items` field beside `source` and `text`;
 * `Message.assistant` keeps that entry as it is, so the encoder finds the items again.
 * {@link items} reads them; {@link reasoning} makes such an entry, for a conversation kept
 * elsewhere and read back.
 *
 * @since 0.2.0
 */
import type { Completion } from "@svir/core"

/**
 * The reasoning source of this wire's reasoning items.
 *
 * @since 0.2.0
 * @category constants
 */
export const source = "reasoning"

/**
 * A text part of a reasoning item: a `summary_text` of its summary, or a `reasoning_text` of its
 * content.
 *
 * @since 0.2.0
 * @category models
 */
export interface Part {
  readonly type: string
  readonly text: string
}

/**
 * A reasoning output item, exactly as the server sent it (fields this type does not name are
 * kept too).
 *
 * @since 0.2.0
 * @category models
 */
export interface Item {
  readonly type: "reasoning"
  readonly id: string
  readonly summary: ReadonlyArray<Part>
  readonly content?: ReadonlyArray<Part> | undefined
  readonly encrypted_content?: string | null | undefined
  readonly [key: string]: unknown
}

/**
 * The reasoning entry of source `reasoning` that this codec's answers carry: the text of the
 * items' summaries and contents joined, and the items to send back.
 *
 * @since 0.2.0
 * @category models
 */
export interface Reasoning extends Completion.Reasoning {
  readonly items: ReadonlyArray<Item>
}

const isPart = (value: unknown): value is Part =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Part).type === "string" &&
  typeof (value as Part).text === "string"

/**
 * Whether a value is a reasoning item this codec can send back.
 *
 * @example
 * ```ts
 * import { Reasoning } from "@svir/openai-responses"
 *
 * Reasoning.isItem({ type: "reasoning", id: "rs_1", summary: [] }) // true
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isItem = (value: unknown): value is Item => {
  if (typeof value !== "object" || value === null) return false
  const item = value as { readonly [key: string]: unknown }
  if (item.type !== "reasoning" || typeof item.id !== "string") return false
  if (!Array.isArray(item.summary) || !item.summary.every(isPart)) return false
  if (item.content !== undefined && item.content !== null) {
    if (!Array.isArray(item.content) || !item.content.every(isPart)) return false
  }
  const encrypted = item.encrypted_content
  return encrypted === undefined || encrypted === null || typeof encrypted === "string"
}

/**
 * The reasoning items an answer or an assistant turn carries, in order; none for reasoning from
 * another wire.
 *
 * @example
 * ```ts
 * import { Completion } from "@svir/core"
 * import { Reasoning } from "@svir/openai-responses"
 *
 * const completion = Completion.make({
 *   finish: "stop",
 *   reasoning: "Adding.",
 *   reasoningBySource: [
 *     Reasoning.reasoning([
 *       { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Adding." }] },
 *     ]),
 *   ],
 * })
 * Reasoning.items(completion).length // 1
 * ```
 *
 * @since 0.2.0
 * @category accessors
 */
export const items = (turn: {
  readonly reasoningBySource: ReadonlyArray<Completion.Reasoning>
}): ReadonlyArray<Item> => {
  for (const entry of turn.reasoningBySource) {
    if (entry.source !== source) continue
    const carried = (entry as { readonly items?: unknown }).items
    if (Array.isArray(carried) && carried.every(isItem)) return carried
  }
  return []
}

/**
 * The text of reasoning items: each item's summary parts, then its content parts, joined with a
 * blank line between parts, as the decoder gives it.
 *
 * @example
 * ```ts
 * import { Reasoning } from "@svir/openai-responses"
 *
 * Reasoning.textOf([
 *   { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "One." }, { type: "summary_text", text: "Two." }] },
 * ]) // "One.\n\nTwo."
 * ```
 *
 * @since 0.2.0
 * @category accessors
 */
export const textOf = (reasoningItems: ReadonlyArray<Item>): string => {
  const parts: Array<string> = []
  for (const item of reasoningItems) {
    for (const part of item.summary) parts.push(part.text)
    for (const part of item.content ?? []) parts.push(part.text)
  }
  return parts.join("\n\n")
}

/**
 * The reasoning entry for some reasoning items: source `reasoning`, their text ({@link textOf}),
 * and the items.
 *
 * @example
 * ```ts
 * import { Reasoning } from "@svir/openai-responses"
 *
 * Reasoning.reasoning([{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA..." }]).text // ""
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const reasoning = (reasoningItems: ReadonlyArray<Item>): Reasoning => ({
  source,
  text: textOf(reasoningItems),
  items: reasoningItems,
})
