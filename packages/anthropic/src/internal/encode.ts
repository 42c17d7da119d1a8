import type { Tool, ToolCall, ToolResult } from "@svir/core"
import {
  Body,
  Request as CoreRequest,
  ToolCall as CoreToolCall,
  Json,
  Message,
  type Request,
  SvirError,
} from "@svir/core"
import * as Base64 from "effect/encoding/Base64"
import * as Result from "effect/Result"
import type * as RequestBody from "../RequestBody.js"
import * as Thinking from "../Thinking.js"
import * as Options from "./options.js"
import * as WireOptions from "./wireOptions.js"

export const codecName = Options.codecName

type Encoded<A> = Result.Result<A, SvirError.SvirError>

const unsupported = (message: string, attachment?: string): Encoded<never> =>
  Result.fail(SvirError.make("Unsupported", message, { attachment }))

/**
 * D6: the optional fields, which a strict server may refuse and the answer does not depend on:
 * lean encoding leaves them out, from the request's extra fields too.
 */
export const optionalFields: ReadonlyArray<string> = ["metadata", "service_tier"]

/** D7: fields extra may never name, whatever the request sets: the encoder's own framing. */
const framingFields: ReadonlyArray<string> = ["model", "messages", "stream", "max_tokens"]

/**
 * D5: the request fields this codec handles; core's `Request.unclaimed` refuses any other one the
 * request sets (a seed, a presence or frequency penalty), never dropped. Usage is claimed: the
 * Messages API reports it in every answer, streamed or not.
 */
export const fields: ReadonlyArray<Request.Field> = [
  "system",
  "tools",
  "toolChoice",
  "maxTokens",
  "temperature",
  "responseFormat",
  "reasoningEffort",
  "includeUsage",
  "sendReasoning",
  "contextTokens",
  "topP",
  "stop",
  "parallelToolCalls",
  "extra",
]

const claimed: ReadonlySet<Request.Field> = new Set(fields)

/**
 * Writes the body of a request already checked by `Request.validate`, or gives the error of the
 * first thing the wire cannot carry. The body carries what the request sets, and `max_tokens`,
 * which the API requires (D3).
 */
export const encodeBody = (
  request: Request.Request,
  options: { readonly stream: boolean; readonly lean?: boolean | undefined },
  resolved: Options.Resolved,
): Encoded<RequestBody.RequestBody> => {
  const refused = CoreRequest.unclaimed(request, claimed, codecName)
  if (refused !== undefined) return Result.fail(refused)
  const own = WireOptions.read(request)
  if (Result.isFailure(own)) return Result.fail(own.failure)
  const wire = own.success
  if (request.temperature !== undefined && request.temperature > 1) {
    // D5: Anthropic's temperature goes from 0 to 1; core allows up to 2 for OpenAI.
    return unsupported(
      `temperature must be between 0 and 1 for the Messages API, not ${request.temperature}`,
    )
  }
  const thinking = thinkingOf(request, wire, resolved)
  if (Result.isFailure(thinking)) return Result.fail(thinking.failure)
  const maxTokens = maxTokensOf(request, thinking.success, resolved)
  if (Result.isFailure(maxTokens)) return Result.fail(maxTokens.failure)
  const messages = encodeMessages(request)
  if (Result.isFailure(messages)) return Result.fail(messages.failure)
  // The messages go last (set below): a log line that cuts the body still shows the settings.
  const body: RequestBody.Fields = {
    model: request.model,
    max_tokens: maxTokens.success,
    messages: [],
  }
  if (request.system !== undefined) body.system = request.system
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.topP !== undefined) body.top_p = request.topP
  const stop = request.stop
  if (stop !== undefined) body.stop_sequences = typeof stop === "string" ? [stop] : [...stop]
  if (thinking.success.config !== undefined) body.thinking = thinking.success.config
  if (wire.topK !== undefined) body.top_k = wire.topK
  if (wire.user !== undefined) body.metadata = { user_id: wire.user }
  if (wire.serviceTier !== undefined) body.service_tier = wire.serviceTier
  const format = outputFormatOf(request.responseFormat)
  if (Result.isFailure(format)) return Result.fail(format.failure)
  if (format.success !== undefined) body.output_config = { format: format.success }
  for (const tool of request.tools) {
    const deep = Body.tooDeep(tool.inputSchema, `the input schema of the tool ${tool.name}`)
    if (deep !== undefined) return Result.fail(deep)
  }
  if (request.tools.length > 0) {
    body.tools = request.tools.map(encodeTool)
    const choice = toolChoiceOf(request)
    if (choice !== undefined) body.tool_choice = choice
  }
  body.messages = messages.success
  const whole: RequestBody.RequestBody = options.stream ? { ...body, stream: true } : body
  const extra = Body.addExtra(whole, request.extra, { framing: framingFields })
  if (extra !== undefined) return Result.fail(extra)
  // D6: the lean body is the full one without the optional fields, wherever they came from.
  if (options.lean === true)
    for (const field of optionalFields) Reflect.deleteProperty(whole, field)
  // openai-codec D42, here too; `max_tokens` is always set (D3).
  const admitted = Body.admit(whole, { context: request.contextTokens, reserved: whole.max_tokens })
  return admitted === undefined ? Result.succeed(whole) : Result.fail(admitted)
}

interface ThinkingPlan {
  readonly config: RequestBody.ThinkingConfig | undefined
  /** The budget thinking may take, from the request's effort or from `extra.thinking`. */
  readonly budget: number | undefined
}

/**
 * D4: the thinking of a reasoning effort (a budget of tokens, or off for `none`), or of the
 * codec option `thinkingBudget`.
 */
const thinkingOf = (
  request: Request.Request,
  wire: WireOptions.Options,
  resolved: Options.Resolved,
): Encoded<ThinkingPlan> => {
  const effort = request.reasoningEffort
  if (wire.thinkingBudget !== undefined) {
    if (effort !== undefined) {
      return Result.fail(
        SvirError.make(
          "Config",
          "the request sets both a reasoning effort and the thinkingBudget option: set one",
        ),
      )
    }
    const budget = wire.thinkingBudget
    return Result.succeed({ config: { type: "enabled", budget_tokens: budget }, budget })
  }
  if (effort === "none") return Result.succeed({ config: { type: "disabled" }, budget: undefined })
  if (effort !== undefined) {
    const budget = resolved.thinkingBudgets[effort]
    return Result.succeed({ config: { type: "enabled", budget_tokens: budget }, budget })
  }
  // D4: thinking set as the API's own field, through Request.extra, still counts for max_tokens.
  const own = request.extra?.thinking
  const budget =
    Json.isObject(own) && own.type === "enabled" && typeof own.budget_tokens === "number"
      ? own.budget_tokens
      : undefined
  return Result.succeed({ config: undefined, budget })
}

/**
 * D3: `max_tokens` is required. Without one from the request, the default, and the thinking
 * budget on top of it (the API counts thinking in `max_tokens`, and wants it larger than the
 * budget). A request's own `max_tokens` must leave room beyond the budget.
 */
const maxTokensOf = (
  request: Request.Request,
  thinking: ThinkingPlan,
  resolved: Options.Resolved,
): Encoded<number> => {
  const budget = thinking.budget
  if (request.maxTokens === undefined) {
    return Result.succeed(resolved.defaultMaxTokens + (budget ?? 0))
  }
  if (budget !== undefined && request.maxTokens <= budget) {
    return unsupported(
      `max tokens (${request.maxTokens}) must be more than the thinking budget (${budget}): the Messages API counts thinking in max_tokens`,
    )
  }
  return Result.succeed(request.maxTokens)
}

/** D8: a JSON schema is `output_config.format`; "any JSON object" has no field. */
const outputFormatOf = (
  format: Request.ResponseFormat | undefined,
): Encoded<{ readonly type: "json_schema"; readonly schema: Tool.JsonSchema } | undefined> => {
  if (format === undefined || format._tag === "Text") return Result.succeed(undefined)
  if (format._tag === "Json") {
    return unsupported(
      "the Messages API has no JSON mode for any JSON object: give a JSON schema (Request.responseFormat with JsonSchema)",
    )
  }
  if (format.description !== undefined) {
    return unsupported(
      `the response format ${format.name} has a description, which the Messages API's output format cannot carry: say it in the prompt`,
    )
  }
  const deep = Body.tooDeep(format.schema, `the schema of the response format ${format.name}`)
  if (deep !== undefined) return Result.fail(deep)
  return Result.succeed({ type: "json_schema", schema: format.schema })
}

/**
 * D7: the tool choice, only with tools. `Auto` is the API's default and is sent only to turn
 * parallel calls off; `None` has no parallel setting.
 */
const toolChoiceOf = (request: Request.Request): RequestBody.ToolChoice | undefined => {
  const single = request.parallelToolCalls === false
  const choice = request.toolChoice
  switch (choice._tag) {
    case "Auto":
      return single ? { type: "auto", disable_parallel_tool_use: true } : undefined
    case "None":
      return { type: "none" }
    case "Required":
      return single ? { type: "any", disable_parallel_tool_use: true } : { type: "any" }
    case "Tool":
      return single
        ? { type: "tool", name: choice.name, disable_parallel_tool_use: true }
        : { type: "tool", name: choice.name }
  }
}

const encodeTool = (tool: Tool.Tool): RequestBody.Tool => {
  // A tool with no schema, or `{}`, is sent as an object with no properties.
  const schema =
    Object.keys(tool.inputSchema).length === 0
      ? { type: "object", properties: {} }
      : tool.inputSchema
  return {
    name: tool.name,
    ...(tool.description !== "" && { description: tool.description }),
    input_schema: schema,
    ...(tool.strict === true && { strict: true }),
  }
}

/**
 * D2: the turns, user and assistant alternating: consecutive turns of one role are one message,
 * their blocks in order (results are a user turn's blocks).
 */
class Turns {
  readonly out: Array<RequestBody.MessageParam> = []

  user(blocks: Array<RequestBody.UserBlock>): void {
    const last = this.out[this.out.length - 1]
    if (last?.role === "user") (last.content as Array<RequestBody.UserBlock>).push(...blocks)
    else this.out.push({ role: "user", content: blocks })
  }

  assistant(blocks: Array<RequestBody.AssistantBlock>): void {
    const last = this.out[this.out.length - 1]
    if (last?.role === "assistant")
      (last.content as Array<RequestBody.AssistantBlock>).push(...blocks)
    else this.out.push({ role: "assistant", content: blocks })
  }
}

const encodeMessages = (request: Request.Request): Encoded<Array<RequestBody.MessageParam>> => {
  const turns = new Turns()
  const messages = request.messages
  if (messages.length === 0)
    return unsupported("the request has no messages; the Messages API needs at least one")
  let i = 0
  while (i < messages.length) {
    const message = messages[i]!
    switch (message._tag) {
      case "User": {
        const user = encodeUser(message)
        if (Result.isFailure(user)) return Result.fail(user.failure)
        turns.user(user.success)
        i++
        break
      }
      case "Assistant": {
        const assistant = encodeAssistant(message, request.sendReasoning)
        if (Result.isFailure(assistant)) return Result.fail(assistant.failure)
        // D2: a turn with nothing in it (an empty answer) is not sent: the API refuses empty
        // content, and it says nothing.
        if (assistant.success.length > 0) turns.assistant(assistant.success)
        // openai-codec D8, here too: the results of this turn's calls follow it, in the order of
        // the calls, as one user turn of tool_result blocks.
        const answers = Message.answersAt(messages, i)
        if (Result.isFailure(answers)) return Result.fail(answers.failure)
        const blocks: Array<RequestBody.UserBlock> = []
        for (const result of answers.success.results) {
          const block = encodeResult(result)
          if (Result.isFailure(block)) return Result.fail(block.failure)
          blocks.push(block.success)
        }
        if (blocks.length > 0) turns.user(blocks)
        i = answers.success.next
        break
      }
      case "Tool":
        return unsupported(
          `the result for call ${message.result.callId} does not follow an assistant turn that made the call`,
        )
    }
  }
  return Result.succeed(turns.out)
}

/**
 * D9: an assistant turn: its signed thinking blocks exactly as they came (unless
 * `Request.sendReasoning(false)`), its text, its calls. Reasoning with no blocks (from another
 * wire) cannot be sent: the API takes thinking only with its signature.
 */
const encodeAssistant = (
  message: Message.Assistant,
  sendReasoning: boolean | undefined,
): Encoded<Array<RequestBody.AssistantBlock>> => {
  const blocks: Array<RequestBody.AssistantBlock> = []
  if (sendReasoning !== false) {
    const signed = Thinking.blocks(message)
    if (signed.length > 0) {
      for (const block of signed) blocks.push(block)
    } else if (sendReasoning === true && message.reasoning !== "") {
      return unsupported(
        "an assistant turn has reasoning with no thinking blocks (from another wire, or cut short): the Messages API takes thinking back only with its signature",
      )
    }
  }
  if (message.text !== "") blocks.push({ type: "text", text: message.text })
  for (const call of message.calls) {
    const input = inputOf(call)
    if (Result.isFailure(input)) return Result.fail(input.failure)
    blocks.push({ type: "tool_use", id: call.id, name: call.name, input: input.success })
  }
  return Result.succeed(blocks)
}

/** D11: a call's arguments as the input object the API wants; blank arguments are `{}`. */
const inputOf = (call: ToolCall.ToolCall): Encoded<{ readonly [key: string]: unknown }> => {
  const read = CoreToolCall.readJson(call.arguments)
  if (Result.isSuccess(read) && Json.isObject(read.success)) return Result.succeed(read.success)
  return unsupported(
    `the arguments of call ${call.id} (${CoreToolCall.shownName(call.name)}) are not a JSON object; the Messages API carries a call's input as an object`,
  )
}

/**
 * D2: a result is a `tool_result` block, `is_error: true` when the call failed (the content is
 * sent as it is, nothing added). Blank content is left out (the API refuses a text block that is
 * only white space); attachments follow the text as image and document blocks.
 */
const encodeResult = (result: ToolResult.ToolResult): Encoded<RequestBody.ToolResultBlock> => {
  const blank = result.content.trim() === ""
  const where = `the result for call ${result.callId}`
  const parts: Array<RequestBody.TextBlock | RequestBody.ImageBlock | RequestBody.DocumentBlock> =
    blank ? [] : [{ type: "text", text: result.content }]
  for (const attachment of result.attachments ?? []) {
    const block =
      attachment._tag === "Image" ? encodeImage(attachment, where) : encodeFile(attachment, where)
    if (Result.isFailure(block)) return Result.fail(block.failure)
    parts.push(block.success)
  }
  const content =
    result.attachments === undefined || result.attachments.length === 0
      ? blank
        ? undefined
        : result.content
      : parts
  return Result.succeed({
    type: "tool_result",
    tool_use_id: result.callId,
    ...(content !== undefined && { content }),
    ...(result.isError && { is_error: true as const }),
  })
}

/** D2: a user turn's parts, each its own block, in the order given; empty text is left out. */
const encodeUser = (message: Message.User): Encoded<Array<RequestBody.UserBlock>> => {
  const blocks: Array<RequestBody.UserBlock> = []
  for (const part of message.parts) {
    switch (part._tag) {
      case "Text":
        if (part.text !== "") blocks.push({ type: "text", text: part.text })
        break
      case "Image": {
        const image = encodeImage(part, "a user turn")
        if (Result.isFailure(image)) return Result.fail(image.failure)
        blocks.push(image.success)
        break
      }
      case "File": {
        const file = encodeFile(part, "a user turn")
        if (Result.isFailure(file)) return Result.fail(file.failure)
        blocks.push(file.success)
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
  if (blocks.length === 0) {
    return unsupported("a user turn has no content; the Messages API refuses a turn with none")
  }
  return Result.succeed(blocks)
}

/** D2: the image types the API reads. */
const imageTypes: ReadonlySet<string> = new Set([
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
])

const dataUrl = /^data:([^;,]+);base64,(.*)$/s

/**
 * D2: an image by URL is a `url` source; a `data:` URL and bytes are a `base64` source, of a
 * type the API reads.
 */
const encodeImage = (image: Message.ImagePart, where: string): Encoded<RequestBody.ImageBlock> => {
  if ("url" in image) {
    if (!image.url.startsWith("data:")) {
      return Result.succeed({ type: "image", source: { type: "url", url: image.url } })
    }
    const match = dataUrl.exec(image.url)
    if (match === null) {
      return unsupported(
        `${where} carries a data: URL that is not base64, which the Messages API cannot carry`,
      )
    }
    const mediaType = match[1]!.toLowerCase()
    if (!imageTypes.has(mediaType)) return unsupportedImage(where, mediaType)
    return Result.succeed({
      type: "image",
      source: { type: "base64", media_type: mediaType, data: match[2]! },
    })
  }
  const mediaType = image.mediaType.toLowerCase()
  if (!imageTypes.has(mediaType)) return unsupportedImage(where, mediaType)
  return Result.succeed({
    type: "image",
    source: { type: "base64", media_type: mediaType, data: Base64.encode(image.data) },
  })
}

const unsupportedImage = (where: string, mediaType: string, name?: string): Encoded<never> =>
  unsupported(
    `${where} carries ${name === undefined ? "an image" : `the image ${name}`} of type ${mediaType}; the Messages API reads JPEG, PNG, GIF and WebP images`,
    name,
  )

const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * D2: a PDF is a `document` block (base64), an image file an `image` block, a text file a
 * `document` block of plain text, titled with the file's name. Any other file is Unsupported;
 * a text file whose bytes are not UTF-8 is an Attachment error.
 */
const encodeFile = (
  file: Message.FilePart,
  where: string,
): Encoded<RequestBody.ImageBlock | RequestBody.DocumentBlock> => {
  const mediaType = file.mediaType.split(";")[0]!.trim().toLowerCase()
  if (typeof file.data !== "string") {
    if (mediaType === "application/pdf") {
      return Result.succeed({
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: Base64.encode(file.data) },
        title: file.name,
      })
    }
    if (mediaType.startsWith("image/")) {
      if (!imageTypes.has(mediaType)) return unsupportedImage(where, mediaType, file.name)
      return Result.succeed({
        type: "image",
        source: { type: "base64", media_type: mediaType, data: Base64.encode(file.data) },
      })
    }
  }
  let text: string
  if (typeof file.data === "string") {
    text = file.data
  } else {
    if (!isTextMediaType(mediaType)) {
      return unsupported(
        `${where} carries the file ${file.name} (${file.mediaType}), which is not text; the Messages API carries PDFs, images and text files`,
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
  return Result.succeed({
    type: "document",
    source: { type: "text", media_type: "text/plain", data: text },
    title: file.name,
  })
}

const textMediaTypes: ReadonlySet<string> = new Set([
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

const isTextMediaType = (base: string): boolean =>
  base.startsWith("text/") ||
  base.endsWith("+json") ||
  base.endsWith("+xml") ||
  textMediaTypes.has(base)
