/**
 * The neutral notation of a request that encoder cases (and transport tests) write: plain JSON,
 * not any codec's wire form, turned into a `@svir/core` `Request` by {@link toRequest}.
 *
 * @since 0.2.0
 * @module
 */
import {
  Completion,
  Message as CoreMessage,
  Request as CoreRequest,
  SvirError,
  Tool,
  ToolCall,
  ToolChoice,
  ToolResult,
} from "@svir/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { hexBytes, isHex } from "./internal/hex.js"

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * One part of a message: `{text}`, `{image: key}` or `{file: key}` (an attachment by its key),
 * `{reasoning: {source, text}}`, `{tool_call: {id, name, arguments}}`, or
 * `{tool_result: {call_id, content, is_error?}}`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Part = Schema.Union([
  Schema.Struct({ text: Schema.String }),
  Schema.Struct({ image: Schema.NonEmptyString }),
  Schema.Struct({ file: Schema.NonEmptyString }),
  Schema.Struct({ reasoning: Schema.Struct({ source: Schema.String, text: Schema.String }) }),
  Schema.Struct({
    tool_call: Schema.Struct({ id: Schema.String, name: Schema.String, arguments: Schema.String }),
  }),
  Schema.Struct({
    tool_result: Schema.Struct({
      call_id: Schema.String,
      content: Schema.String,
      is_error: Schema.optionalKey(Schema.Boolean),
    }),
  }),
])

/**
 * @since 0.2.0
 * @category models
 */
export type Part = typeof Part.Type

/**
 * A turn: its `role` (`system`, `user`, `assistant` or `tool`) and its parts.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Message = Schema.Struct({
  role: Schema.Literals(["system", "user", "assistant", "tool"]),
  parts: Schema.Array(Part),
})

/**
 * @since 0.2.0
 * @category models
 */
export type Message = typeof Message.Type

/**
 * A tool offered to the model.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ToolDescriptor = Schema.Struct({
  name: Schema.String,
  description: Schema.optionalKey(Schema.String),
  input_schema: Schema.optionalKey(JsonObject),
})

/**
 * `auto`, `none`, `required`, or `{"tool": name}`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ToolChoiceNotation = Schema.Union([
  Schema.Literals(["auto", "none", "required"]),
  Schema.Struct({ tool: Schema.String }),
])

/**
 * `text`, `json`, or `{"schema": {name, schema, strict?}}`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ResponseFormatNotation = Schema.Union([
  Schema.Literals(["text", "json"]),
  Schema.Struct({
    schema: Schema.Struct({
      name: Schema.String,
      schema: JsonObject,
      strict: Schema.optionalKey(Schema.Boolean),
    }),
  }),
])

const allowedParts: Record<Message["role"], ReadonlyArray<string>> = {
  system: ["text"],
  user: ["text", "image", "file"],
  assistant: ["text", "reasoning", "tool_call"],
  tool: ["tool_result"],
}

const partKind = (part: Part): string => Object.keys(part)[0] ?? ""

/** What core's Request cannot hold: a part in a role that has no such part, a second system prompt. */
const requestProblem = (request: {
  readonly system?: string | undefined
  readonly messages: ReadonlyArray<Message>
}) => {
  for (const [i, message] of request.messages.entries()) {
    const wrong = message.parts.findIndex(
      (part) => !allowedParts[message.role].includes(partKind(part)),
    )
    if (wrong !== -1) {
      return {
        path: ["messages", i, "parts", wrong],
        issue: `the ${message.role} role has no ${partKind(message.parts[wrong]!)} part (it takes ${allowedParts[message.role].join(", ")})`,
      }
    }
    if (message.role === "system" && (i > 0 || request.system !== undefined)) {
      return {
        path: ["messages", i],
        issue: "a system turn must come first, and only when the request has no system field",
      }
    }
  }
  return undefined
}

/**
 * A request: `model` and `messages`, and each optional field only where the request sets it.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Request = Schema.Struct({
  model: Schema.String,
  system: Schema.optionalKey(Schema.String),
  max_tokens: Schema.optionalKey(Schema.Number),
  temperature: Schema.optionalKey(Schema.Number),
  reasoning_effort: Schema.optionalKey(
    Schema.Literals(["none", "minimal", "low", "medium", "high"]),
  ),
  include_usage: Schema.optionalKey(Schema.Boolean),
  tools: Schema.optionalKey(Schema.Array(ToolDescriptor)),
  tool_choice: Schema.optionalKey(ToolChoiceNotation),
  response_format: Schema.optionalKey(ResponseFormatNotation),
  messages: Schema.Array(Message),
}).check(Schema.makeFilter(requestProblem))

/**
 * @since 0.2.0
 * @category models
 */
export type Request = typeof Request.Type

/**
 * An attachment a part names by its key: an image (`media_type`) or a file (`name`), its content
 * as `hex` bytes or as `text`, and what the caller declared of it: `declared_size` (bytes) and,
 * for a file, `escaped_len` (its length once escaped into a JSON string).
 *
 * @since 0.2.0
 * @category schemas
 */
export const Attachment = Schema.Struct({
  media_type: Schema.optionalKey(Schema.NonEmptyString),
  name: Schema.optionalKey(Schema.NonEmptyString),
  hex: Schema.optionalKey(
    Schema.String.check(Schema.makeFilter(isHex, { message: "hex must be pairs of hex digits" })),
  ),
  text: Schema.optionalKey(Schema.String),
  declared_size: Schema.optionalKey(NonNegativeInt),
  escaped_len: Schema.optionalKey(NonNegativeInt),
}).check(
  Schema.makeFilter((attachment) => {
    if ((attachment.media_type === undefined) === (attachment.name === undefined)) {
      return "an attachment has exactly one of media_type (an image) and name (a file)"
    }
    if ((attachment.hex === undefined) === (attachment.text === undefined)) {
      return "an attachment has exactly one of hex and text"
    }
    if (attachment.escaped_len !== undefined && attachment.name === undefined) {
      return { path: ["escaped_len"], issue: "escaped_len is for a file" }
    }
    return undefined
  }),
)

/**
 * @since 0.2.0
 * @category models
 */
export type Attachment = typeof Attachment.Type

/**
 * Turns an attachment into the part a message carries, given the attachment's key.
 *
 * @since 0.2.0
 * @category models
 */
export type Resolve = (
  key: string,
  attachment: Attachment,
) => Effect.Effect<CoreMessage.Part, SvirError.SvirError>

/**
 * The bytes of an attachment: its `hex`, or its `text` as UTF-8.
 *
 * @since 0.2.0
 * @category accessors
 */
export const bytesOf = (attachment: Attachment): Uint8Array => {
  if (attachment.text !== undefined) return new TextEncoder().encode(attachment.text)
  return hexBytes(attachment.hex ?? "")
}

const mediaTypes: Record<string, string> = {
  txt: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  htm: "text/html",
  json: "application/json",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
}

/**
 * The media type of a file by the extension of its name: a few text types, `text/plain` for any
 * other.
 *
 * @since 0.2.0
 * @category accessors
 */
export const mediaTypeOf = (name: string): string => {
  const dot = name.lastIndexOf(".")
  return (dot === -1 ? undefined : mediaTypes[name.slice(dot + 1).toLowerCase()]) ?? "text/plain"
}

/**
 * The attachment as a part, from memory: a file (`name`) becomes `Message.file` with its text
 * (or, given as hex, its bytes), an image (`media_type`) becomes `Message.image` with its bytes.
 * `declared_size` and `escaped_len` are not read: they describe a file on disk.
 *
 * @since 0.2.0
 * @category constructors
 */
export const inMemory: Resolve = (_key, attachment) => {
  if (attachment.name !== undefined) {
    const data = attachment.text ?? bytesOf(attachment)
    return Effect.succeed(CoreMessage.file(attachment.name, mediaTypeOf(attachment.name), data))
  }
  return Effect.succeed(CoreMessage.image(bytesOf(attachment), attachment.media_type ?? ""))
}

const toolChoice = (choice: typeof ToolChoiceNotation.Type): ToolChoice.ToolChoice => {
  if (typeof choice !== "string") return ToolChoice.tool(choice.tool)
  return choice === "auto"
    ? ToolChoice.auto
    : choice === "none"
      ? ToolChoice.none
      : ToolChoice.required
}

const responseFormat = (format: typeof ResponseFormatNotation.Type): CoreRequest.ResponseFormat => {
  if (format === "text") return { _tag: "Text" }
  if (format === "json") return { _tag: "Json" }
  const { name, schema, strict } = format.schema
  return strict === undefined
    ? { _tag: "JsonSchema", name, schema }
    : { _tag: "JsonSchema", name, schema, strict }
}

/** The reasoning of a turn by source, in order of first appearance, texts joined. */
const bySource = (
  pieces: ReadonlyArray<{ readonly source: string; readonly text: string }>,
): ReadonlyArray<Completion.Reasoning> => {
  const joined = new Map<string, string>()
  for (const { source, text } of pieces) joined.set(source, (joined.get(source) ?? "") + text)
  return [...joined].map(([source, text]) => ({ source, text }))
}

const assistantTurn = (parts: ReadonlyArray<Part>): CoreMessage.Message => {
  const reasoning = parts.flatMap((part) => ("reasoning" in part ? [part.reasoning] : []))
  return CoreMessage.assistant(
    Completion.make({
      finish: "stop",
      text: parts.flatMap((part) => ("text" in part ? [part.text] : [])).join(""),
      reasoning: reasoning.map((piece) => piece.text).join(""),
      reasoningBySource: bySource(reasoning),
      calls: parts.flatMap((part) =>
        "tool_call" in part
          ? [ToolCall.make(part.tool_call.id, part.tool_call.name, part.tool_call.arguments)]
          : [],
      ),
    }),
  )
}

const toolTurns = (parts: ReadonlyArray<Part>): ReadonlyArray<CoreMessage.Message> =>
  parts.flatMap((part) => {
    if (!("tool_result" in part)) return []
    const { call_id, content, is_error } = part.tool_result
    return [
      CoreMessage.toolResult(
        is_error === true ? ToolResult.error(call_id, content) : ToolResult.make(call_id, content),
      ),
    ]
  })

const userPart = (
  part: Part,
  attachments: Readonly<Record<string, Attachment>>,
  resolve: Resolve,
): Effect.Effect<CoreMessage.Part, SvirError.SvirError> => {
  if ("text" in part) return Effect.succeed(CoreMessage.text(part.text))
  const key = "image" in part ? part.image : "file" in part ? part.file : ""
  const attachment = attachments[key]
  return attachment === undefined
    ? Effect.fail(SvirError.make("Attachment", `no attachment ${key}`, { attachment: key }))
    : resolve(key, attachment)
}

/**
 * Turns the notation into a `@svir/core` request. `attachments` are those the parts name by key;
 * `resolve` turns each into a part ({@link inMemory} by default), and its error is the request's.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Notation } from "@svir/conformance"
 *
 * const request = Effect.runSync(
 *   Notation.toRequest({
 *     model: "m",
 *     max_tokens: 16,
 *     messages: [{ role: "user", parts: [{ text: "hi" }] }],
 *   }),
 * )
 * request.maxTokens // 16
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const toRequest = (
  notation: Request,
  attachments: Readonly<Record<string, Attachment>> = {},
  resolve: Resolve = inMemory,
): Effect.Effect<CoreRequest.Request, SvirError.SvirError> =>
  Effect.gen(function* () {
    let request = CoreRequest.make(notation.model)
    if (notation.system !== undefined) request = CoreRequest.system(request, notation.system)
    const messages: Array<CoreMessage.Message> = []
    for (const message of notation.messages) {
      const texts = message.parts.flatMap((part) => ("text" in part ? [part.text] : []))
      switch (message.role) {
        case "system":
          request = CoreRequest.system(request, texts.join(""))
          break
        case "user": {
          const parts = yield* Effect.forEach(message.parts, (part) =>
            userPart(part, attachments, resolve),
          )
          messages.push(CoreMessage.user(parts))
          break
        }
        case "assistant":
          messages.push(assistantTurn(message.parts))
          break
        case "tool":
          messages.push(...toolTurns(message.parts))
          break
      }
    }
    request = CoreRequest.messages(request, messages)
    if (notation.tools !== undefined) {
      request = CoreRequest.tools(
        request,
        notation.tools.map((tool) =>
          Tool.make(tool.name, tool.description ?? "", tool.input_schema),
        ),
      )
    }
    if (notation.tool_choice !== undefined) {
      request = CoreRequest.toolChoice(request, toolChoice(notation.tool_choice))
    }
    if (notation.response_format !== undefined) {
      request = CoreRequest.responseFormat(request, responseFormat(notation.response_format))
    }
    if (notation.max_tokens !== undefined) {
      request = CoreRequest.maxTokens(request, notation.max_tokens)
    }
    if (notation.temperature !== undefined) {
      request = CoreRequest.temperature(request, notation.temperature)
    }
    if (notation.reasoning_effort !== undefined) {
      request = CoreRequest.reasoningEffort(request, notation.reasoning_effort)
    }
    if (notation.include_usage !== undefined) {
      request = CoreRequest.includeUsage(request, notation.include_usage)
    }
    return request
  })
