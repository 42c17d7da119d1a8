/**
 * The JSON body of `POST /v1/messages` as the encoder writes it: the part of Anthropic's
 * `MessageCreateParams` that a svir request can set. The tests check it against the official
 * `@anthropic-ai/sdk` types.
 *
 * @since 0.2.0
 */
import type * as Thinking from "./Thinking.js"

/**
 * Where an image or a document's bytes are: inline, as base64, or at a URL.
 *
 * @since 0.2.0
 * @category models
 */
export type Source =
  | { readonly type: "base64"; readonly media_type: string; readonly data: string }
  | { readonly type: "url"; readonly url: string }

/**
 * A text block.
 *
 * @since 0.2.0
 * @category models
 */
export interface TextBlock {
  readonly type: "text"
  readonly text: string
}

/**
 * An image block.
 *
 * @since 0.2.0
 * @category models
 */
export interface ImageBlock {
  readonly type: "image"
  readonly source: Source
}

/**
 * A document block: a PDF (base64 or URL), or plain text, with the file's name as its title.
 *
 * @since 0.2.0
 * @category models
 */
export interface DocumentBlock {
  readonly type: "document"
  readonly source:
    | Source
    | { readonly type: "text"; readonly media_type: "text/plain"; readonly data: string }
  readonly title?: string
}

/**
 * A call the model made, sent back in its assistant turn.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolUseBlock {
  readonly type: "tool_use"
  readonly id: string
  readonly name: string
  readonly input: { readonly [key: string]: unknown }
}

/**
 * The answer to one call, in the user turn after the call.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolResultBlock {
  readonly type: "tool_result"
  readonly tool_use_id: string
  readonly content?: string | ReadonlyArray<TextBlock | ImageBlock | DocumentBlock>
  readonly is_error?: true
}

/**
 * A block of a user turn.
 *
 * @since 0.2.0
 * @category models
 */
export type UserBlock = TextBlock | ImageBlock | DocumentBlock | ToolResultBlock

/**
 * A block of an assistant turn.
 *
 * @since 0.2.0
 * @category models
 */
export type AssistantBlock = Thinking.Block | TextBlock | ToolUseBlock

/**
 * One turn.
 *
 * @since 0.2.0
 * @category models
 */
export type MessageParam =
  | { readonly role: "user"; readonly content: ReadonlyArray<UserBlock> }
  | { readonly role: "assistant"; readonly content: ReadonlyArray<AssistantBlock> }

/**
 * A tool offered to the model.
 *
 * @since 0.2.0
 * @category models
 */
export interface Tool {
  readonly name: string
  readonly description?: string
  readonly input_schema: { readonly [key: string]: unknown }
  readonly strict?: boolean
}

/**
 * Whether and how the model calls tools.
 *
 * @since 0.2.0
 * @category models
 */
export type ToolChoice =
  | { readonly type: "auto"; readonly disable_parallel_tool_use?: boolean }
  | { readonly type: "any"; readonly disable_parallel_tool_use?: boolean }
  | { readonly type: "tool"; readonly name: string; readonly disable_parallel_tool_use?: boolean }
  | { readonly type: "none" }

/**
 * Extended thinking: on with a budget of tokens, or off.
 *
 * @since 0.2.0
 * @category models
 */
export type ThinkingConfig =
  | { readonly type: "enabled"; readonly budget_tokens: number }
  | { readonly type: "disabled" }

/**
 * The fields the encoder writes, as it builds them.
 *
 * @since 0.2.0
 * @category models
 */
export type Fields = {
  model: string
  max_tokens: number
  system?: string
  messages: Array<MessageParam>
  tools?: Array<Tool>
  tool_choice?: ToolChoice
  temperature?: number
  top_p?: number
  top_k?: number
  stop_sequences?: Array<string>
  metadata?: { readonly user_id: string }
  thinking?: ThinkingConfig
  output_config?: {
    readonly format: {
      readonly type: "json_schema"
      readonly schema: { readonly [key: string]: unknown }
    }
  }
  service_tier?: "auto" | "standard_only"
}

/**
 * The body, with `stream` when the answer is streamed, and any field of `Request.extra`.
 *
 * @since 0.2.0
 * @category models
 */
export type RequestBody = Fields & {
  stream?: true
  readonly [extra: string]: unknown
}
