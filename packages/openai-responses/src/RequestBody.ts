/**
 * The JSON body of `POST /v1/responses` as the encoder writes it: the part of OpenAI's
 * `ResponseCreateParams` (the Open Responses `CreateResponseBody`) that a svir request can set.
 * The tests check every body against the Open Responses specification's schema.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const body: RequestBody.RequestBody = {
 *   model: "gpt-5",
 *   instructions: "Be brief.",
 *   store: false,
 *   include: ["reasoning.encrypted_content"],
 *   input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] }],
 * }
 * ```
 *
 * @since 0.2.0
 */
import type * as Reasoning from "./Reasoning.js"

/**
 * A piece of text given to the model.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const part: RequestBody.InputText = { type: "input_text", text: "What is in this image?" }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface InputText {
  readonly type: "input_text"
  readonly text: string
}

/**
 * An image given to the model: a URL, or the bytes as a `data:` URL. `detail` is always sent,
 * at the API's default `auto` (DECISIONS.md D2).
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const image: RequestBody.InputImage = {
 *   type: "input_image",
 *   image_url: "https://example.com/receipt.jpg",
 *   detail: "auto",
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface InputImage {
  readonly type: "input_image"
  readonly image_url: string
  readonly detail: "auto"
}

/**
 * A file given to the model: a PDF, by its name and its bytes as a base64 `data:` URL.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const file: RequestBody.InputFile = {
 *   type: "input_file",
 *   filename: "report.pdf",
 *   file_data: "data:application/pdf;base64,JVBERg==",
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface InputFile {
  readonly type: "input_file"
  readonly filename: string
  readonly file_data: string
}

/**
 * A part of a user message, or of a tool's output.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const parts: ReadonlyArray<RequestBody.InputContent> = [{ type: "input_text", text: "Hi" }]
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type InputContent = InputText | InputImage | InputFile

/**
 * A user turn: its parts in the order given.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const turn: RequestBody.UserMessage = {
 *   type: "message",
 *   role: "user",
 *   content: [{ type: "input_text", text: "Hi" }],
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface UserMessage {
  readonly type: "message"
  readonly role: "user"
  readonly content: ReadonlyArray<InputContent>
}

/**
 * The text of an earlier answer, sent back as an output message item.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const turn: RequestBody.AssistantMessage = {
 *   type: "message",
 *   role: "assistant",
 *   content: [{ type: "output_text", text: "Paris." }],
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface AssistantMessage {
  readonly type: "message"
  readonly role: "assistant"
  readonly content: ReadonlyArray<{ readonly type: "output_text"; readonly text: string }>
}

/**
 * A call the model made, sent back: its `call_id`, the tool's name, and the arguments as the
 * JSON text the model wrote (`"{}"` when it wrote none).
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const call: RequestBody.FunctionCall = {
 *   type: "function_call",
 *   call_id: "call_1",
 *   name: "weather",
 *   arguments: '{"city":"Paris"}',
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface FunctionCall {
  readonly type: "function_call"
  readonly call_id: string
  readonly name: string
  readonly arguments: string
}

/**
 * The answer to one call: a text, or parts when the result has attachments. A failed result's
 * text starts with `error: ` (DECISIONS.md D3).
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const output: RequestBody.FunctionCallOutput = {
 *   type: "function_call_output",
 *   call_id: "call_1",
 *   output: "18°C",
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface FunctionCallOutput {
  readonly type: "function_call_output"
  readonly call_id: string
  readonly output: string | ReadonlyArray<InputContent>
}

/**
 * An item of `input`: a turn, a call, a call's output, or a reasoning item sent back exactly as
 * it came (DECISIONS.md D9).
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const items: ReadonlyArray<RequestBody.InputItem> = [
 *   { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA..." },
 *   { type: "function_call", call_id: "call_1", name: "now", arguments: "{}" },
 *   { type: "function_call_output", call_id: "call_1", output: "12:00" },
 * ]
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type InputItem =
  | UserMessage
  | AssistantMessage
  | FunctionCall
  | FunctionCallOutput
  | Reasoning.Item

/**
 * A function the model may call. `strict` is always sent: the API's default is `true`, and a
 * tool is strict only when it says so (DECISIONS.md D5).
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const tool: RequestBody.FunctionTool = {
 *   type: "function",
 *   name: "now",
 *   description: "The current time, UTC.",
 *   parameters: { type: "object", properties: {} },
 *   strict: false,
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface FunctionTool {
  readonly type: "function"
  readonly name: string
  readonly description?: string
  readonly parameters: { readonly [key: string]: unknown }
  readonly strict: boolean
}

/**
 * Whether and how the model calls tools.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const choice: RequestBody.ToolChoice = { type: "function", name: "weather" }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type ToolChoice = "none" | "required" | { readonly type: "function"; readonly name: string }

/**
 * The form of the answer's text: any JSON object, or JSON that fits a schema.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const format: RequestBody.TextFormat = {
 *   type: "json_schema",
 *   name: "city",
 *   schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
 *   strict: true,
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type TextFormat =
  | { readonly type: "json_object" }
  | {
      readonly type: "json_schema"
      readonly name: string
      readonly schema: { readonly [key: string]: unknown }
      readonly description?: string
      readonly strict?: boolean
    }

/**
 * The text options: its format and its verbosity.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const text: RequestBody.TextConfig = { format: { type: "json_object" }, verbosity: "low" }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface TextConfig {
  readonly format?: TextFormat
  readonly verbosity?: "low" | "medium" | "high"
}

/**
 * How a reasoning model reasons: its effort, and whether the answer carries summaries.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const reasoning: RequestBody.ReasoningConfig = { effort: "low", summary: "auto" }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface ReasoningConfig {
  readonly effort?: "none" | "minimal" | "low" | "medium" | "high"
  readonly summary?: "auto" | "concise" | "detailed"
}

/**
 * What the answer should include beyond its output: the reasoning items' encrypted content, the
 * log probabilities of the text.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const include: ReadonlyArray<RequestBody.Includable> = ["reasoning.encrypted_content"]
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type Includable = "reasoning.encrypted_content" | "message.output_text.logprobs"

/**
 * The service tiers OpenAI's API takes (`auto`, `default`, `flex` and `priority` are the Open
 * Responses specification's).
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const tier: RequestBody.ServiceTier = "flex"
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type ServiceTier = "auto" | "default" | "flex" | "scale" | "priority" | "fast" | "ultrafast"

/**
 * The fields the encoder writes, as it builds them. `input` comes last, so that a log line that
 * cuts the body still shows the settings.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const fields: RequestBody.Fields = { model: "gpt-5", store: false, input: [] }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type Fields = {
  model: string
  instructions?: string
  tools?: Array<FunctionTool>
  tool_choice?: ToolChoice
  parallel_tool_calls?: boolean
  max_output_tokens?: number
  temperature?: number
  top_p?: number
  reasoning?: ReasoningConfig
  text?: TextConfig
  truncation?: "auto" | "disabled"
  top_logprobs?: number
  store: boolean
  previous_response_id?: string
  include?: Array<Includable>
  metadata?: { readonly [key: string]: string }
  service_tier?: ServiceTier
  safety_identifier?: string
  prompt_cache_key?: string
  user?: string
  input: Array<InputItem>
}

/**
 * The body, with `stream` when the answer is streamed, and any field of `Request.extra`.
 *
 * @example
 * ```ts
 * import type { RequestBody } from "@svir/openai-responses"
 *
 * const body: RequestBody.RequestBody = { model: "gpt-5", store: false, input: [], stream: true }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type RequestBody = Fields & {
  stream?: true
  readonly [extra: string]: unknown
}
