import type { ToolCall } from "@svir/core"
import { type Completion, Event, Json, Pieces, Received, SvirError } from "@svir/core"
import * as Result from "effect/Result"
import { type PartPiece, readContentParts, reasoningDetailsText } from "./contentParts.js"
import * as Options from "./options.js"
import * as ServerError from "./serverError.js"
import { makeThinkSplitter, type ThinkPiece, type ThinkSplitter } from "./think.js"

type JsonObject = { readonly [key: string]: unknown }
type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** A call being assembled from its pieces. */
interface CallSlot {
  id: string
  /** Whether the id was generated because the server sent none (D11). */
  generated: boolean
  name: string
  readonly fragments: Pieces.Pieces
  /** The index the server gave the call's first piece, if any. */
  readonly wireIndex: number | undefined
}

/** A shape that is not Chat Completions: a Protocol error. */
/** The wire's name, in the errors of what is not of it. */
export const wire = "Chat Completions"

export const notChatCompletions = (what: string): SvirError.SvirError =>
  Received.foreign(what, wire)

const wholeNumber = /^\d{1,15}$/

/**
 * D27: an index (of a choice or a call) is a whole number from 0; lenient mode also reads its
 * digits as a string ("1"). `undefined` when absent or not an index.
 */
const readIndex = (value: unknown, lenient: boolean): number | undefined => {
  if (typeof value === "number") return Number.isInteger(value) && value >= 0 ? value : undefined
  if (lenient && typeof value === "string" && wholeNumber.test(value)) return Number(value)
  return undefined
}

/**
 * D31: whether one verdict of Azure's filter blocks: a category `{"filtered": true, ...}`, or a
 * list of them, as `custom_blocklists` is (`[{"filtered": true, "id": "..."}]`, recorded).
 * `detected` alone blocks nothing: it is what a filter set to annotate only reports.
 */
const blocks = (verdict: unknown): boolean =>
  Json.isObject(verdict)
    ? verdict.filtered === true
    : Array.isArray(verdict) &&
      verdict.some((item) => Json.isObject(item) && item.filtered === true)

/** Whether Azure's `content_filter_results` say the filter blocked the text (D31). */
export const isFiltered = (results: unknown): boolean => {
  if (!Json.isObject(results)) return false
  for (const key in results) {
    if (blocks(results[key])) return true
  }
  return false
}

/** Whether an Azure prompt report says a filter stopped the prompt. */
export const promptFiltered = (reports: unknown): boolean =>
  Array.isArray(reports) &&
  reports.some((report) => Json.isObject(report) && isFiltered(report.content_filter_results))

/** Why a `usage` object cannot be read (D30, D51). */
export type UnreadableUsage = "not an object" | "empty" | "incomplete" | "bad count" | "bad detail"

/** D51: each detail of a usage, where it is on the wire: its group and its key. */
const usageDetails = [
  ["cachedInput", "prompt_tokens_details", "cached_tokens"],
  ["audioInput", "prompt_tokens_details", "audio_tokens"],
  ["reasoning", "completion_tokens_details", "reasoning_tokens"],
  ["audioOutput", "completion_tokens_details", "audio_tokens"],
] as const

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0

/**
 * A `usage` object read: the counts and the details the server gave, or why it cannot be read:
 * `"not an object"`, `"incomplete"` when the server left out `prompt_tokens` or
 * `completion_tokens` (D30: a missing count is never read as 0), `"bad count"` when one of them,
 * or `total_tokens`, is not a whole number of 0 or more (`-1`, `1.5`, `1e400`, which `JSON.parse`
 * reads as Infinity), or `"bad detail"` when a detail is not a count. Lenient mode leaves out a
 * usage whose input or output is not a count, adds them up for a total that is not one, and
 * leaves out a detail that is not one (D51, D55). A detail that is absent or null is absent;
 * DeepSeek's `prompt_cache_hit_tokens` counts as the cached input when `prompt_tokens_details`
 * does not say.
 */
export const readUsage = (usage: unknown, lenient: boolean): Completion.Usage | UnreadableUsage => {
  if (!Json.isObject(usage)) return "not an object"
  const input = usage.prompt_tokens
  const output = usage.completion_tokens
  // D61: a count still null (Neon's gateway, on every chunk before the last) says nothing yet.
  if (input === null || output === null) return "empty"
  if (typeof input !== "number" || typeof output !== "number") {
    // D61: `usage: {}` (a relay's empty usage on a content chunk) counts nothing and says nothing.
    for (const key in usage) if (usage[key] !== null) return "incomplete"
    return "empty"
  }
  if (!isCount(input) || !isCount(output)) return "bad count"
  const sent = usage.total_tokens
  const sound = sent === undefined || sent === null || isCount(sent)
  if (!sound && !lenient) return "bad count"
  const total = isCount(sent) ? sent : input + output
  const read: Mutable<Completion.Usage> = { input, output, total }
  // D61: DeepSeek's `prompt_cache_hit_tokens`, Moonshot's top-level `cached_tokens`.
  const cacheHits = usage.prompt_cache_hit_tokens ?? usage.cached_tokens
  // D47: most usages have no details (vLLM by default, llama.cpp before #19361).
  if (
    usage.prompt_tokens_details == null &&
    usage.completion_tokens_details == null &&
    cacheHits == null
  ) {
    return read
  }
  for (const [detail, group, key] of usageDetails) {
    const details = usage[group]
    if (details === undefined || details === null) continue
    if (!Json.isObject(details)) {
      if (lenient) continue
      return "bad detail"
    }
    const value = details[key]
    if (value === undefined || value === null) continue
    if (isCount(value)) read[detail] = value
    else if (!lenient) return "bad detail"
  }
  if (read.cachedInput === undefined && cacheHits !== undefined && cacheHits !== null) {
    if (isCount(cacheHits)) read.cachedInput = cacheHits
    else if (!lenient) return "bad detail"
  }
  // D61: xAI counts reasoning beside `completion_tokens`, not in it (completion 1, reasoning 228,
  // total 241 with 12 of input), and Gemini's endpoint counts it in the total alone; `output`
  // holds the reasoning, as `Completion.Usage` says.
  const reasoning = read.reasoning
  if (
    reasoning !== undefined &&
    reasoning > 0 &&
    (reasoning > output || (isCount(sent) && sent === input + output + reasoning))
  ) {
    read.output = output + reasoning
    if (!isCount(sent)) read.total = input + read.output
  } else if (reasoning === undefined && isCount(sent) && sent > input + output) {
    // Gemini's endpoint counts its hidden thinking in the total alone: the rest is reasoning.
    read.reasoning = sent - input - output
    read.output = sent - input
  }
  return read
}

/** The error for a usage the decoder cannot read (D30, D51); lenient mode leaves it out. */
export const unreadableUsage = (read: UnreadableUsage): SvirError.SvirError => {
  switch (read) {
    case "incomplete":
      return SvirError.make(
        "Protocol",
        "the server sent a usage without prompt_tokens or completion_tokens (lenient mode leaves it out)",
      )
    case "bad count":
      return SvirError.make(
        "Protocol",
        "the server sent a usage whose prompt_tokens, completion_tokens or total_tokens is not a count of tokens (lenient mode leaves out the usage, or adds up the total)",
      )
    case "bad detail":
      return SvirError.make(
        "Protocol",
        "the server sent a usage detail that is not a count of tokens (lenient mode leaves the detail out)",
      )
    case "not an object":
      return notChatCompletions("a usage that is not an object")
    case "empty":
      return notChatCompletions("an empty usage")
  }
}

/**
 * D52: one token's log probability, or `undefined` when it cannot be read: `token` a string,
 * `logprob` a number, `bytes` (absent or null, or bytes) and `top_logprobs` (absent or null, or
 * a list of tokens read the same way).
 */
const readTopLogprob = (entry: unknown): Completion.TopLogprob | undefined => {
  if (!Json.isObject(entry)) return undefined
  const { token, logprob, bytes } = entry
  if (typeof token !== "string" || typeof logprob !== "number") return undefined
  if (bytes === undefined || bytes === null) return { token, logprob }
  if (!Array.isArray(bytes) || !bytes.every(isByte)) return undefined
  return { token, logprob, bytes }
}

const isByte = (value: unknown): boolean =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 255

const readTokenLogprob = (entry: unknown): Completion.TokenLogprob | undefined => {
  const read = readTopLogprob(entry)
  if (read === undefined) return undefined
  const top = (entry as JsonObject).top_logprobs
  if (top === undefined || top === null) return { ...read, topLogprobs: [] }
  if (!Array.isArray(top)) return undefined
  const topLogprobs: Array<Completion.TopLogprob> = []
  for (const alternative of top) {
    const readAlternative = readTopLogprob(alternative)
    if (readAlternative === undefined) return undefined
    topLogprobs.push(readAlternative)
  }
  return { ...read, topLogprobs }
}

/**
 * D52: the log probabilities of a choice, `logprobs.content` then `logprobs.refusal` (one of them
 * is empty: a refusal is the whole answer, D14). A shape this codec cannot read is a Protocol
 * error in strict mode; lenient mode skips the tokens it cannot read.
 */
export const readLogprobs = (
  logprobs: unknown,
  lenient: boolean,
): Result.Result<Array<Completion.TokenLogprob>, SvirError.SvirError> => {
  const tokens: Array<Completion.TokenLogprob> = []
  if (!Json.isObject(logprobs)) {
    return lenient
      ? Result.succeed(tokens)
      : Result.fail(notChatCompletions("logprobs that are not an object"))
  }
  for (const list of [logprobs.content, logprobs.refusal]) {
    if (list === undefined || list === null) continue
    if (!Array.isArray(list)) {
      if (lenient) continue
      return Result.fail(notChatCompletions("logprobs that are not a list of tokens"))
    }
    for (const entry of list) {
      const token = readTokenLogprob(entry)
      if (token !== undefined) tokens.push(token)
      else if (!lenient) {
        return Result.fail(notChatCompletions("a log probability of a token that cannot be read"))
      }
    }
  }
  return Result.succeed(tokens)
}

/**
 * D20: arguments are a string. llama.cpp (#20198) and Ollama (#6155) send a JSON object; lenient
 * mode writes it as JSON text.
 */
export const readArguments = (
  args: unknown,
  lenient: boolean,
): Result.Result<string, SvirError.SvirError> => {
  if (typeof args === "string") return Result.succeed(args)
  if (args === undefined || args === null) return Result.succeed("")
  if (lenient) return Result.succeed(JSON.stringify(args))
  return Result.fail(
    SvirError.make(
      "Protocol",
      "the server sent a call's arguments as JSON, not as a string (lenient mode reads them)",
    ),
  )
}

type WireFinish = "stop" | "length" | "tool_calls" | "content_filter"

/** A wire finish reason, `undefined` when unknown (D33). */
export const readFinish = (finish: string): WireFinish | undefined => {
  switch (finish) {
    case "stop":
    case "length":
    case "tool_calls":
    case "content_filter":
      return finish
    default:
      return undefined
  }
}

/**
 * D64: finish `error` (OpenRouter, when the provider failed mid-answer) ends the answer with the
 * error the choice carries, or the server's error in plain words when it carries none.
 */
export const errorFinish = (
  choice: { readonly [key: string]: unknown },
  place: ServerError.Place,
): SvirError.SvirError =>
  choice.error !== undefined && choice.error !== null
    ? ServerError.fromBody({ error: choice.error }, place)
    : SvirError.make("Server", `the server ended the answer with an error ${place}`, {
        serverMessage: "error",
      })

/** D33: a finish reason this codec does not know may mean another answer; both modes refuse it. */
export const unknownFinish = (finish: string): SvirError.SvirError =>
  SvirError.make("Unsupported", "the server sent a finish reason this codec does not know", {
    serverMessage: finish,
  })

/** D30: the keys of a delta this codec reads; any other key with a value is unknown. */
const isDeltaKey = (key: string): boolean => {
  // D47: a switch, not a set: keys from `JSON.parse` are interned, so each case is one compare.
  switch (key) {
    case "role":
    case "content":
    case "refusal":
    case "reasoning_content":
    case "reasoning":
    case "tool_calls":
      return true
    default:
      return false
  }
}

/**
 * D58: the delta keys the codec does not read that hold a part of the answer: spoken audio and
 * a call in the form that came before `tool_calls`. Any other such key (`index` beside the
 * content, annotations, a server's own details) says nothing the answer needs.
 */
const carriesAnswer = (key: string): boolean => key === "audio" || key === "function_call"

/** D59: content the codec cannot read, in either mode: dropping it would leave a partial answer. */
export const unreadableContent = (problem: string): SvirError.SvirError =>
  SvirError.make("Unsupported", `the server sent ${problem}`)

/** Whether a call's arguments are one whole JSON value, or blank (D3). */
const wholeArguments = (text: string): boolean =>
  text.trim() === "" || Result.isSuccess(Json.parse(text))

/** The texts of one kind of parts, joined. */
export const joined = (parts: ReadonlyArray<PartPiece>, kind: PartPiece["kind"]): string => {
  let text = ""
  for (const part of parts) if (part.kind === kind) text += part.text
  return text
}

/** D13: reasoning by source, each source's pieces in arrival order, sources in first appearance. */
export class ReasoningBySource {
  readonly all: Array<string> = []
  /** Made for the first piece (D47: most answers have no reasoning). */
  private sources: Map<string, Array<string>> | undefined

  add(source: string, text: string): void {
    this.all.push(text)
    this.sources ??= new Map()
    const pieces = this.sources.get(source)
    if (pieces === undefined) this.sources.set(source, [text])
    else pieces.push(text)
  }

  joined(): Array<Completion.Reasoning> {
    const joined: Array<Completion.Reasoning> = []
    if (this.sources === undefined) return joined
    for (const [source, pieces] of this.sources) joined.push({ source, text: pieces.join("") })
    return joined
  }
}

/**
 * D13: the reasoning of one delta or message. The same text under `reasoning_content` and
 * `reasoning` (mlx-vlm sends every piece under both) is one piece under `reasoning_content`;
 * different texts are two sources, `reasoning_content` first.
 */
export const reasoningPieces = (
  reasoningContent: string,
  reasoning: string,
): ReadonlyArray<readonly [source: string, text: string]> => {
  if (reasoningContent !== "" && reasoningContent === reasoning) {
    return [["reasoning_content", reasoningContent]]
  }
  const pieces: Array<readonly [string, string]> = []
  if (reasoningContent !== "") pieces.push(["reasoning_content", reasoningContent])
  if (reasoning !== "") pieces.push(["reasoning", reasoning])
  return pieces
}

/** D34: the content of a whole message split into text and `think` reasoning. */
export const splitContent = (content: string, reasoning: ReasoningBySource): string => {
  const splitter = makeThinkSplitter()
  let text = ""
  for (const piece of [...splitter.push(content), ...splitter.finish()]) {
    if (piece.kind === "text") text += piece.text
    else reasoning.add("think", piece.text)
  }
  return text
}

/** The maxCalls limit reached. */
export const tooManyCalls = (max: number): SvirError.SvirError =>
  SvirError.make("ResponseLimit", `the answer makes more than ${max} calls (the maxCalls option)`, {
    limit: "maxCalls",
    max,
  })

/**
 * The state of one answer as its chunks arrive: text, reasoning, refusal, calls by their pieces,
 * the finish reason and the usage. Each method gives the error that ends the answer, if any;
 * events go into the array it is given.
 *
 * A function that only checks (a chunk, a choice, a delta, a finish reason) returns
 * `SvirError | undefined`: it has no value to give, so `undefined` means "carry on". A function
 * that gives a value or an error returns a `Result`.
 */
export class Assembly {
  private id: string | undefined
  private model: string | undefined
  /** D16: the index of the choice read; lenient mode takes the first one seen. */
  private choiceIndex: number | undefined
  /** Lenient mode skipped a piece of another choice (D16). */
  private skippedChoice = false
  private readonly text = Pieces.make()
  /** Whether the content said anything, `<think>` reasoning included (D14). */
  private sawContent = false
  private readonly reasoning = new ReasoningBySource()
  private readonly refusal: Array<string> = []
  /** D45: made for the first content with a `<`; before it, content is text as it came. */
  private think: ThinkSplitter | undefined
  private readonly calls: Array<CallSlot> = []
  /**
   * The call each wire index currently points at (D15: an index can be reused), and the ids in
   * use; made for the first call (D47: most answers have none).
   */
  private callAtIndex: Map<number, number> | undefined
  private ids: Set<string> | undefined
  private indexReused = false
  private finish: WireFinish | undefined
  private filtered = false
  private usage: Completion.Usage | undefined
  /** D52: made for the first logprobs the server sends (most answers have none). */
  private logprobs: Array<Completion.TokenLogprob> | undefined

  constructor(private readonly options: Options.Resolved) {}

  /** Whether a finish reason has arrived. */
  get finished(): boolean {
    return this.finish !== undefined
  }

  /** A shape this decoder does not know: Protocol in strict mode, skipped in lenient mode. */
  private unknownShape(what: string): SvirError.SvirError | undefined {
    return this.options.lenient ? undefined : notChatCompletions(what)
  }

  /**
   * D32: the id and model of an answer do not change; a chunk with another one may belong to
   * another answer. Empty ones say nothing: Azure's prompt reports and filter annotations carry
   * `""`, and they are not the stream's.
   */
  private sameAnswer(body: JsonObject): SvirError.SvirError | undefined {
    const id = body.id
    // D63: the first id is the answer's; Groq's compound systems give each step's chunks an id of
    // their own, so a change says nothing of whose answer it is.
    if (typeof id === "string" && id !== "" && this.id === undefined) this.id = id
    const model = body.model
    if (typeof model === "string" && model !== "") {
      if (this.model === undefined) this.model = model
      else if (model !== this.model && !this.options.lenient) {
        return SvirError.make("Protocol", "the model changed in the middle of the answer")
      }
    }
    return undefined
  }

  /** Reads one chunk of a stream. */
  chunk(body: unknown, out: Array<Event.Event>): SvirError.SvirError | undefined {
    if (!Json.isObject(body)) return this.unknownShape("a chunk that is not a JSON object")
    if (ServerError.isErrorBody(body)) return ServerError.fromBody(body, "in the stream")
    const changed = this.sameAnswer(body)
    if (changed !== undefined) return changed
    // D61: Groq puts the usage of a stream under `x_groq`.
    const usage = body.usage ?? (Json.isObject(body.x_groq) ? body.x_groq.usage : undefined)
    const hasUsage = usage !== undefined && usage !== null
    if (hasUsage) {
      const error = this.usageOf(usage)
      if (error !== undefined) return error
    }
    // Azure reports on the prompt before the answer; older API versions call it
    // `prompt_annotations`.
    const promptReport = body.prompt_filter_results ?? body.prompt_annotations
    if (promptReport !== undefined && promptFiltered(promptReport)) this.filtered = true
    const choices = body.choices
    const nothingElse = !hasUsage && promptReport === undefined
    if (choices === undefined || choices === null) {
      return nothingElse ? this.unknownShape("a chunk with no choices") : undefined
    }
    if (!Array.isArray(choices)) return this.unknownShape("choices that are not an array")
    if (choices.length === 0 && nothingElse && this.finish === undefined) {
      // D30: no server sends an empty chunk as part of an answer.
      return this.unknownShape("a chunk with no choice and nothing else before the finish reason")
    }
    for (let i = 0; i < choices.length; i++) {
      const error = this.choice(choices[i], out)
      if (error !== undefined) return error
    }
    return undefined
  }

  /**
   * D30, D57: usage has both counts; a later usage replaces an earlier one (Perplexity sends the
   * counts so far on every chunk).
   */
  private usageOf(usage: unknown): SvirError.SvirError | undefined {
    const read = readUsage(usage, this.options.lenient)
    if (read === "empty") return undefined
    // Lenient mode skips the usage only: the rest of the chunk can hold calls.
    if (typeof read === "string") return this.options.lenient ? undefined : unreadableUsage(read)
    this.usage = read
    return undefined
  }

  private choice(choice: unknown, out: Array<Event.Event>): SvirError.SvirError | undefined {
    if (!Json.isObject(choice)) return this.unknownShape("a choice that is not an object")
    const rawIndex = choice.index
    const index = readIndex(rawIndex, this.options.lenient)
    if (index === undefined && rawIndex !== undefined && rawIndex !== null) {
      // D27: lenient mode reads a choice with an odd index as the one asked for, so that its
      // calls are not lost.
      const error = this.unknownShape("a choice index that is not a whole number")
      if (error !== undefined) return error
    } else if (index !== undefined) {
      // D16: only one choice is asked for. Strict mode reads choice 0 only; lenient mode reads
      // the first index it sees and skips the others.
      if (!this.options.lenient) {
        if (index !== 0) {
          return SvirError.make(
            "Unsupported",
            `the server sent choice ${index}; only one choice (n = 1) is supported`,
          )
        }
      } else if (this.choiceIndex === undefined) {
        this.choiceIndex = index
      } else if (index !== this.choiceIndex) {
        this.skippedChoice = true
        return undefined
      }
    }
    const delta = choice.delta
    if (choice.content_filter_offsets !== undefined && (delta === undefined || delta === null)) {
      return this.annotation(choice, out)
    }
    if (isFiltered(choice.content_filter_results)) this.filtered = true
    if (delta !== undefined && delta !== null) {
      // Lenient mode skips the delta only: the finish reason beside it still counts (D21).
      const error = Json.isObject(delta)
        ? this.delta(delta, out)
        : this.unknownShape("a delta that is not an object")
      if (error !== undefined) return error
    }
    // D61: Moonshot puts the usage of a stream inside the choice that finishes.
    if (choice.usage !== undefined && choice.usage !== null) {
      const error = this.usageOf(choice.usage)
      if (error !== undefined) return error
    }
    const logprobs = choice.logprobs
    if (logprobs !== undefined && logprobs !== null) {
      const error = this.logprobsOf(logprobs, out)
      if (error !== undefined) return error
    }
    const finish = choice.finish_reason
    if (finish === "error") return errorFinish(choice, "in the stream")
    if (finish !== undefined && finish !== null) return this.finishWith(finish, out)
    return undefined
  }

  /** D52: the log probabilities beside a delta, kept for the Completion and given as an event. */
  private logprobsOf(logprobs: unknown, out: Array<Event.Event>): SvirError.SvirError | undefined {
    const read = readLogprobs(logprobs, this.options.lenient)
    if (Result.isFailure(read)) return read.failure
    const tokens = read.success
    this.logprobs ??= []
    if (tokens.length === 0) return undefined
    for (const token of tokens) this.logprobs.push(token)
    out.push(Event.logprobsDelta(tokens))
    return undefined
  }

  /**
   * D31: an annotation of Azure's asynchronous filter, a choice with `content_filter_offsets` and
   * no delta. It holds none of the answer: its verdict counts wherever it comes, a
   * `content_filter` finish in it is a block that ends the answer, and any other finish in it is
   * not the model's.
   */
  private annotation(choice: JsonObject, out: Array<Event.Event>): SvirError.SvirError | undefined {
    if (isFiltered(choice.content_filter_results)) this.filtered = true
    const finish = choice.finish_reason
    if (finish === undefined || finish === null || finish === "") return undefined
    if (finish !== "content_filter") {
      return SvirError.make(
        "Unsupported",
        "the server's content filter annotation carries a finish reason other than content_filter",
        { serverMessage: typeof finish === "string" ? finish : JSON.stringify(finish) },
      )
    }
    this.filtered = true
    this.finishAs("content_filter", out)
    return undefined
  }

  private delta(delta: JsonObject, out: Array<Event.Event>): SvirError.SvirError | undefined {
    for (const key in delta) {
      if (!isDeltaKey(key) && delta[key] !== null && carriesAnswer(key)) {
        // D58: no mode drops a part of the answer it cannot read; other keys say nothing of it.
        return SvirError.make(
          "Unsupported",
          "the server sent a part of the answer this codec does not read",
          { serverMessage: key },
        )
      }
    }
    // D59: content may come as typed parts, read in their order below.
    const parts = Array.isArray(delta.content) ? readContentParts(delta.content) : undefined
    if (typeof parts === "string") return unreadableContent(parts)
    const content =
      parts === undefined ? this.stringOf(delta.content, "content") : joined(parts, "text")
    if (typeof content !== "string") return content
    const ownRefusal = this.stringOf(delta.refusal, "a refusal")
    if (typeof ownRefusal !== "string") return ownRefusal
    const refusal = parts === undefined ? ownRefusal : ownRefusal + joined(parts, "refusal")
    const reasoningContent = this.stringOf(delta.reasoning_content, "reasoning")
    if (typeof reasoningContent !== "string") return reasoningContent
    const ownReasoning = this.stringOf(delta.reasoning, "reasoning")
    if (typeof ownReasoning !== "string") return ownReasoning
    const reasoning =
      ownReasoning === "" && reasoningContent === "" && delta.reasoning_details != null
        ? reasoningDetailsText(delta.reasoning_details)
        : ownReasoning
    const toolCalls = delta.tool_calls
    const hasCalls = toolCalls !== undefined && toolCalls !== null
    // D27: a call the decoder cannot read is an error in both modes; skipping it would lose it.
    if (hasCalls && !Array.isArray(toolCalls)) {
      return notChatCompletions("tool_calls that are not an array")
    }
    const thinking = parts === undefined ? "" : joined(parts, "reasoning")
    const saysSomething =
      content !== "" ||
      thinking !== "" ||
      refusal !== "" ||
      reasoningContent !== "" ||
      reasoning !== "" ||
      (hasCalls && toolCalls.length > 0)
    if (saysSomething && this.finish !== undefined) {
      // D17: the server contradicts itself about where the answer ends.
      return SvirError.make(
        "Unsupported",
        "the server sent more of the answer after its finish reason",
      )
    }
    if (
      (content !== "" && (refusal !== "" || this.refusal.length > 0)) ||
      (refusal !== "" && this.sawContent)
    ) {
      // D14: the server contradicts itself about what the answer is.
      return SvirError.make("Protocol", "the server sent both a refusal and an answer")
    }
    if (parts !== undefined) {
      for (const piece of parts) {
        if (piece.kind === "text" && piece.text !== "") this.content(piece.text, out)
        else if (piece.kind === "reasoning" && piece.text !== "") {
          this.addReasoning("thinking", piece.text, out)
        }
      }
    } else if (content !== "") this.content(content, out)
    if (reasoningContent !== "" || reasoning !== "") {
      for (const [source, text] of reasoningPieces(reasoningContent, reasoning)) {
        this.addReasoning(source, text, out)
      }
    }
    if (refusal !== "") {
      this.refusal.push(refusal)
      out.push(Event.refusalDelta(refusal))
    }
    if (hasCalls) {
      for (let i = 0; i < toolCalls.length; i++) {
        const error = this.piece(toolCalls[i], out)
        if (error !== undefined) return error
      }
    }
    return undefined
  }

  /**
   * A text field of a delta: `""` when absent or null; not a string is an unknown shape, the
   * error itself (no `Result`: this runs four times a delta, D45).
   */
  private stringOf(value: unknown, what: string): string | SvirError.SvirError {
    if (typeof value === "string") return value
    if (value === undefined || value === null) return ""
    // D59: what cannot be read is never dropped, in either mode.
    return notChatCompletions(`${what} that is not a string`)
  }

  /** D34: content goes through the `<think>` splitter, when it is on. */
  private content(content: string, out: Array<Event.Event>): void {
    this.sawContent = true
    if (this.think === undefined) {
      // A marker starts with `<`: until one comes, the splitter would give the content as it is.
      if (!this.options.splitThink || !content.includes("<")) {
        this.addText(content, out)
        return
      }
      this.think = makeThinkSplitter()
    }
    this.thinkPieces(this.think.push(content), out)
  }

  private thinkPieces(pieces: ReadonlyArray<ThinkPiece>, out: Array<Event.Event>): void {
    for (const piece of pieces) {
      if (piece.kind === "text") this.addText(piece.text, out)
      else this.addReasoning("think", piece.text, out)
    }
  }

  private addText(text: string, out: Array<Event.Event>): void {
    this.text.add(text)
    out.push(Event.textDelta(text))
  }

  private addReasoning(source: string, text: string, out: Array<Event.Event>): void {
    this.reasoning.add(source, text)
    out.push(Event.reasoningDelta(text, source))
  }

  private piece(piece: unknown, out: Array<Event.Event>): SvirError.SvirError | undefined {
    // D27: a call the decoder cannot read is an error in both modes; skipping it would lose it.
    if (!Json.isObject(piece)) return notChatCompletions("a tool call piece that is not an object")
    const fn = piece.function
    if (fn !== undefined && fn !== null && !Json.isObject(fn)) {
      return notChatCompletions("a tool call whose function is not an object")
    }
    const rawIndex = piece.index
    const wireIndex = readIndex(rawIndex, this.options.lenient)
    if (wireIndex === undefined && rawIndex !== undefined && rawIndex !== null) {
      // D27: lenient mode places a piece with an odd index as if it had none (D19).
      const error = this.unknownShape("a tool call index that is not a whole number")
      if (error !== undefined) return error
    }
    if (wireIndex !== undefined && wireIndex >= this.options.maxCalls) {
      // D27: an index at or past the limit cannot be a call of a bounded answer.
      return tooManyCalls(this.options.maxCalls)
    }
    const id = typeof piece.id === "string" && piece.id !== "" ? piece.id : undefined
    // D18: a name that is empty or null on a continuation piece says nothing.
    const rawName = fn?.name
    const name = typeof rawName === "string" && rawName !== "" ? rawName : undefined
    const rawArguments = fn?.arguments
    let fragment: string
    if (typeof rawArguments === "string") {
      fragment = rawArguments
    } else {
      const read = readArguments(rawArguments, this.options.lenient)
      if (Result.isFailure(read)) return read.failure
      fragment = read.success
    }

    let slot: number | undefined
    let adopted: string | undefined
    if (wireIndex !== undefined) {
      slot = this.callAtIndex?.get(wireIndex)
      if (slot !== undefined && id !== undefined && id !== this.calls[slot]!.id) {
        const call = this.calls[slot]!
        if (call.generated && call.fragments.empty) {
          // The id came after the first piece (a GLM host): it names the call from now on.
          this.adoptId(call, id)
          adopted = id
        } else if (name !== undefined) {
          // D15: Ollama sends parallel calls whole, all at index 0, each with a new id.
          slot = undefined
          this.indexReused = true
        } else {
          return SvirError.make(
            "Protocol",
            `the id of the call at index ${wireIndex} changed with no new name`,
          )
        }
      }
    } else {
      // D19: with no index, an id names the call; a piece with neither id nor name continues the
      // last call; a name alone starts a new call.
      if (id !== undefined) {
        const known = this.calls.findIndex((call) => call.id === id)
        slot = known === -1 ? undefined : known
      } else if (name === undefined && this.calls.length > 0) {
        slot = this.calls.length - 1
      }
    }

    if (slot === undefined) {
      if (this.calls.length >= this.options.maxCalls) return tooManyCalls(this.options.maxCalls)
      slot = this.calls.length
      const generated = id === undefined
      const call: CallSlot = {
        id: id ?? this.newId(),
        generated,
        name: name ?? "",
        fragments: Pieces.make(fragment),
        wireIndex,
      }
      // D23: an id another call already has is kept; the encoder answers such calls in order.
      this.calls.push(call)
      this.ids ??= new Set()
      this.ids.add(call.id)
      if (wireIndex !== undefined) {
        this.callAtIndex ??= new Map()
        this.callAtIndex.set(wireIndex, slot)
      }
      out.push(
        name === undefined
          ? Event.toolCallDelta({ index: slot, id: call.id, arguments: fragment })
          : Event.toolCallDelta({ index: slot, id: call.id, name, arguments: fragment }),
      )
      return undefined
    }

    const call = this.calls[slot]!
    let nameAdded: string | undefined
    if (name !== undefined && name !== call.name) {
      // D18: a name split over pieces is joined; the same name repeated is said once.
      call.name += name
      nameAdded = name
    }
    call.fragments.add(fragment)
    if (adopted === undefined && nameAdded === undefined) {
      if (fragment !== "") out.push({ _tag: "ToolCallDelta", index: slot, arguments: fragment })
    } else {
      out.push(
        Event.toolCallDelta({
          index: slot,
          ...(adopted === undefined ? {} : { id: adopted }),
          ...(nameAdded === undefined ? {} : { name: nameAdded }),
          arguments: fragment,
        }),
      )
    }
    return undefined
  }

  private adoptId(call: CallSlot, id: string): void {
    this.ids?.delete(call.id)
    call.id = id
    call.generated = false
    this.ids?.add(id)
  }

  private newId(): string {
    return Options.freshCallId(this.options.makeCallId, (id) => this.ids?.has(id) === true)
  }

  private finishWith(finish: unknown, out: Array<Event.Event>): SvirError.SvirError | undefined {
    if (typeof finish !== "string") return this.unknownShape("a finish reason that is not a string")
    // Some proxies send "" on every chunk before the last: no finish reason yet.
    if (finish === "") return undefined
    const read = readFinish(finish)
    if (read === undefined) return unknownFinish(finish)
    this.finishAs(read, out)
    return undefined
  }

  /** The first finish reason is the answer's; a repeated one changes nothing (D17). */
  private finishAs(finish: WireFinish, out: Array<Event.Event>): void {
    if (this.finish !== undefined) return
    this.finish = finish
    // D34: a tail held back as a possible marker is what it looked like.
    if (this.think !== undefined) this.thinkPieces(this.think.finish(), out)
  }

  /**
   * The calls, in the order they are released. Only answers with calls come here (D45: the
   * closures below cost each answer that has none). A gap in the indices is no lost call (D56).
   */
  private callsInOrder(): Array<ToolCall.ToolCall> {
    const calls: Array<ToolCall.ToolCall> = []
    // D24: calls are released in the order of their indices; calls that reuse an index, or that
    // have none, keep the order they appeared in.
    const slots =
      !this.indexReused && this.calls.every((slot) => slot.wireIndex !== undefined)
        ? [...this.calls].sort((a, b) => a.wireIndex! - b.wireIndex!)
        : this.calls
    for (const slot of slots) {
      calls.push({ id: slot.id, name: slot.name, arguments: slot.fragments.join() })
    }
    return calls
  }

  /** The whole answer once the stream says it is done, or why it is not one. */
  complete(
    notes?: ReadonlyArray<string>,
  ): Result.Result<Completion.Completion, SvirError.SvirError> {
    // D60: with [DONE] and no finish reason the server still ended the answer on purpose; calls
    // go out only when their arguments are whole, since nothing else says they were finished.
    const calls = this.calls.length === 0 ? [] : this.callsInOrder()
    if (this.finish === undefined && this.skippedChoice) {
      // D16 reads the first choice; with no finish reason nothing says it is the whole answer.
      return Result.fail(
        SvirError.make(
          "Unsupported",
          "the stream ended with [DONE] before a finish reason, and held more than one choice",
        ),
      )
    }
    if (this.finish === undefined && calls.some((call) => !wholeArguments(call.arguments))) {
      return Result.fail(
        SvirError.make(
          "TruncatedStream",
          "the stream ended with [DONE] before a finish reason, with a call's arguments cut short",
        ),
      )
    }
    return settle({
      id: this.id,
      model: this.model,
      text: this.text.join(),
      reasoning: this.reasoning,
      refusal: this.refusal.join(""),
      calls,
      finish: this.finish,
      filtered: this.filtered,
      usage: this.usage,
      logprobs: this.logprobs,
      notes,
    })
  }
}

/** What a whole answer read from the wire holds before its calls are released. */
export interface Draft {
  readonly id: string | undefined
  readonly model: string | undefined
  readonly text: string
  readonly reasoning: ReasoningBySource
  readonly refusal: string
  readonly calls: ReadonlyArray<ToolCall.ToolCall>
  /** Undefined when the server sent none: the finish is read from what the answer holds (D60). */
  readonly finish: WireFinish | undefined
  readonly filtered: boolean
  readonly usage: Completion.Usage | undefined
  readonly logprobs: ReadonlyArray<Completion.TokenLogprob> | undefined
  readonly notes?: ReadonlyArray<string> | undefined
}

const contradiction = (what: string): Result.Result<never, SvirError.SvirError> =>
  Result.fail(SvirError.make("Protocol", `the server sent ${what}`))

/**
 * Decides the finish reason and which calls are released. Errors in both modes: a refusal with an
 * answer or with calls (D14), calls in an answer the filter stopped (D21), two calls with one id
 * (D23), `tool_calls` with no call (D28). Then: a filter's block is `content_filter` (D21, D31),
 * a refusal is `refusal` even when `length` cut it (D14), calls cut by `length` are not released
 * (D21), and calls are `tool_calls` whatever the finish said (`stop` for a named tool: vLLM,
 * OpenAI).
 */
export const settle = (draft: Draft): Result.Result<Completion.Completion, SvirError.SvirError> => {
  const filtered = draft.filtered || draft.finish === "content_filter"
  if (draft.refusal !== "" && draft.text !== "")
    return contradiction("both a refusal and an answer")
  if (draft.calls.length > 0) {
    if (filtered) return contradiction("calls in an answer its content filter stopped")
    if (draft.refusal !== "") return contradiction("calls with a refusal")
    const ids = new Set<string>()
    for (const call of draft.calls) {
      if (ids.has(call.id)) return contradiction("two calls with the same id")
      ids.add(call.id)
    }
  }
  let finish: Completion.FinishReason
  let calls: ReadonlyArray<ToolCall.ToolCall> = []
  if (filtered) {
    finish = "content_filter"
  } else if (draft.refusal !== "") {
    finish = "refusal"
  } else if (draft.finish === "length") {
    finish = "length"
  } else if (draft.calls.length > 0) {
    for (const call of draft.calls) {
      if (call.name === "") return contradiction("a call without a name")
    }
    finish = "tool_calls"
    calls = draft.calls
  } else if (draft.finish === "tool_calls") {
    // D28: the server says the model called, and sent no call to run.
    return contradiction("a tool_calls finish with no call")
  } else {
    finish = "stop"
  }
  // D47: optional fields are set one by one; a spread of each cost a small answer 0.1 µs.
  const completion: Mutable<Completion.Completion> = {
    text: draft.text,
    reasoning: draft.reasoning.all.join(""),
    reasoningBySource: draft.reasoning.joined(),
    refusal: draft.refusal,
    calls,
    finish,
  }
  if (draft.id !== undefined) completion.id = draft.id
  if (draft.model !== undefined) completion.model = draft.model
  if (draft.usage !== undefined) completion.usage = draft.usage
  if (draft.logprobs !== undefined) completion.logprobs = draft.logprobs
  const notes =
    draft.finish === undefined
      ? [
          `the server sent no finish reason; the answer's is read as ${finish}`,
          ...(draft.notes ?? []),
        ]
      : draft.notes
  if (notes !== undefined && notes.length > 0) completion.notes = notes
  return Result.succeed(completion)
}
