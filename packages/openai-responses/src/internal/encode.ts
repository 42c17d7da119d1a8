import type { Codec, Tool, ToolResult } from "@svir/core"
import { Body, Request as CoreRequest, Message, type Request, SvirError } from "@svir/core"
import * as Base64 from "effect/encoding/Base64"
import * as Result from "effect/Result"
import * as Reasoning from "../Reasoning.js"
import type * as RequestBody from "../RequestBody.js"
import type * as Options from "./options.js"
import { codecName } from "./options.js"
import * as WireOptions from "./wireOptions.js"

type Encoded<A> = Result.Result<A, SvirError.SvirError>

const unsupported = (message: string, attachment?: string): Encoded<never> =>
  Result.fail(SvirError.make("Unsupported", message, { attachment }))

/** D3 (openai-codec D4): a failed result is marked by this prefix, added here and nowhere else. */
const errorPrefix = "error: "

/** D3 (openai-codec D5): what an empty or blank result is sent as. */
const emptyResultContent = "(no output)"

/** D11: the `include` entry of the reasoning items' encrypted content. */
const encryptedReasoning = "reasoning.encrypted_content"

/**
 * D6: the optional fields, which a server may refuse and the answer does not depend on: lean
 * encoding leaves them out, from the request's extra fields too; it also leaves the encrypted
 * reasoning out of `include` (D11).
 */
export const optionalFields: ReadonlyArray<string> = [
  "metadata",
  "service_tier",
  "safety_identifier",
  "prompt_cache_key",
  "user",
]

/** D7: fields extra may never name, whatever the request sets: the encoder's own framing. */
const framingFields: ReadonlyArray<string> = ["model", "input", "stream", "store"]

/**
 * D4: the request fields this codec handles; core's `Request.unclaimed` refuses any other one the
 * request sets (a seed, stop sequences, a presence or frequency penalty), never dropped. Usage is
 * claimed: the Responses API reports it in every answer, streamed or not.
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
  "parallelToolCalls",
  "extra",
]

const claimed: ReadonlySet<Request.Field> = new Set(fields)

/** D4: the fewest output tokens the API takes (`max_output_tokens`, minimum 16). */
const minOutputTokens = 16

/**
 * Writes the body of a request already checked by `Request.validate`, or gives the error of the
 * first thing the wire cannot carry. The body carries what the request sets, `store` (D10) and
 * the `include` the conversation needs (D11).
 */
export const encodeBody = (
  request: Request.Request,
  options: Codec.EncodeOptions,
  _resolved: Options.Resolved,
): Encoded<RequestBody.RequestBody> => {
  const refused = CoreRequest.unclaimed(request, claimed, codecName)
  if (refused !== undefined) return Result.fail(refused)
  const own = WireOptions.read(request)
  if (Result.isFailure(own)) return Result.fail(own.failure)
  const wire = own.success
  if (request.maxTokens !== undefined && request.maxTokens < minOutputTokens) {
    return unsupported(
      `max tokens must be at least ${minOutputTokens} for the Responses API (max_output_tokens), not ${request.maxTokens}`,
    )
  }
  const input = encodeInput(request, wire)
  if (Result.isFailure(input)) return Result.fail(input.failure)
  // The input goes last (set below): a log line that cuts the body still shows the settings.
  const store = wire.store ?? wire.previousResponseId !== undefined
  const body: RequestBody.Fields = { model: request.model, store, input: [] }
  if (request.system !== undefined) body.instructions = request.system
  const tools = encodeTools(request)
  if (Result.isFailure(tools)) return Result.fail(tools.failure)
  if (tools.success !== undefined) {
    body.tools = tools.success
    const choice = toolChoiceOf(request.toolChoice)
    if (choice !== undefined) body.tool_choice = choice
    if (request.parallelToolCalls !== undefined)
      body.parallel_tool_calls = request.parallelToolCalls
  }
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.topP !== undefined) body.top_p = request.topP
  const reasoning = reasoningOf(request, wire)
  if (reasoning !== undefined) body.reasoning = reasoning
  const text = textOf(request.responseFormat, wire)
  if (Result.isFailure(text)) return Result.fail(text.failure)
  if (text.success !== undefined) body.text = text.success
  writeWireOptions(wire, body)
  body.input = input.success
  const whole: RequestBody.RequestBody = options.stream ? { ...body, stream: true } : body
  // D7: extra fields never over a field the encoder writes, nor its framing.
  const extra = Body.addExtra(whole, request.extra, {
    framing: framingFields,
    hint: "ResponsesCodec.options",
  })
  if (extra !== undefined) return Result.fail(extra)
  if (options.lean === true) leave(whole)
  // openai-codec D42, here too: the body's bytes and the tokens asked for must fit the context.
  const admitted = Body.admit(whole, {
    context: request.contextTokens,
    reserved: request.maxTokens ?? 0,
  })
  return admitted === undefined ? Result.succeed(whole) : Result.fail(admitted)
}

/** D8: the options only this wire has, each under its wire name, only when set; D11's include. */
const writeWireOptions = (wire: WireOptions.Options, body: RequestBody.Fields): void => {
  if (wire.truncation !== undefined) body.truncation = wire.truncation
  if (wire.topLogprobs !== undefined) body.top_logprobs = wire.topLogprobs
  if (wire.previousResponseId !== undefined) body.previous_response_id = wire.previousResponseId
  const include = includeOf(body.store, wire)
  if (include.length > 0) body.include = include
  if (wire.metadata !== undefined) body.metadata = { ...wire.metadata }
  if (wire.serviceTier !== undefined) body.service_tier = wire.serviceTier
  if (wire.safetyIdentifier !== undefined) body.safety_identifier = wire.safetyIdentifier
  if (wire.promptCacheKey !== undefined) body.prompt_cache_key = wire.promptCacheKey
  if (wire.user !== undefined) body.user = wire.user
}

/** D6: the lean body is the full one without the optional fields, wherever they came from. */
const leave = (body: RequestBody.RequestBody): void => {
  for (const field of optionalFields) Reflect.deleteProperty(body, field)
  const include = body.include
  if (Array.isArray(include) && include.includes(encryptedReasoning)) {
    const kept = include.filter((entry) => entry !== encryptedReasoning)
    if (kept.length > 0) body.include = kept
    else Reflect.deleteProperty(body, "include")
  }
}

/** D11: the encrypted reasoning whenever the server keeps nothing; the log probabilities when asked. */
const includeOf = (store: boolean, wire: WireOptions.Options): Array<RequestBody.Includable> => {
  const include: Array<RequestBody.Includable> = []
  if (wire.encryptedReasoning ?? !store) include.push(encryptedReasoning)
  if (wire.logprobs === true) include.push("message.output_text.logprobs")
  return include
}

/** D4: the reasoning effort as it is, and the summaries when asked. */
const reasoningOf = (
  request: Request.Request,
  wire: WireOptions.Options,
): RequestBody.ReasoningConfig | undefined => {
  const effort = request.reasoningEffort
  const summary = wire.reasoningSummary
  if (effort === undefined && summary === undefined) return undefined
  return {
    ...(effort !== undefined && { effort }),
    ...(summary !== undefined && { summary }),
  }
}

const formatName = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * D4: the text options: `json_object` for any JSON object, `json_schema` with its name, schema,
 * description and strictness; the verbosity when asked. Text is the API's default and not sent.
 */
const textOf = (
  format: Request.ResponseFormat | undefined,
  wire: WireOptions.Options,
): Encoded<RequestBody.TextConfig | undefined> => {
  let encoded: RequestBody.TextFormat | undefined
  if (format?._tag === "Json") encoded = { type: "json_object" }
  if (format?._tag === "JsonSchema") {
    if (!formatName.test(format.name)) {
      return unsupported(
        `the response format's name ${JSON.stringify(format.name.slice(0, 70))} is not one the Responses API takes: 1 to 64 characters of a-z, A-Z, 0-9, _ and -`,
      )
    }
    const deep = Body.tooDeep(format.schema, `the schema of the response format ${format.name}`)
    if (deep !== undefined) return Result.fail(deep)
    encoded = {
      type: "json_schema",
      name: format.name,
      schema: format.schema,
      ...(format.description !== undefined && { description: format.description }),
      ...(format.strict !== undefined && { strict: format.strict }),
    }
  }
  const verbosity = wire.textVerbosity
  if (encoded === undefined && verbosity === undefined) return Result.succeed(undefined)
  return Result.succeed({
    ...(encoded !== undefined && { format: encoded }),
    ...(verbosity !== undefined && { verbosity }),
  })
}

/**
 * D5: tools as function tools, `strict` always sent (the API's default is `true`, and a tool is
 * strict only when it says so); no tools, no tool fields.
 */
const encodeTools = (
  request: Request.Request,
): Encoded<Array<RequestBody.FunctionTool> | undefined> => {
  if (request.tools.length === 0) return Result.succeed(undefined)
  const out: Array<RequestBody.FunctionTool> = []
  for (const tool of request.tools) {
    const deep = Body.tooDeep(tool.inputSchema, `the input schema of the tool ${tool.name}`)
    if (deep !== undefined) return Result.fail(deep)
    out.push(encodeTool(tool))
  }
  return Result.succeed(out)
}

const encodeTool = (tool: Tool.Tool): RequestBody.FunctionTool => ({
  type: "function",
  name: tool.name,
  ...(tool.description !== "" && { description: tool.description }),
  // A tool with no schema, or `{}`, is sent as an object with no properties.
  parameters:
    Object.keys(tool.inputSchema).length === 0
      ? { type: "object", properties: {} }
      : tool.inputSchema,
  strict: tool.strict === true,
})

/** D5: `auto` is the API's default and not sent; the others only with tools (openai-codec D6). */
const toolChoiceOf = (
  choice: Request.Request["toolChoice"],
): RequestBody.ToolChoice | undefined => {
  switch (choice._tag) {
    case "Auto":
      return undefined
    case "None":
      return "none"
    case "Required":
      return "required"
    case "Tool":
      return { type: "function", name: choice.name }
  }
}

/**
 * D2, D9, D10: the input items. Without `previousResponseId`, the whole conversation; with it,
 * only what came after the last assistant turn (the response it names), the results of that
 * turn's calls first.
 */
const encodeInput = (
  request: Request.Request,
  wire: WireOptions.Options,
): Encoded<Array<RequestBody.InputItem>> => {
  const messages = request.messages
  const out: Array<RequestBody.InputItem> = []
  if (wire.previousResponseId !== undefined) {
    const chained = encodeAfterPrevious(messages, out)
    if (chained !== undefined) return Result.fail(chained)
  } else {
    const whole = encodeConversation(messages, request.sendReasoning, out)
    if (whole !== undefined) return Result.fail(whole)
  }
  if (out.length === 0) {
    return unsupported(
      wire.previousResponseId === undefined
        ? "the request has no messages; the Responses API needs some input"
        : "the request has nothing after the previous response to send; add a user turn or the results of its calls",
    )
  }
  return Result.succeed(out)
}

/** D10: the messages after the last assistant turn; results with no turn before them go as they are. */
const encodeAfterPrevious = (
  messages: ReadonlyArray<Message.Message>,
  out: Array<RequestBody.InputItem>,
): SvirError.SvirError | undefined => {
  let last = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!._tag === "Assistant") {
      last = i
      break
    }
  }
  let i = last + 1
  if (last >= 0) {
    const answered = encodeAnswers(messages, last, out)
    if (Result.isFailure(answered)) return answered.failure
    i = answered.success
  } else {
    // The calls are in the stored response, not here: the results go in the order given.
    while (i < messages.length && messages[i]!._tag === "Tool") {
      const item = encodeResult((messages[i] as Message.Tool).result)
      if (Result.isFailure(item)) return item.failure
      out.push(item.success)
      i++
    }
  }
  return encodeConversation(messages.slice(i), false, out)
}

/**
 * D2: every turn as items, in order: a user turn as a message, an assistant turn as its reasoning
 * items (D9), its text and its calls, then the results of those calls in the order of the calls.
 */
const encodeConversation = (
  messages: ReadonlyArray<Message.Message>,
  sendReasoning: boolean | undefined,
  out: Array<RequestBody.InputItem>,
): SvirError.SvirError | undefined => {
  // D9: by default, the reasoning of the turns after the last user message goes back.
  let lastUser = -1
  for (let j = messages.length - 1; j >= 0; j--) {
    if (messages[j]!._tag === "User") {
      lastUser = j
      break
    }
  }
  let i = 0
  while (i < messages.length) {
    const message = messages[i]!
    switch (message._tag) {
      case "User": {
        const user = encodeUser(message)
        if (Result.isFailure(user)) return user.failure
        out.push(user.success)
        i++
        break
      }
      case "Assistant": {
        const withReasoning =
          sendReasoning === true || (sendReasoning === undefined && i > lastUser)
        const turn = encodeAssistant(message, withReasoning, sendReasoning === true)
        if (Result.isFailure(turn)) return turn.failure
        for (const item of turn.success) out.push(item)
        const answered = encodeAnswers(messages, i, out)
        if (Result.isFailure(answered)) return answered.failure
        i = answered.success
        break
      }
      case "Tool":
        return SvirError.make(
          "Unsupported",
          `the result for call ${message.result.callId} does not follow an assistant turn that made the call`,
        )
    }
  }
  return undefined
}

/**
 * D9: an assistant turn: its reasoning items exactly as they came (when they go back), then its
 * text as an output message, then its calls. A turn with no text and no calls is not sent, nor its
 * reasoning: it says nothing, and the API refuses a reasoning item without the item that followed
 * it. Reasoning with no items (another wire's) cannot go back: left out, Unsupported when the
 * request asks for it (`Request.sendReasoning(true)`).
 */
const encodeAssistant = (
  message: Message.Assistant,
  withReasoning: boolean,
  asked: boolean,
): Encoded<Array<RequestBody.InputItem>> => {
  const out: Array<RequestBody.InputItem> = []
  if (message.text === "" && message.calls.length === 0) return Result.succeed(out)
  if (withReasoning) {
    const items = Reasoning.items(message)
    if (items.length > 0) {
      for (const item of items) out.push(item)
    } else if (asked && message.reasoning !== "") {
      return unsupported(
        "an assistant turn has reasoning with no reasoning items (from another wire, or cut short): the Responses API takes reasoning back only as the items it gave",
      )
    }
  }
  if (message.text !== "") {
    out.push({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: message.text }],
    })
  }
  for (const call of message.calls) {
    const id = callIdProblem(call.id)
    if (id !== undefined) return unsupported(id)
    out.push({
      type: "function_call",
      call_id: call.id,
      name: call.name,
      // openai-codec D3: blank arguments are sent as "{}".
      arguments: call.arguments.trim() === "" ? "{}" : call.arguments,
    })
  }
  return Result.succeed(out)
}

/** D2: the API's call ids are 1 to 64 characters. */
const callIdProblem = (id: string): string | undefined =>
  id.length >= 1 && id.length <= 64
    ? undefined
    : `the call id ${JSON.stringify(id.slice(0, 70))} is not one the Responses API takes: 1 to 64 characters`

/**
 * openai-codec D8, here too: the results of the assistant turn at `index` follow it, in the order
 * of its calls (core's `Message.answersAt`), each a `function_call_output`; gives the index after
 * them.
 */
const encodeAnswers = (
  messages: ReadonlyArray<Message.Message>,
  index: number,
  out: Array<RequestBody.InputItem>,
): Encoded<number> => {
  const answers = Message.answersAt(messages, index)
  if (Result.isFailure(answers)) return Result.fail(answers.failure)
  for (const result of answers.success.results) {
    const item = encodeResult(result)
    if (Result.isFailure(item)) return Result.fail(item.failure)
    out.push(item.success)
  }
  return Result.succeed(answers.success.next)
}

/**
 * D3: a result is a `function_call_output`: its text, `error: ` first when the call failed (the
 * wire has no flag for it), `(no output)` when blank. With attachments, the output is parts: the
 * text (left out when blank and the call did not fail), then the attachments in order.
 */
const encodeResult = (result: ToolResult.ToolResult): Encoded<RequestBody.FunctionCallOutput> => {
  const idProblem = callIdProblem(result.callId)
  if (idProblem !== undefined) return unsupported(idProblem)
  const blank = result.content.trim() === ""
  const text = blank ? emptyResultContent : result.content
  const marked = result.isError ? errorPrefix + text : text
  const attachments = result.attachments ?? []
  if (attachments.length === 0) {
    return Result.succeed({ type: "function_call_output", call_id: result.callId, output: marked })
  }
  const where = `the result for call ${result.callId}`
  const parts: Array<RequestBody.InputContent> =
    blank && !result.isError ? [] : [{ type: "input_text", text: marked }]
  for (const attachment of attachments) {
    const part =
      attachment._tag === "Image"
        ? Result.succeed(encodeImage(attachment))
        : encodeFile(attachment, where)
    if (Result.isFailure(part)) return Result.fail(part.failure)
    parts.push(part.success)
  }
  return Result.succeed({ type: "function_call_output", call_id: result.callId, output: parts })
}

/** D2: a user turn's parts, each its own part, in the order given; empty text is left out. */
const encodeUser = (message: Message.User): Encoded<RequestBody.UserMessage> => {
  const content: Array<RequestBody.InputContent> = []
  for (const part of message.parts) {
    switch (part._tag) {
      case "Text":
        if (part.text !== "") content.push({ type: "input_text", text: part.text })
        break
      case "Image":
        content.push(encodeImage(part))
        break
      case "File": {
        const file = encodeFile(part, "a user turn")
        if (Result.isFailure(file)) return Result.fail(file.failure)
        content.push(file.success)
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
  if (content.length === 0) {
    return unsupported("a user turn has no content; the Responses API refuses a message with none")
  }
  return Result.succeed({ type: "message", role: "user", content })
}

const dataUrl = (mediaType: string, data: Uint8Array): string =>
  `data:${mediaType};base64,${Base64.encode(data)}`

/** D2: an image by URL as it is (`https:` or `data:`); bytes as a `data:` URL. */
const encodeImage = (image: Message.ImagePart): RequestBody.InputImage => ({
  type: "input_image",
  image_url: "url" in image ? image.url : dataUrl(image.mediaType, image.data),
  detail: "auto",
})

const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * D2: a PDF is an `input_file` (its name and a base64 `data:` URL), an image file an
 * `input_image`, a text file an `input_text` that names it (openai-codec D9's form). Any other file
 * is Unsupported; a text file whose bytes are not UTF-8 is an Attachment error.
 */
const encodeFile = (file: Message.FilePart, where: string): Encoded<RequestBody.InputContent> => {
  const mediaType = file.mediaType.split(";")[0]!.trim().toLowerCase()
  if (typeof file.data !== "string") {
    if (mediaType === "application/pdf") {
      return Result.succeed({
        type: "input_file",
        filename: file.name,
        file_data: dataUrl("application/pdf", file.data),
      })
    }
    if (mediaType.startsWith("image/")) {
      return Result.succeed({
        type: "input_image",
        image_url: dataUrl(mediaType, file.data),
        detail: "auto",
      })
    }
  }
  let text: string
  if (typeof file.data === "string") {
    text = file.data
  } else {
    if (!isTextMediaType(mediaType)) {
      return unsupported(
        `${where} carries the file ${file.name} (${file.mediaType}), which is not text; the Responses API carries PDFs, images and text files`,
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
          {
            attachment: file.name,
          },
        ),
      )
    }
  }
  return Result.succeed({
    type: "input_text",
    text: `<file name="${file.name.replaceAll('"', "&quot;")}">\n${text}\n</file>`,
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
