import type { Request, Tool, ToolCall, ToolResult } from "@svir/core"
import { Body, Message, SvirError } from "@svir/core"
import * as Base64 from "effect/encoding/Base64"
import * as Result from "effect/Result"
import type * as RequestBody from "../RequestBody.js"
import type * as RequestOptions from "./requestOptions.js"

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
 * D40, D48: the optional fields, which a strict server may refuse and the answer does not depend
 * on. Lean encoding leaves them out, from the request's extra fields too (D50); everything else
 * the request sets is kept.
 */
export const optionalFields: ReadonlyArray<string> = [
  "reasoning_effort",
  "service_tier",
  "user",
  "prediction",
  "stream_options",
]

/** D50: fields extra may never name, whatever the request sets: the encoder's own framing. */
const framingFields: ReadonlyArray<string> = ["model", "messages", "stream", "stream_options"]

/**
 * Writes the body of a request already checked by `Request.validate`, with the codec's options
 * already checked (D66), or gives the error of the first thing the wire cannot carry. P11 (D41):
 * the body carries what the request sets, nothing implied.
 */
export const encodeBody = (
  request: Request.Request,
  wire: RequestOptions.Checked,
  options: { readonly stream: boolean; readonly lean?: boolean | undefined },
): Result.Result<RequestBody.RequestBody, SvirError.SvirError> => {
  const lean = options.lean === true
  const messages = encodeMessages(request)
  if (Result.isFailure(messages)) return Result.fail(messages.failure)
  // The messages go last (set below): a log line that cuts the body still shows the settings.
  const body: RequestBody.Fields = { model: request.model, messages: [] }
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens
  if (request.temperature !== undefined) body.temperature = request.temperature
  writeSampling(request, wire, body)
  if (request.reasoningEffort !== undefined) body.reasoning_effort = request.reasoningEffort
  if (wire.serviceTier !== undefined) body.service_tier = wire.serviceTier
  if (wire.user !== undefined) body.user = wire.user
  if (wire.prediction !== undefined) body.prediction = { type: "content", content: wire.prediction }
  for (const tool of request.tools) {
    const deep = Body.tooDeep(tool.inputSchema, `the input schema of the tool ${tool.name}`)
    if (deep !== undefined) return Result.fail(deep)
  }
  if (request.tools.length > 0) body.tools = request.tools.map(encodeTool)
  // D40: a tool choice and a response format are requirements: kept by lean encoding too.
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
  // D49: OpenAI refuses parallel_tool_calls in a request that offers no tools.
  if (request.parallelToolCalls !== undefined && request.tools.length > 0) {
    body.parallel_tool_calls = request.parallelToolCalls
  }
  const format = request.responseFormat
  if (format?._tag === "JsonSchema") {
    const deep = Body.tooDeep(format.schema, `the schema of the response format ${format.name}`)
    if (deep !== undefined) return Result.fail(deep)
  }
  // Text is every server's default: not sent.
  if (format !== undefined && format._tag !== "Text") {
    body.response_format = encodeResponseFormat(format)
  }
  body.messages = messages.success
  const whole: RequestBody.RequestBody = options.stream
    ? {
        ...body,
        stream: true,
        ...(request.includeUsage === true && { stream_options: { include_usage: true } }),
      }
    : body
  // D50: extra fields never over a field the encoder writes, nor its framing.
  const refused = Body.addExtra(whole, request.extra, {
    framing: framingFields,
    hint: "OpenAiCodec.options",
  })
  if (refused !== undefined) return Result.fail(refused)
  // D40: the lean body is the full one without the optional fields, wherever they came from.
  if (lean) for (const field of optionalFields) Reflect.deleteProperty(whole, field)
  const admitted = admission(request, whole)
  return admitted === undefined ? Result.succeed(whole) : Result.fail(admitted)
}

/** D48: the sampling options, each under its wire name, only when set (the last three, D66). */
const writeSampling = (
  request: Request.Request,
  wire: RequestOptions.Checked,
  body: RequestBody.Fields,
): void => {
  if (request.topP !== undefined) body.top_p = request.topP
  if (request.seed !== undefined) body.seed = request.seed
  const stop = request.stop
  if (stop !== undefined) body.stop = typeof stop === "string" ? stop : [...stop]
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty
  if (wire.logitBias !== undefined) body.logit_bias = { ...wire.logitBias }
  if (wire.logprobs !== undefined) body.logprobs = wire.logprobs
  if (wire.topLogprobs !== undefined) body.top_logprobs = wire.topLogprobs
}

/**
 * D42: with a context size, a request is admitted when its body's length in UTF-8 bytes (which
 * never counts fewer than its tokens) plus `maxTokens` fits, and `maxTokens` is not 0.
 */
const admission = (
  request: Request.Request,
  body: RequestBody.RequestBody,
): SvirError.SvirError | undefined => {
  const context = request.contextTokens
  if (context !== undefined && request.maxTokens === 0) return noRoomForAnswer(context)
  return Body.admit(body, { context, reserved: request.maxTokens ?? 0 })
}

/** D42: max tokens 0 with a context size is an overflow: no room is left for the answer. */
export const noRoomForAnswer = (context: number): SvirError.SvirError =>
  SvirError.make(
    "ContextOverflow",
    `max tokens is 0, which leaves no room for the answer in the context of ${context} tokens`,
  )

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
  format: Exclude<Request.ResponseFormat, { readonly _tag: "Text" }>,
): RequestBody.ResponseFormatParam => {
  if (format._tag === "Json") return { type: "json_object" }
  const jsonSchema: Extract<
    RequestBody.ResponseFormatParam,
    { type: "json_schema" }
  >["json_schema"] = { name: format.name, schema: format.schema }
  if (format.description !== undefined) jsonSchema.description = format.description
  if (format.strict !== undefined) jsonSchema.strict = format.strict
  return { type: "json_schema", json_schema: jsonSchema }
}

const encodeMessages = (
  request: Request.Request,
): Result.Result<Array<RequestBody.ChatMessage>, SvirError.SvirError> => {
  const out: Array<RequestBody.ChatMessage> = []
  if (request.system !== undefined) out.push({ role: "system", content: request.system })
  const sendReasoning = request.sendReasoning === true
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
        out.push(encodeAssistant(message, sendReasoning))
        // D8: the results of this turn's calls follow it, in the order of the calls.
        const answers = Message.answersAt(messages, i)
        if (Result.isFailure(answers)) return Result.fail(answers.failure)
        for (const result of answers.success.results) {
          const encoded = encodeResult(result)
          if (Result.isFailure(encoded)) return Result.fail(encoded.failure)
          out.push(encoded.success)
        }
        i = answers.success.next
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

/** D7: the keys reasoning arrived under, and goes back under when asked. */
const reasoningKeys = new Set(["reasoning_content", "reasoning"])

const encodeAssistant = (
  message: Message.Assistant,
  sendReasoning: boolean,
): RequestBody.AssistantMessage => {
  // D2: content is "" rather than null when the turn had no text (LM Studio rejects null).
  const out: RequestBody.AssistantMessage = { role: "assistant", content: message.text }
  if (message.calls.length > 0) out.tool_calls = message.calls.map(encodeCall)
  if (!sendReasoning) return out
  // D7: each source under its own key; reasoning split out of <think> tags never goes back.
  for (const { source, text } of message.reasoningBySource ?? []) {
    if (text === "" || !reasoningKeys.has(source)) continue
    const key = source as "reasoning_content" | "reasoning"
    out[key] = (out[key] ?? "") + text
  }
  return out
}

const encodeCall = (call: ToolCall.ToolCall): RequestBody.ToolCallParam => ({
  id: call.id,
  type: "function",
  // D3: empty or blank arguments are sent as "{}": templates parse them as JSON.
  function: { name: call.name, arguments: isBlank(call.arguments) ? "{}" : call.arguments },
})

/** D9: a result's content and its text files, as one string; an image is Unsupported. */
const encodeResult = (
  result: ToolResult.ToolResult,
): Result.Result<RequestBody.ToolMessage, SvirError.SvirError> => {
  const text = isBlank(result.content) ? emptyResultContent : result.content
  const texts = [result.isError ? errorPrefix + text : text]
  const where = `the result for call ${result.callId}`
  for (const attachment of result.attachments ?? []) {
    const encoded = attachment._tag === "Image" ? undefined : encodeFile(attachment, where)
    if (encoded !== undefined && Result.isFailure(encoded)) return Result.fail(encoded.failure)
    if (encoded === undefined || typeof encoded.success !== "string") {
      const name = attachment._tag === "File" ? attachment.name : undefined
      return unsupported(
        `${where} carries ${name === undefined ? "an image" : `the image file ${name}`}; a Chat Completions tool message carries only text`,
        name,
      )
    }
    texts.push(encoded.success)
  }
  return Result.succeed({ role: "tool", tool_call_id: result.callId, content: texts.join("\n\n") })
}

/**
 * D9: text and text files joined into one text, in the order given, with a blank line between;
 * a plain string unless there is an image, and then that one text part and the images after it.
 */
const encodeUser = (
  message: Message.User,
): Result.Result<RequestBody.UserMessage, SvirError.SvirError> => {
  const parts = message.parts
  if (parts.length === 0) {
    return unsupported("a user turn has no parts; servers reject a user message with no content")
  }
  const texts: Array<string> = []
  const images: Array<RequestBody.ImageContentPart> = []
  for (const part of parts) {
    switch (part._tag) {
      case "Text":
        if (part.text !== "") texts.push(part.text)
        break
      case "Image":
        images.push({ type: "image_url", image_url: { url: imageUrl(part) } })
        break
      case "File": {
        const encoded = encodeFile(part, "a user turn")
        if (Result.isFailure(encoded)) return Result.fail(encoded.failure)
        if (typeof encoded.success === "string") texts.push(encoded.success)
        else images.push(encoded.success)
        break
      }
      case "FileAt":
        // The codec does no I/O: a transport reads the file first (@svir/client does).
        return unsupported(
          `the ${part.kind === "Image" ? "image" : "text file"} at ${part.path} has not been read; a codec reads no files, so resolve attachments before encoding (@svir/client does)`,
          part.path,
        )
    }
  }
  const text = texts.join("\n\n")
  if (images.length === 0) return Result.succeed({ role: "user", content: text })
  const content: Array<RequestBody.TextContentPart | RequestBody.ImageContentPart> =
    text === "" ? [] : [{ type: "text", text }]
  for (const image of images) content.push(image)
  return Result.succeed({ role: "user", content })
}

const imageUrl = (image: Message.ImagePart): string =>
  "url" in image ? image.url : dataUrl(image.mediaType, image.data)

const dataUrl = (mediaType: string, data: Uint8Array): string =>
  `data:${mediaType};base64,${Base64.encode(data)}`

const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * D9: a text file is text that names the file; an image file is an image part; any other file is
 * Unsupported, because Chat Completions has no portable part for it. A text file whose bytes are
 * not UTF-8 is an Attachment error: the file is wrong, not the wire.
 */
const encodeFile = (
  file: Message.FilePart,
  where: string,
): Result.Result<string | RequestBody.ImageContentPart, SvirError.SvirError> => {
  if (file.mediaType.startsWith("image/") && typeof file.data !== "string") {
    return Result.succeed({
      type: "image_url",
      image_url: { url: dataUrl(file.mediaType, file.data) },
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
      return Result.fail(
        SvirError.make(
          "Attachment",
          `${where} carries the text file ${file.name}, which is not valid UTF-8`,
          { attachment: file.name },
        ),
      )
    }
  }
  return Result.succeed(`<file name="${file.name.replaceAll('"', "&quot;")}">\n${text}\n</file>`)
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

const isBlank = (text: string): boolean => text.trim() === ""
