import type { Message, Request, Tool, ToolCall, ToolResult } from "@svir/core"
import { Json, SvirError } from "@svir/core"
import { Result } from "effect"
import * as Base64 from "effect/encoding/Base64"
import type * as RequestBody from "../RequestBody.js"

const unsupported = (
  message: string,
  attachment?: string,
): Result.Result<never, SvirError.SvirError> =>
  Result.fail(SvirError.make("Unsupported", message, { attachment }))

/** D4: a failed result is marked by this prefix, added here and nowhere else. */
export const errorPrefix = "error: "

/** D5: what an empty or blank result is sent as. */
export const emptyResultContent = "(no output)"

/**
 * Writes the body of a request already checked by `Request.validate`, or gives the Unsupported
 * error of the first thing the wire cannot carry.
 */
export const encodeBody = (
  request: Request.Request,
  stream: boolean,
): Result.Result<RequestBody.RequestBody, SvirError.SvirError> => {
  const messages = encodeMessages(request)
  if (Result.isFailure(messages)) return Result.fail(messages.failure)
  const body: RequestBody.Fields = { model: request.model, messages: messages.success }
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.reasoningEffort !== undefined) body.reasoning_effort = request.reasoningEffort
  for (const tool of request.tools) {
    const deep = tooDeep(tool.inputSchema, `the input schema of the tool ${tool.name}`)
    if (deep !== undefined) return Result.fail(deep)
  }
  if (request.tools.length > 0) body.tools = request.tools.map(encodeTool)
  const choice = request.toolChoice
  switch (choice._tag) {
    case "Auto":
      break
    case "None":
      // D6: "none" with no tools offered says nothing, and some servers reject it.
      if (request.tools.length > 0) body.tool_choice = "none"
      break
    case "Required":
      body.tool_choice = "required"
      break
    case "Tool":
      body.tool_choice = { type: "function", function: { name: choice.name } }
      break
  }
  const format = request.responseFormat
  if (format?._tag === "JsonSchema") {
    const deep = tooDeep(format.schema, `the schema of the response format ${format.name}`)
    if (deep !== undefined) return Result.fail(deep)
  }
  if (format !== undefined) body.response_format = encodeResponseFormat(format)
  if (!stream) return Result.succeed(body)
  return Result.succeed({ ...body, stream: true, stream_options: { include_usage: true } })
}

/**
 * D25: a schema nested deeper than `Json.maxDepth` (or one that refers to itself) is refused
 * here, rather than making `JSON.stringify` of the body throw in the transport.
 */
const tooDeep = (schema: object, what: string): SvirError.SvirError | undefined =>
  Json.valueDepth(schema, Json.maxDepth) > Json.maxDepth
    ? SvirError.make(
        "Unsupported",
        `${what} nests deeper than ${Json.maxDepth} levels, or refers to itself`,
      )
    : undefined

const encodeTool = (tool: Tool.Tool): RequestBody.FunctionTool => {
  // A tool with no schema, or `{}`, is sent as an object with no properties.
  const parameters =
    Object.keys(tool.inputSchema).length === 0
      ? { type: "object", properties: {} }
      : tool.inputSchema
  return {
    type: "function",
    function: {
      name: tool.name,
      ...(tool.description !== "" && { description: tool.description }),
      parameters,
      ...(tool.strict === true && { strict: true }),
    },
  }
}

const encodeResponseFormat = (
  format: NonNullable<Request.Request["responseFormat"]>,
): RequestBody.ResponseFormatParam => {
  switch (format._tag) {
    case "Text":
      return { type: "text" }
    case "Json":
      return { type: "json_object" }
    case "JsonSchema": {
      const jsonSchema: Extract<
        RequestBody.ResponseFormatParam,
        { type: "json_schema" }
      >["json_schema"] = { name: format.name, schema: format.schema }
      if (format.description !== undefined) jsonSchema.description = format.description
      if (format.strict !== undefined) jsonSchema.strict = format.strict
      return { type: "json_schema", json_schema: jsonSchema }
    }
  }
}

const encodeMessages = (
  request: Request.Request,
): Result.Result<Array<RequestBody.ChatMessage>, SvirError.SvirError> => {
  const out: Array<RequestBody.ChatMessage> = []
  if (request.system !== undefined) out.push({ role: "system", content: request.system })
  const messages = request.messages
  let i = 0
  while (i < messages.length) {
    const message = messages[i]!
    switch (message._tag) {
      case "User": {
        const user = encodeUser(message)
        if (Result.isFailure(user)) return Result.fail(user.failure)
        out.push(user.success)
        i++
        break
      }
      case "Assistant": {
        out.push(encodeAssistant(message))
        i++
        // The results of this turn's calls follow it, in the order of the calls.
        let end = i
        while (end < messages.length && messages[end]!._tag === "Tool") end++
        if (message.calls.length === 0 && end === i) break
        const results = encodeResults(message.calls, messages.slice(i, end) as Array<Message.Tool>)
        if (Result.isFailure(results)) return Result.fail(results.failure)
        for (const result of results.success) out.push(result)
        i = end
        break
      }
      case "Tool":
        return unsupported(
          `the result for call ${message.result.callId} does not follow an assistant turn that made the call`,
        )
    }
  }
  return Result.succeed(out)
}

const encodeAssistant = (message: Message.Assistant): RequestBody.AssistantMessage => {
  // D2: content is "" rather than null when the turn had no text (LM Studio rejects null).
  // D7: reasoning is not sent back; Chat Completions has no field for it.
  if (message.calls.length === 0) return { role: "assistant", content: message.text }
  return {
    role: "assistant",
    content: message.text,
    tool_calls: message.calls.map(encodeCall),
  }
}

const encodeCall = (call: ToolCall.ToolCall): RequestBody.ToolCallParam => ({
  id: call.id,
  type: "function",
  // D3: empty or blank arguments are sent as "{}": templates parse them as JSON.
  function: { name: call.name, arguments: isBlank(call.arguments) ? "{}" : call.arguments },
})

/**
 * Puts the results in the order of the calls (D8). Each call takes the first result not yet taken
 * with its id, so calls that share an id (Kimi, Gemini) are answered in order.
 */
const encodeResults = (
  calls: ReadonlyArray<ToolCall.ToolCall>,
  results: ReadonlyArray<Message.Tool>,
): Result.Result<Array<RequestBody.ToolMessage>, SvirError.SvirError> => {
  const taken = new Array<boolean>(results.length).fill(false)
  const out: Array<RequestBody.ToolMessage> = []
  for (const call of calls) {
    let found = -1
    for (let j = 0; j < results.length; j++) {
      if (!taken[j] && results[j]!.result.callId === call.id) {
        found = j
        break
      }
    }
    if (found === -1) {
      return unsupported(
        `call ${call.id} (${call.name}) has no result after the assistant turn that made it; every call needs one`,
      )
    }
    taken[found] = true
    const message = encodeResult(results[found]!.result)
    if (Result.isFailure(message)) return Result.fail(message.failure)
    out.push(message.success)
  }
  const extra = taken.indexOf(false)
  if (extra !== -1) {
    return unsupported(
      `the result for call ${results[extra]!.result.callId} answers no call of the assistant turn before it`,
    )
  }
  return Result.succeed(out)
}

const encodeResult = (
  result: ToolResult.ToolResult,
): Result.Result<RequestBody.ToolMessage, SvirError.SvirError> => {
  const text = isBlank(result.content) ? emptyResultContent : result.content
  const content = result.isError ? errorPrefix + text : text
  const attachments = result.attachments
  if (attachments === undefined || attachments.length === 0) {
    return Result.succeed({ role: "tool", tool_call_id: result.callId, content })
  }
  const parts: Array<RequestBody.TextContentPart> = [{ type: "text", text: content }]
  for (const attachment of attachments) {
    if (attachment._tag === "Image") {
      return unsupported(
        `the result for call ${result.callId} carries an image; a Chat Completions tool message carries only text`,
      )
    }
    const encoded = encodeFile(attachment, `the result for call ${result.callId}`)
    if (Result.isFailure(encoded)) return Result.fail(encoded.failure)
    const part = encoded.success
    if (part.type === "image_url") {
      return unsupported(
        `the result for call ${result.callId} carries the image file ${attachment.name}; a Chat Completions tool message carries only text`,
        attachment.name,
      )
    }
    parts.push(part)
  }
  return Result.succeed({ role: "tool", tool_call_id: result.callId, content: parts })
}

const encodeUser = (
  message: Message.User,
): Result.Result<RequestBody.UserMessage, SvirError.SvirError> => {
  const parts = message.parts
  if (parts.length === 0) {
    return unsupported("a user turn has no parts; servers reject a user message with no content")
  }
  if (parts.length === 1 && parts[0]!._tag === "Text") {
    return Result.succeed({ role: "user", content: parts[0]!.text })
  }
  const content: Array<RequestBody.TextContentPart | RequestBody.ImageContentPart> = []
  for (const part of parts) {
    switch (part._tag) {
      case "Text":
        content.push({ type: "text", text: part.text })
        break
      case "Image":
        content.push({ type: "image_url", image_url: { url: imageUrl(part) } })
        break
      case "File": {
        const encoded = encodeFile(part, "a user turn")
        if (Result.isFailure(encoded)) return Result.fail(encoded.failure)
        content.push(encoded.success)
        break
      }
    }
  }
  return Result.succeed({ role: "user", content })
}

const imageUrl = (image: Message.ImagePart): string =>
  "url" in image ? image.url : `data:${image.mediaType};base64,${Base64.encode(image.data)}`

const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * D9: a text file is a text part that names the file; an image file is an image part; any other
 * file is Unsupported, because Chat Completions has no portable part for it.
 */
const encodeFile = (
  file: Message.FilePart,
  where: string,
): Result.Result<
  RequestBody.TextContentPart | RequestBody.ImageContentPart,
  SvirError.SvirError
> => {
  if (file.mediaType.startsWith("image/") && typeof file.data !== "string") {
    return Result.succeed({
      type: "image_url",
      image_url: { url: `data:${file.mediaType};base64,${Base64.encode(file.data)}` },
    })
  }
  let text: string
  if (typeof file.data === "string") {
    text = file.data
  } else {
    if (!isTextMediaType(file.mediaType)) {
      return unsupported(
        `${where} carries the file ${file.name} (${file.mediaType}), which is not text; Chat Completions carries text files and images only`,
        file.name,
      )
    }
    try {
      text = strictUtf8.decode(file.data)
    } catch {
      return unsupported(
        `${where} carries the file ${file.name}, which is not valid UTF-8 text`,
        file.name,
      )
    }
  }
  return Result.succeed({
    type: "text",
    text: `<file name="${escapeName(file.name)}">\n${text}\n</file>`,
  })
}

const textMediaTypes = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/typescript",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/sql",
  "application/x-sh",
  "application/csv",
  "application/ndjson",
  "application/x-ndjson",
])

const isTextMediaType = (mediaType: string): boolean => {
  const base = mediaType.split(";")[0]!.trim().toLowerCase()
  return (
    base.startsWith("text/") ||
    base.endsWith("+json") ||
    base.endsWith("+xml") ||
    textMediaTypes.has(base)
  )
}

const escapeName = (name: string): string =>
  name.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;")

const isBlank = (text: string): boolean => text.trim() === ""
