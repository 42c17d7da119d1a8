/**
 * The turns of a conversation and the parts a user turn is made of.
 *
 * @since 0.1.0
 */
import type * as Completion from "./Completion.js"
import type * as Parts from "./internal/parts.js"
import type * as ToolCall from "./ToolCall.js"
import type * as ToolResult from "./ToolResult.js"

/**
 * A piece of text.
 *
 * @since 0.1.0
 * @category models
 */
export interface TextPart {
  readonly _tag: "Text"
  readonly text: string
}

/**
 * An image, by URL or as bytes with their media type.
 *
 * @since 0.1.0
 * @category models
 */
export type ImagePart = Parts.ImagePart

/**
 * A file: its name, media type and contents (text, or bytes). Which files a wire can carry is the
 * codec's to say; one it cannot carry is an Unsupported error, never dropped.
 *
 * @since 0.1.0
 * @category models
 */
export type FilePart = Parts.FilePart

/**
 * What a user turn is made of.
 *
 * @since 0.1.0
 * @category models
 */
export type Part = TextPart | ImagePart | FilePart

/**
 * A user turn.
 *
 * @since 0.1.0
 * @category models
 */
export interface User {
  readonly _tag: "User"
  readonly parts: ReadonlyArray<Part>
}

/**
 * An assistant turn: its text, its reasoning (all of it, and by source), and the calls it made
 * with their ids.
 *
 * @since 0.1.0
 * @category models
 */
export interface Assistant {
  readonly _tag: "Assistant"
  readonly text: string
  readonly reasoning: string
  readonly reasoningBySource: ReadonlyArray<Completion.Reasoning>
  readonly calls: ReadonlyArray<ToolCall.ToolCall>
}

/**
 * The answer to one call of the assistant turn before it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool {
  readonly _tag: "Tool"
  readonly result: ToolResult.ToolResult
}

/**
 * A turn of the conversation. The system prompt is the request's own field.
 *
 * @since 0.1.0
 * @category models
 */
export type Message = User | Assistant | Tool

/**
 * A text part.
 *
 * @since 0.1.0
 * @category constructors
 */
export const text = (text: string): TextPart => ({ _tag: "Text", text })

/**
 * An image by URL (`https:` or `data:`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const imageUrl = (url: string): ImagePart => ({ _tag: "Image", url })

/**
 * An image from its bytes.
 *
 * @example
 * ```ts
 * import { Message } from "@svir/core"
 *
 * const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47])
 * Message.image(png, "image/png")
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const image = (data: Uint8Array, mediaType: string): ImagePart => ({
  _tag: "Image",
  data,
  mediaType,
})

/**
 * A file. A text file is given as a string.
 *
 * @example
 * ```ts
 * import { Message } from "@svir/core"
 *
 * Message.file("notes.md", "text/markdown", "# Notes\n")
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const file = (name: string, mediaType: string, data: string | Uint8Array): FilePart => ({
  _tag: "File",
  name,
  mediaType,
  data,
})

/**
 * A user turn from text or parts.
 *
 * @since 0.1.0
 * @category constructors
 */
export const user = (content: string | ReadonlyArray<Part>): User => ({
  _tag: "User",
  parts: typeof content === "string" ? [text(content)] : content,
})

/**
 * The assistant turn of a completion, with its calls and their ids.
 *
 * @since 0.1.0
 * @category constructors
 */
export const assistant = (completion: Completion.Completion): Assistant => ({
  _tag: "Assistant",
  text: completion.text,
  reasoning: completion.reasoning,
  reasoningBySource: completion.reasoningBySource,
  calls: completion.calls,
})

/**
 * The message that carries one result.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolResult = (result: ToolResult.ToolResult): Tool => ({ _tag: "Tool", result })
