import type { Completion, ToolCall } from "@svir/core"
import { Json, Received, SvirError } from "@svir/core"
import * as Result from "effect/Result"
import {
  errorFinish,
  isFiltered,
  joined,
  notChatCompletions,
  promptFiltered,
  ReasoningBySource,
  readArguments,
  readFinish,
  readLogprobs,
  readUsage,
  reasoningPieces,
  settle,
  splitContent,
  tooManyCalls,
  unknownFinish,
  unreadableContent,
  unreadableUsage,
  wire,
} from "./assembly.js"
import { readContentParts, reasoningDetailsText } from "./contentParts.js"
import * as Options from "./options.js"
import * as ServerError from "./serverError.js"

/** Reads a whole (non-streamed) response body. */
export const decodeResponse = (
  text: string,
  options: Options.Resolved,
): Result.Result<Completion.Completion, SvirError.SvirError> => {
  const read = Received.responseObject(text, { maxBytes: options.maxBytes, wire })
  if (Result.isFailure(read)) return Result.fail(read.failure)
  const body = read.success
  if (ServerError.isErrorBody(body)) {
    return Result.fail(ServerError.fromBody(body, "instead of an answer"))
  }
  const promptWasFiltered = promptFiltered(body.prompt_filter_results ?? body.prompt_annotations)
  const choices = body.choices
  if (!Array.isArray(choices)) return Result.fail(notChatCompletions("a response with no choices"))
  if (choices.length > 1 && !options.lenient) {
    return Result.fail(
      SvirError.make(
        "Unsupported",
        `the server sent ${choices.length} choices; only one choice (n = 1) is supported`,
      ),
    )
  }
  const choice: unknown = choices[0]
  let usage: Completion.Usage | undefined
  if (body.usage !== undefined && body.usage !== null) {
    const read = readUsage(body.usage, options.lenient)
    // D30: lenient mode leaves out a usage it cannot read, never counts of 0.
    if (typeof read !== "string") usage = read
    else if (read !== "empty" && !options.lenient) return Result.fail(unreadableUsage(read))
  }
  const id = typeof body.id === "string" && body.id !== "" ? body.id : undefined
  const model = typeof body.model === "string" && body.model !== "" ? body.model : undefined
  if (choice === undefined) {
    if (!promptWasFiltered) return Result.fail(notChatCompletions("a response with no choices"))
    return settle({
      id,
      model,
      text: "",
      reasoning: new ReasoningBySource(),
      refusal: "",
      calls: [],
      finish: "content_filter",
      filtered: true,
      usage,
      logprobs: undefined,
    })
  }
  if (!Json.isObject(choice) || !Json.isObject(choice.message)) {
    return Result.fail(notChatCompletions("a choice with no message"))
  }
  const message = choice.message
  // D59: content may come as typed parts.
  const parts = Array.isArray(message.content) ? readContentParts(message.content) : undefined
  if (typeof parts === "string") return Result.fail(unreadableContent(parts))
  const content =
    parts === undefined ? readText(message.content) : Result.succeed(joined(parts, "text"))
  if (Result.isFailure(content)) return Result.fail(content.failure)
  const reasoningContent = readText(message.reasoning_content)
  if (Result.isFailure(reasoningContent)) return Result.fail(reasoningContent.failure)
  const ownReasoning = readText(message.reasoning)
  if (Result.isFailure(ownReasoning)) return Result.fail(ownReasoning.failure)
  const reasoningField =
    ownReasoning.success === "" && reasoningContent.success === ""
      ? reasoningDetailsText(message.reasoning_details)
      : ownReasoning.success
  // D13: reasoning by source, one text under both keys said once; D34: `<think>` in the content.
  const reasoning = new ReasoningBySource()
  const thinking = parts === undefined ? "" : joined(parts, "reasoning")
  if (thinking !== "") reasoning.add("thinking", thinking)
  for (const [source, text] of reasoningPieces(reasoningContent.success, reasoningField)) {
    reasoning.add(source, text)
  }
  const answer = options.splitThink ? splitContent(content.success, reasoning) : content.success
  const ownRefusal = readText(message.refusal)
  if (Result.isFailure(ownRefusal)) return Result.fail(ownRefusal.failure)
  const refusal =
    parts === undefined ? ownRefusal.success : ownRefusal.success + joined(parts, "refusal")
  const calls = readCalls(message.tool_calls, options)
  if (Result.isFailure(calls)) return Result.fail(calls.failure)
  let logprobs: ReadonlyArray<Completion.TokenLogprob> | undefined
  if (choice.logprobs !== undefined && choice.logprobs !== null) {
    const read = readLogprobs(choice.logprobs, options.lenient)
    if (Result.isFailure(read)) return Result.fail(read.failure)
    logprobs = read.success
  }
  const finishReason = choice.finish_reason
  if (finishReason === "error") return Result.fail(errorFinish(choice, "instead of an answer"))
  const finish = typeof finishReason === "string" ? readFinish(finishReason) : undefined
  if (finish === undefined && typeof finishReason === "string" && finishReason !== "") {
    return Result.fail(unknownFinish(finishReason))
  }
  if (
    finish === undefined &&
    finishReason !== undefined &&
    finishReason !== null &&
    finishReason !== ""
  ) {
    return Result.fail(
      SvirError.make("Protocol", "the response has a finish reason that is not a string", {
        serverMessage: JSON.stringify(finishReason),
      }),
    )
  }
  return settle({
    id,
    model,
    text: answer,
    reasoning,
    refusal,
    calls: calls.success,
    finish,
    filtered: promptWasFiltered || isFiltered(choice.content_filter_results),
    usage,
    logprobs,
  })
}

/** A text field; one that is not a string is never dropped, in either mode (D59). */
const readText = (value: unknown): Result.Result<string, SvirError.SvirError> => {
  if (typeof value === "string") return Result.succeed(value)
  if (value === undefined || value === null) return Result.succeed("")
  return Result.fail(notChatCompletions("a text field that is not a string"))
}

const readCalls = (
  value: unknown,
  options: Options.Resolved,
): Result.Result<Array<ToolCall.ToolCall>, SvirError.SvirError> => {
  if (value === undefined || value === null) return Result.succeed([])
  if (!Array.isArray(value)) {
    return Result.fail(notChatCompletions("tool_calls that are not an array"))
  }
  if (value.length > options.maxCalls) return Result.fail(tooManyCalls(options.maxCalls))
  const calls: Array<ToolCall.ToolCall> = []
  const ids = new Set<string>()
  for (const item of value) {
    if (!Json.isObject(item) || !Json.isObject(item.function)) {
      return Result.fail(notChatCompletions("a tool call with no function"))
    }
    const fn = item.function
    const name = typeof fn.name === "string" ? fn.name : ""
    const args = readArguments(fn.arguments, options.lenient)
    if (Result.isFailure(args)) return Result.fail(args.failure)
    // D11: a call with no id gets one, unlike every other id of the answer.
    const id =
      typeof item.id === "string" && item.id !== ""
        ? item.id
        : Options.freshCallId(options.makeCallId, (id) => ids.has(id))
    ids.add(id)
    calls.push({ id, name, arguments: args.success })
  }
  return Result.succeed(calls)
}
