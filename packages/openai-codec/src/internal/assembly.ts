import type { ToolCall } from "@svir/core"
import { Completion, Event, Json, SvirError } from "@svir/core"
import { Result } from "effect"
import * as Options from "./options.js"
import * as ServerError from "./serverError.js"

type JsonObject = { readonly [key: string]: unknown }

/** A call being assembled from its pieces. */
interface CallSlot {
  id: string
  /** Whether the id was generated because the server sent none (D11). */
  generated: boolean
  name: string
  readonly fragments: Array<string>
  /** The index the server gave the call's first piece, if any. */
  readonly wireIndex: number | undefined
}

/** A shape that is not Chat Completions: a Protocol error. */
export const notChatCompletions = (what: string): SvirError.SvirError =>
  SvirError.make("Protocol", `the server sent ${what}, which is not Chat Completions`)

/** D25: JSON nested deeper than `Json.maxDepth` is refused before it is read. */
export const tooDeep = (what: string): SvirError.SvirError =>
  SvirError.make(
    "Protocol",
    `the server sent ${what} whose JSON nests deeper than ${Json.maxDepth} levels`,
  )

const wholeNumber = /^\d{1,15}$/

/**
 * D27: an index (of a choice or a call) is a whole number from 0; lenient mode also reads its
 * digits as a string ("1"). `undefined` when absent or not an index.
 */
export const readIndex = (value: unknown, lenient: boolean): number | undefined => {
  if (typeof value === "number") return Number.isInteger(value) && value >= 0 ? value : undefined
  if (lenient && typeof value === "string" && wholeNumber.test(value)) return Number(value)
  return undefined
}

/** Whether any content-filter result in an Azure annotation says it filtered the text. */
export const isFiltered = (results: unknown): boolean => {
  if (!Json.isObject(results)) return false
  for (const key in results) {
    const result = results[key]
    if (Json.isObject(result) && result.filtered === true) return true
  }
  return false
}

/** Whether an Azure prompt report says a filter stopped the prompt. */
export const promptFiltered = (reports: unknown): boolean =>
  Array.isArray(reports) &&
  reports.some((report) => Json.isObject(report) && isFiltered(report.content_filter_results))

/** Reads a `usage` object; `undefined` when it is not one. */
export const readUsage = (usage: unknown): Completion.Usage | undefined => {
  if (!Json.isObject(usage)) return undefined
  const input = typeof usage.prompt_tokens === "number" ? usage.prompt_tokens : 0
  const output = typeof usage.completion_tokens === "number" ? usage.completion_tokens : 0
  const total = typeof usage.total_tokens === "number" ? usage.total_tokens : input + output
  const details = usage.completion_tokens_details
  const reasoning =
    Json.isObject(details) && typeof details.reasoning_tokens === "number"
      ? details.reasoning_tokens
      : undefined
  return reasoning === undefined ? { input, output, total } : { input, output, total, reasoning }
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

/** A wire finish reason, `undefined` when unknown. `function_call` is the legacy `tool_calls`. */
export const readFinish = (finish: string): WireFinish | undefined => {
  switch (finish) {
    case "stop":
    case "length":
    case "tool_calls":
    case "content_filter":
      return finish
    case "function_call":
      return "tool_calls"
    default:
      return undefined
  }
}

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
  private readonly text: Array<string> = []
  private readonly reasoning: Array<string> = []
  private readonly refusal: Array<string> = []
  private readonly calls: Array<CallSlot> = []
  /** The call each wire index currently points at (D15: an index can be reused). */
  private readonly callAtIndex = new Map<number, number>()
  private readonly ids = new Set<string>()
  private indexReused = false
  private finish: WireFinish | undefined
  private filtered = false
  private usage: Completion.Usage | undefined

  constructor(private readonly options: Options.Resolved) {}

  /** Whether a finish reason has arrived. */
  get finished(): boolean {
    return this.finish !== undefined
  }

  /** A shape this decoder does not know: Protocol in strict mode, skipped in lenient mode. */
  private unknownShape(what: string): SvirError.SvirError | undefined {
    return this.options.lenient ? undefined : notChatCompletions(what)
  }

  /** Reads one chunk of a stream. */
  chunk(body: unknown, out: Array<Event.Event>): SvirError.SvirError | undefined {
    if (!Json.isObject(body)) return this.unknownShape("a chunk that is not a JSON object")
    if (ServerError.isErrorBody(body)) return ServerError.fromBody(body, "in the stream")
    if (this.id === undefined && typeof body.id === "string" && body.id !== "") this.id = body.id
    if (this.model === undefined && typeof body.model === "string" && body.model !== "") {
      this.model = body.model
    }
    const usage = body.usage
    if (usage !== undefined && usage !== null) {
      const read = readUsage(usage)
      // Lenient mode skips the usage only: the rest of the chunk can hold calls.
      if (read === undefined) {
        const error = this.unknownShape("a usage that is not an object")
        if (error !== undefined) return error
      } else {
        this.usage = read
      }
    }
    const promptFilter = body.prompt_filter_results
    if (promptFilter !== undefined && promptFiltered(promptFilter)) this.filtered = true
    const choices = body.choices
    if (choices === undefined || choices === null) {
      if ((usage === undefined || usage === null) && promptFilter === undefined) {
        return this.unknownShape("a chunk with no choices")
      }
      return undefined
    }
    if (!Array.isArray(choices)) return this.unknownShape("choices that are not an array")
    for (let i = 0; i < choices.length; i++) {
      const error = this.choice(choices[i], out)
      if (error !== undefined) return error
    }
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
    } else if (index !== undefined && index !== 0) {
      // D16: only one choice is asked for; another one cannot be told apart from the first.
      return this.options.lenient
        ? undefined
        : SvirError.make(
            "Unsupported",
            `the server sent choice ${index}; only one choice (n = 1) is supported`,
          )
    }
    if (choice.content_filter_results !== undefined && isFiltered(choice.content_filter_results)) {
      this.filtered = true
    }
    const delta = choice.delta
    if (delta !== undefined && delta !== null) {
      // Lenient mode skips the delta only: the finish reason beside it still counts (D21).
      const error = Json.isObject(delta)
        ? this.delta(delta, out)
        : this.unknownShape("a delta that is not an object")
      if (error !== undefined) return error
    }
    const finish = choice.finish_reason
    if (finish !== undefined && finish !== null) return this.finishWith(finish)
    return undefined
  }

  private afterFinish(): SvirError.SvirError | undefined {
    // D17: text or calls after the finish reason are not part of a finished answer.
    return this.options.lenient
      ? undefined
      : SvirError.make("Protocol", "the server sent more of the answer after its finish reason")
  }

  private delta(delta: JsonObject, out: Array<Event.Event>): SvirError.SvirError | undefined {
    const content = this.piecesOf(delta.content, this.text, Event.textDelta, "content", out)
    if (content !== undefined) return content
    // D13: mlx-vlm sends the same text under both keys; reasoning_content is read first.
    const reasoningContent = delta.reasoning_content
    const reasoning = this.piecesOf(
      typeof reasoningContent === "string" && reasoningContent !== ""
        ? reasoningContent
        : delta.reasoning,
      this.reasoning,
      Event.reasoningDelta,
      "reasoning",
      out,
    )
    if (reasoning !== undefined) return reasoning
    const refusal = this.piecesOf(delta.refusal, this.refusal, Event.refusalDelta, "a refusal", out)
    if (refusal !== undefined) return refusal
    const toolCalls = delta.tool_calls
    if (toolCalls !== undefined && toolCalls !== null) {
      // D27: a call the decoder cannot read is an error in both modes; skipping it would lose it.
      if (!Array.isArray(toolCalls)) return notChatCompletions("tool_calls that are not an array")
      if (toolCalls.length > 0 && this.finish !== undefined) {
        const error = this.afterFinish()
        if (error !== undefined) return error
      }
      for (let i = 0; i < toolCalls.length; i++) {
        const error = this.piece(toolCalls[i], out)
        if (error !== undefined) return error
      }
    }
    return undefined
  }

  /** Adds a piece of text, reasoning or refusal, and gives its event. */
  private piecesOf(
    value: unknown,
    pieces: Array<string>,
    event: (text: string) => Event.Event,
    what: string,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    if (typeof value !== "string") {
      return value === undefined || value === null
        ? undefined
        : this.unknownShape(`${what} that is not a string`)
    }
    if (value === "") return undefined
    if (this.finish !== undefined) {
      const error = this.afterFinish()
      if (error !== undefined) return error
    }
    pieces.push(value)
    out.push(event(value))
    return undefined
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
    const id = typeof piece.id === "string" && piece.id !== "" ? piece.id : undefined
    // D18: a name that is empty or null on a continuation piece says nothing.
    const rawName = fn?.name
    const name = typeof rawName === "string" && rawName !== "" ? rawName : undefined
    const read = readArguments(fn?.arguments, this.options.lenient)
    if (Result.isFailure(read)) return read.failure
    const fragment = read.success

    let slot: number | undefined
    let adopted: string | undefined
    if (wireIndex !== undefined) {
      slot = this.callAtIndex.get(wireIndex)
      if (slot !== undefined && id !== undefined && id !== this.calls[slot]!.id) {
        const call = this.calls[slot]!
        if (call.generated && call.fragments.length === 0) {
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
      if (this.calls.length >= this.options.maxCalls) {
        return SvirError.make(
          "ResponseLimit",
          `the answer makes more than ${this.options.maxCalls} calls (the maxCalls option)`,
          { limit: "maxCalls", max: this.options.maxCalls },
        )
      }
      slot = this.calls.length
      const generated = id === undefined
      const call: CallSlot = {
        id: id ?? this.newId(),
        generated,
        name: name ?? "",
        fragments: fragment === "" ? [] : [fragment],
        wireIndex,
      }
      // D23: an id another call already has is kept; the encoder answers such calls in order.
      this.calls.push(call)
      this.ids.add(call.id)
      if (wireIndex !== undefined) this.callAtIndex.set(wireIndex, slot)
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
    if (fragment !== "") call.fragments.push(fragment)
    if (fragment !== "" || nameAdded !== undefined || adopted !== undefined) {
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
    this.ids.delete(call.id)
    call.id = id
    call.generated = false
    this.ids.add(id)
  }

  private newId(): string {
    return Options.freshCallId(this.options.makeCallId, (id) => this.ids.has(id))
  }

  private finishWith(finish: unknown): SvirError.SvirError | undefined {
    if (typeof finish !== "string") return this.unknownShape("a finish reason that is not a string")
    // Some proxies send "" on every chunk before the last: no finish reason yet.
    if (finish === "") return undefined
    const read = readFinish(finish)
    if (read === undefined && !this.options.lenient) {
      return SvirError.make("Protocol", "the server sent an unknown finish reason", {
        serverMessage: finish,
      })
    }
    if (this.finish === undefined) this.finish = read ?? "stop"
    return undefined
  }

  /** The whole answer once the stream says it is done, or why it is not one. */
  complete(): Result.Result<Completion.Completion, SvirError.SvirError> {
    if (this.finish === undefined && !this.options.lenient) {
      return Result.fail(
        SvirError.make("TruncatedStream", "the stream ended with [DONE] before a finish reason"),
      )
    }
    const calls: Array<ToolCall.ToolCall> = []
    // D24: calls are released in the order of their indices; calls that reuse an index, or that
    // have none, keep the order they appeared in.
    const slots =
      !this.indexReused && this.calls.every((slot) => slot.wireIndex !== undefined)
        ? [...this.calls].sort((a, b) => a.wireIndex! - b.wireIndex!)
        : this.calls
    for (const slot of slots) {
      calls.push({ id: slot.id, name: slot.name, arguments: slot.fragments.join("") })
    }
    return settle({
      id: this.id,
      model: this.model,
      text: this.text.join(""),
      reasoning: this.reasoning.join(""),
      refusal: this.refusal.join(""),
      calls,
      finish: this.finish ?? "stop",
      filtered: this.filtered,
      usage: this.usage,
    })
  }
}

/** What a whole answer read from the wire holds before its calls are released. */
export interface Draft {
  readonly id: string | undefined
  readonly model: string | undefined
  readonly text: string
  readonly reasoning: string
  readonly refusal: string
  readonly calls: ReadonlyArray<ToolCall.ToolCall>
  readonly finish: WireFinish
  readonly filtered: boolean
  readonly usage: Completion.Usage | undefined
}

/**
 * Decides the finish reason and which calls are released (D14, D21): none from an answer a
 * filter stopped, cut off by `length`, or that refused; `stop` with calls means the calls were
 * made (vLLM, OpenAI and Gemini finish a forced call with `stop`); `tool_calls` with no call is
 * an error (D28).
 */
export const settle = (draft: Draft): Result.Result<Completion.Completion, SvirError.SvirError> => {
  let finish: Completion.FinishReason
  let calls: ReadonlyArray<ToolCall.ToolCall> = []
  if (draft.filtered || draft.finish === "content_filter") {
    finish = "content_filter"
  } else if (draft.finish === "length") {
    finish = "length"
  } else if (draft.refusal !== "") {
    finish = "refusal"
  } else if (draft.calls.length > 0) {
    for (const call of draft.calls) {
      if (call.name === "") {
        return Result.fail(SvirError.make("Protocol", "the server sent a call without a name"))
      }
    }
    finish = "tool_calls"
    calls = draft.calls
  } else if (draft.finish === "tool_calls") {
    // D28: the server says the model called, and sent no call to run.
    return Result.fail(
      SvirError.make("Protocol", "the server finished the answer with tool_calls but sent no call"),
    )
  } else {
    finish = "stop"
  }
  const fields: Partial<Completion.Completion> & Pick<Completion.Completion, "finish"> = {
    text: draft.text,
    reasoning: draft.reasoning,
    refusal: draft.refusal,
    calls,
    finish,
  }
  return Result.succeed(
    Completion.make({
      ...fields,
      ...(draft.id === undefined ? {} : { id: draft.id }),
      ...(draft.model === undefined ? {} : { model: draft.model }),
      ...(draft.usage === undefined ? {} : { usage: draft.usage }),
    }),
  )
}
