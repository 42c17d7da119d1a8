/**
 * The JSON body of a Chat Completions request, as the encoder writes it. A test checks that it
 * satisfies the official `openai` package's `ChatCompletionCreateParams`.
 *
 * @since 0.2.0
 * @module
 */

/**
 * A text content part.
 *
 * @since 0.2.0
 * @category models
 */
export interface TextContentPart {
  type: "text"
  text: string
}

/**
 * An image content part: an `https:` URL or a `data:` URL.
 *
 * @since 0.2.0
 * @category models
 */
export interface ImageContentPart {
  type: "image_url"
  image_url: { url: string }
}

/**
 * The system prompt.
 *
 * @since 0.2.0
 * @category models
 */
export interface SystemMessage {
  role: "system"
  content: string
}

/**
 * A user turn: plain text, or, when it has images, one text part and then the images (D9).
 *
 * @since 0.2.0
 * @category models
 */
export interface UserMessage {
  role: "user"
  content: string | Array<TextContentPart | ImageContentPart>
}

/**
 * A call as sent back in history. `arguments` is never empty (see DECISIONS.md D3).
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolCallParam {
  id: string
  type: "function"
  function: { name: string; arguments: string }
}

/**
 * An assistant turn: its text (`""` when it had none, D2) and every call it made. With
 * `Request.sendReasoning(true)`, its reasoning goes back under the key it arrived with,
 * `reasoning_content` or `reasoning` (D7).
 *
 * @since 0.2.0
 * @category models
 */
export interface AssistantMessage {
  role: "assistant"
  content: string
  tool_calls?: Array<ToolCallParam>
  reasoning_content?: string
  reasoning?: string
}

/**
 * The result of one call: its content, and its text files after it, as one string (D9).
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolMessage {
  role: "tool"
  tool_call_id: string
  content: string
}

/**
 * A message of the body.
 *
 * @since 0.2.0
 * @category models
 */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/**
 * A tool offered to the model.
 *
 * @since 0.2.0
 * @category models
 */
export interface FunctionTool {
  type: "function"
  function: {
    name: string
    description?: string
    parameters: { [key: string]: unknown }
    strict?: boolean
  }
}

/**
 * The tool choice as sent: `"none"`, `"required"` or a named function.
 *
 * @since 0.2.0
 * @category models
 */
export type ToolChoiceParam = "none" | "required" | { type: "function"; function: { name: string } }

/**
 * The response format as sent. `{ type: "text" }` is every server's default and is not sent
 * (D41); it stays in the type, which follows the wire.
 *
 * @since 0.2.0
 * @category models
 */
export type ResponseFormatParam =
  | { type: "text" }
  | { type: "json_object" }
  | {
      type: "json_schema"
      json_schema: {
        name: string
        schema: { [key: string]: unknown }
        description?: string
        strict?: boolean
      }
    }

/**
 * Predicted output: text most of the answer is expected to repeat.
 *
 * @since 0.2.0
 * @category models
 */
export interface PredictionParam {
  type: "content"
  content: string
}

/**
 * The fields every body has, streamed or not. Optional fields are present only when the request
 * sets them; `parallel_tool_calls` only when tools are offered too (D49). A body also carries the
 * request's extra fields (`Request.extra`), which this type does not name (D50).
 *
 * @since 0.2.0
 * @category models
 */
export interface Fields {
  model: string
  messages: Array<ChatMessage>
  max_tokens?: number
  temperature?: number
  /** @since 0.2.0 */
  top_p?: number
  /** @since 0.2.0 */
  seed?: number
  /** @since 0.2.0 */
  stop?: string | Array<string>
  /** @since 0.2.0 */
  presence_penalty?: number
  /** @since 0.2.0 */
  frequency_penalty?: number
  /** Bias by token id, written in decimal (`OpenAiCodec.options({ logitBias })`). @since 0.2.0 */
  logit_bias?: { [token: string]: number }
  /** `OpenAiCodec.options({ logprobs })`. @since 0.2.0 */
  logprobs?: boolean
  /** `OpenAiCodec.options({ topLogprobs })`. @since 0.2.0 */
  top_logprobs?: number
  reasoning_effort?: "none" | "minimal" | "low" | "medium" | "high"
  /** `OpenAiCodec.options({ serviceTier })`. @since 0.2.0 */
  service_tier?: "auto" | "default" | "flex" | "scale" | "priority" | "fast"
  /** The end user's id (`OpenAiCodec.options({ user })`). @since 0.2.0 */
  user?: string
  /** `OpenAiCodec.options({ prediction })`. @since 0.2.0 */
  prediction?: PredictionParam
  tools?: Array<FunctionTool>
  tool_choice?: ToolChoiceParam
  /** @since 0.2.0 */
  parallel_tool_calls?: boolean
  response_format?: ResponseFormatParam
}

/**
 * The body of a streamed request. `stream_options` asks for the usage in the last chunk, only
 * when the request sets `includeUsage` to `true` (D41), and is left out by lean encoding (D40).
 *
 * @since 0.2.0
 * @category models
 */
export interface Streaming extends Fields {
  stream: true
  stream_options?: { include_usage: boolean }
}

/**
 * The body of a request answered whole.
 *
 * @since 0.2.0
 * @category models
 */
export interface NonStreaming extends Fields {
  stream?: never
}

/**
 * The body of a Chat Completions request.
 *
 * @since 0.2.0
 * @category models
 */
export type RequestBody = Streaming | NonStreaming
