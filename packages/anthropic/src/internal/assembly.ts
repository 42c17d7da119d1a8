import type { Completion, ToolCall } from "@svir/core"
import { Event, Json, type JsonEvents, Pieces, Received, SvirError } from "@svir/core"
import * as Result from "effect/Result"
import * as Thinking from "../Thinking.js"
import type * as Options from "./options.js"
import * as ServerError from "./serverError.js"

type JsonObject = { readonly [key: string]: unknown }
type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** A shape that is not Anthropic Messages: a Protocol error, in both modes. */
/** The wire's name, in the errors of what is not of it. */
export const wire = "Anthropic Messages"

const notMessages = (what: string): SvirError.SvirError => Received.foreign(what, wire)

const tooManyCalls = (max: number): SvirError.SvirError =>
  SvirError.make("ResponseLimit", `the answer has more than ${max} calls (the maxCalls option)`, {
    limit: "maxCalls",
    max,
  })

/** A call being assembled: its ordinal among the calls is the `index` of its events. */
interface Call {
  readonly ordinal: number
  readonly id: string
  readonly name: string
  readonly fragments: Pieces.Pieces
  /** The `input` of the block's start, as JSON text: the input when no partial JSON came (D11). */
  readonly startInput: string
}

/** A thinking block being assembled; it becomes a `Thinking.Block` when the answer completes. */
interface ThinkingSlot {
  readonly kind: "thinking"
  readonly text: Pieces.Pieces
  signature: string
}

type Slot =
  | { readonly kind: "text" }
  | ThinkingSlot
  | { readonly kind: "redacted"; readonly data: string }
  | { readonly kind: "tool"; readonly call: Call }
  /** D13: a block lenient mode leaves out (its deltas are read and dropped). */
  | { readonly kind: "skipped" }

interface Block {
  readonly slot: Slot
  stopped: boolean
}

/** The stop reasons of the API, each with the finish reason it maps to (D12). */
type StopReason =
  | "end_turn"
  | "stop_sequence"
  | "tool_use"
  | "max_tokens"
  | "model_context_window_exceeded"
  | "refusal"
  | "pause_turn"

const isStopReason = (value: string): value is StopReason => {
  switch (value) {
    case "end_turn":
    case "stop_sequence":
    case "tool_use":
    case "max_tokens":
    case "model_context_window_exceeded":
    case "refusal":
    case "pause_turn":
      return true
    default:
      return false
  }
}

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0

/** A block index: a whole number from 0. */
const isIndex = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0

/**
 * The state machine of one answer, fed the Messages events one at a time (each one's JSON data,
 * already parsed). It gives the events of the codec as they come and the Completion at the end.
 * A whole (non-streamed) answer is read by the same machine: its body is a `message_start`
 * that holds all the content (D10). A stream is read through core's `JsonEvents` decoder: the
 * SSE event name is not read but for `error` (D16), as every event's data says its type, the
 * streaming page says, and gateways that drop the `event:` lines (vercel/ai's recordings are
 * replayed so) still give the whole answer.
 */
export class Assembly implements JsonEvents.Answer {
  /** `message_start` was read. */
  private started = false
  private id: string | undefined
  private model: string | undefined
  private readonly blocks = new Map<number, Block>()
  /** The last block looked up: most deltas are for the block of the delta before. */
  private lastIndex = -1
  private lastBlock: Block | undefined
  private readonly text = Pieces.make()
  private readonly thinking = Pieces.make()
  /** Thinking and redacted thinking blocks in the order they started (D9). */
  private readonly thinkingSlots: Array<
    ThinkingSlot | { readonly kind: "redacted"; readonly data: string }
  > = []
  private readonly calls: Array<Call> = []
  private stopReason: StopReason | undefined
  private refusalText = ""
  private notes: Array<string> | undefined
  // Usage, as the last event that said each count gave it (D15: the counts are cumulative).
  private inputTokens: number | undefined
  private outputTokens: number | undefined
  private cacheCreation: number | undefined
  private cacheRead: number | undefined
  private thinkingTokens: number | undefined
  private usageProblem = false

  constructor(private readonly options: Options.Resolved) {}

  /**
   * The end of a stream before `message_stop` (D10, after the last event's data, read when it
   * lacks its blank line): lenient mode takes an answer whose stop reason came; otherwise the
   * answer is cut, and its calls are not released (D1).
   */
  unfinished(): Result.Result<Completion.Completion, SvirError.SvirError> {
    return this.stopped && this.options.lenient
      ? this.complete("the stream ended after the stop reason, without message_stop")
      : Result.fail(SvirError.make("TruncatedStream", "the stream ended before message_stop"))
  }

  /** D14: an `error` event whose data is not JSON: its text is the server's words. */
  errorOfText(text: string): SvirError.SvirError {
    return ServerError.fromText(text)
  }

  /** D14: `event: error` with a body that does not say so is an error all the same. */
  errorOfBody(body: { readonly [key: string]: unknown }): SvirError.SvirError {
    return ServerError.fromBody(body, "in the stream")
  }

  get hasStarted(): boolean {
    return this.started
  }

  /** Whether a stop reason was read: the rest of the answer can only be `message_stop`. */
  get stopped(): boolean {
    return this.stopReason !== undefined
  }

  private note(text: string): void {
    this.notes ??= []
    if (!this.notes.includes(text)) this.notes.push(text)
  }

  /**
   * D13: what strict mode refuses and lenient mode leaves out with a note. Strict mode gives the
   * error; lenient mode notes it and gives nothing.
   */
  private refuse(what: string, note: string): SvirError.SvirError | undefined {
    if (!this.options.lenient) {
      return SvirError.make(
        "Unsupported",
        `the server sent ${what}, which this codec cannot represent (lenient mode leaves it out, with a note)`,
      )
    }
    this.note(note)
    return undefined
  }

  /**
   * One event: `body` is its parsed data. Gives the error that ends the answer, if one does;
   * `"completed"` for `message_stop`.
   */
  event(data: unknown, out: Array<Event.Event>): SvirError.SvirError | "completed" | undefined {
    // Plain checks, not `Json.isObject` through the namespace: this runs for every event.
    if (typeof data !== "object" || data === null || Array.isArray(data)) {
      return notMessages("an event that is not a JSON object")
    }
    const body = data as JsonObject
    switch (body.type) {
      case "content_block_delta":
        return this.delta(body, out)
      case "content_block_start":
        return this.blockStart(body, out)
      case "content_block_stop":
        return this.blockStop(body, out)
      case "message_delta":
        return this.messageDelta(body, out)
      case "message_start":
        return this.messageStart(body, out)
      case "message_stop":
        return this.started ? "completed" : notMessages("message_stop before message_start")
      case "ping":
        return undefined
      case "error":
        return ServerError.fromBody(body, "in the stream")
      default:
        // D16: "we may add new event types, and your code should handle unknown event types
        // gracefully" (the streaming page); an event type says nothing of the content.
        if (typeof body.type !== "string") return notMessages("an event with no type")
        return undefined
    }
  }

  private messageStart(body: JsonObject, out: Array<Event.Event>): SvirError.SvirError | undefined {
    const message = body.message
    if (!Json.isObject(message)) return notMessages("a message_start with no message")
    const id = typeof message.id === "string" && message.id !== "" ? message.id : undefined
    if (this.started) {
      // D18: the same message_start again before any content (vercel/ai's
      // duplicate-message-start) changes nothing; another message in the middle of this one
      // (spliced-message-start) is an error.
      if (id === this.id && this.blocks.size === 0) return undefined
      return notMessages("a second message_start in the middle of the answer")
    }
    this.started = true
    this.id = id
    if (typeof message.model === "string" && message.model !== "") this.model = message.model
    if (message.type !== undefined && message.type !== "message") {
      return notMessages("a message whose type is not message")
    }
    if (message.role !== undefined && message.role !== "assistant") {
      return notMessages("a message whose role is not assistant")
    }
    const usage = this.usage(message.usage)
    if (usage !== undefined) return usage
    // D10: a message may start with content (a whole answer does, and so does a stream that
    // replays earlier content); each block is read as a start and a stop.
    const content = message.content
    if (content !== undefined && content !== null) {
      if (!Array.isArray(content)) return notMessages("a message whose content is not an array")
      for (let index = 0; index < content.length; index++) {
        const error = this.startBlock(index, content[index], out) ?? this.stopBlock(index, out)
        if (error !== undefined) return error
      }
    }
    return this.stop(message.stop_reason, message.stop_details, out)
  }

  private messageDelta(body: JsonObject, out: Array<Event.Event>): SvirError.SvirError | undefined {
    if (!this.started) return notMessages("a message_delta before message_start")
    const delta = body.delta
    if (delta !== undefined && delta !== null && !Json.isObject(delta)) {
      return notMessages("a message_delta whose delta is not an object")
    }
    const usage = this.usage(body.usage)
    if (usage !== undefined) return usage
    return delta === undefined || delta === null
      ? undefined
      : this.stop(delta.stop_reason, delta.stop_details, out)
  }

  /** D12: a stop reason, and a refusal's explanation, which is the refusal's text. */
  private stop(
    reason: unknown,
    details: unknown,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    if (reason === undefined || reason === null) return undefined
    if (typeof reason !== "string") return notMessages("a stop reason that is not a string")
    if (!isStopReason(reason)) {
      // D12: a stop reason this codec does not know may mean another answer.
      return SvirError.make(
        "Unsupported",
        "the server sent a stop reason this codec does not know",
        {
          serverMessage: reason,
        },
      )
    }
    if (this.stopReason !== undefined) {
      return reason === this.stopReason
        ? undefined
        : notMessages("a second stop reason that is not the first")
    }
    this.stopReason = reason
    if (reason === "refusal" && Json.isObject(details) && typeof details.explanation === "string") {
      this.refusalText = details.explanation
      if (details.explanation !== "") out.push(Event.refusalDelta(details.explanation))
    }
    return undefined
  }

  /**
   * D15: a usage object; each count it gives replaces the one before (the counts of
   * `message_delta` are cumulative). A count that is not one is a Protocol error in strict mode;
   * lenient mode leaves the usage out.
   */
  private usage(usage: unknown): SvirError.SvirError | undefined {
    if (usage === undefined || usage === null) return undefined
    if (!Json.isObject(usage)) return this.badUsage()
    const { input_tokens: input, output_tokens: output } = usage
    const creation = usage.cache_creation_input_tokens
    const read = usage.cache_read_input_tokens
    for (const count of [input, output, creation, read]) {
      if (count !== undefined && count !== null && !isCount(count)) return this.badUsage()
    }
    if (isCount(input)) this.inputTokens = input
    if (isCount(output)) this.outputTokens = output
    if (isCount(creation)) this.cacheCreation = creation
    if (isCount(read)) this.cacheRead = read
    const details = usage.output_tokens_details
    if (Json.isObject(details)) {
      const thinking = details.thinking_tokens
      if (isCount(thinking)) this.thinkingTokens = thinking
      else if (thinking !== undefined && thinking !== null) return this.badUsage()
    }
    return undefined
  }

  private badUsage(): SvirError.SvirError | undefined {
    if (this.options.lenient) {
      this.usageProblem = true
      return undefined
    }
    return SvirError.make(
      "Protocol",
      "the server sent a usage whose counts are not counts of tokens (lenient mode leaves the usage out)",
    )
  }

  private blockOf(index: unknown): Block | undefined {
    if (index === this.lastIndex) return this.lastBlock
    if (!isIndex(index)) return undefined
    const block = this.blocks.get(index)
    this.lastIndex = index
    this.lastBlock = block
    return block
  }

  private blockStart(body: JsonObject, out: Array<Event.Event>): SvirError.SvirError | undefined {
    if (!this.started) return notMessages("a content block before message_start")
    const index = body.index
    if (!isIndex(index)) return notMessages("a content block whose index is not a whole number")
    return this.startBlock(index, body.content_block, out)
  }

  private startBlock(
    index: number,
    block: unknown,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    if (this.stopReason !== undefined) {
      // D17 of openai-codec, here too: nothing of the answer comes after its stop reason.
      return notMessages("a content block after the stop reason")
    }
    if (this.blocks.has(index)) return notMessages(`a second content block at index ${index}`)
    if (!Json.isObject(block)) return notMessages("a content block that is not an object")
    let slot: Slot
    switch (block.type) {
      case "text": {
        const text = block.text ?? ""
        if (typeof text !== "string") return notMessages("a text block whose text is not a string")
        const cited = this.citations(block.citations)
        if (cited !== undefined) return cited
        this.addText(text, out)
        slot = textSlot
        break
      }
      case "thinking": {
        const text = block.thinking ?? ""
        const signature = block.signature ?? ""
        if (typeof text !== "string" || typeof signature !== "string") {
          return notMessages("a thinking block whose thinking or signature is not a string")
        }
        const thinking: ThinkingSlot = { kind: "thinking", text: Pieces.make(), signature }
        this.thinkingSlots.push(thinking)
        this.addThinking(thinking, text, out)
        slot = thinking
        break
      }
      case "redacted_thinking": {
        if (typeof block.data !== "string")
          return notMessages("a redacted_thinking block with no data")
        const redacted = { kind: "redacted", data: block.data } as const
        this.thinkingSlots.push(redacted)
        slot = redacted
        break
      }
      case "tool_use": {
        const { id, name, input } = block
        if (typeof id !== "string" || id === "") return notMessages("a tool_use block with no id")
        if (typeof name !== "string")
          return notMessages("a tool_use block whose name is not a string")
        if (this.calls.length >= this.options.maxCalls) return tooManyCalls(this.options.maxCalls)
        if (input !== undefined && !Json.isObject(input)) {
          return notMessages("a tool_use block whose input is not an object")
        }
        const call: Call = {
          ordinal: this.calls.length,
          id,
          name,
          fragments: Pieces.make(),
          // The block was read by Json.parse, so JSON.stringify can write its input.
          startInput: input === undefined ? "" : JSON.stringify(input),
        }
        this.calls.push(call)
        out.push(Event.toolCallDelta({ index: call.ordinal, id, name, arguments: "" }))
        slot = { kind: "tool", call }
        break
      }
      case "fallback": {
        // D13: the server answered with another model than the one asked for (vercel/ai's
        // anthropic-fallback): no content, said in a note.
        const to =
          Json.isObject(block.to) && typeof block.to.model === "string" ? block.to.model : undefined
        this.note(
          to === undefined
            ? "the server answered with a fallback model"
            : `the server answered with the fallback model ${to}`,
        )
        slot = skippedSlot
        break
      }
      default: {
        // D13: a server tool's blocks (server_tool_use, web_search_tool_result, ...) and any
        // block type this codec does not know hold content it cannot represent.
        const type = typeof block.type === "string" ? block.type : "untyped"
        const error = this.refuse(
          `a content block of type ${type}`,
          `a content block of type ${type} was left out`,
        )
        if (error !== undefined) return error
        slot = skippedSlot
      }
    }
    const entry: Block = { slot, stopped: false }
    this.blocks.set(index, entry)
    if (index === this.lastIndex) this.lastBlock = entry
    return undefined
  }

  /** D13: citations cannot be represented: refused in strict mode, left out in lenient mode. */
  private citations(citations: unknown): SvirError.SvirError | undefined {
    if (citations === undefined || citations === null) return undefined
    if (Array.isArray(citations) && citations.length === 0) return undefined
    return this.refuse("citations", "the citations of the text were left out")
  }

  private blockStop(body: JsonObject, out: Array<Event.Event>): SvirError.SvirError | undefined {
    if (!this.started) return notMessages("a content_block_stop before message_start")
    const index = body.index
    if (!isIndex(index))
      return notMessages("a content_block_stop whose index is not a whole number")
    return this.stopBlock(index, out)
  }

  private stopBlock(index: number, out: Array<Event.Event>): SvirError.SvirError | undefined {
    const block = this.blockOf(index)
    if (block === undefined)
      return notMessages(`a content_block_stop for block ${index}, never started`)
    if (block.stopped) return notMessages(`a second content_block_stop for block ${index}`)
    block.stopped = true
    const slot = block.slot
    if (slot.kind === "tool" && slot.call.fragments.empty && slot.call.startInput !== "") {
      // D11: no partial JSON came: the input is the one the block started with (`{}` for a tool
      // with no parameters), as a whole answer gives it.
      slot.call.fragments.add(slot.call.startInput)
      out.push({ _tag: "ToolCallDelta", index: slot.call.ordinal, arguments: slot.call.startInput })
    }
    return undefined
  }

  private delta(body: JsonObject, out: Array<Event.Event>): SvirError.SvirError | undefined {
    const block = this.blockOf(body.index)
    if (block === undefined) {
      return this.started
        ? notMessages("a content_block_delta for a block never started")
        : notMessages("a content_block_delta before message_start")
    }
    if (block.stopped) return notMessages("a content_block_delta after its block stopped")
    const delta = body.delta as JsonObject | null | undefined
    if (typeof delta !== "object" || delta === null) {
      return notMessages("a content_block_delta with no delta")
    }
    const slot = block.slot
    switch (delta.type) {
      case "text_delta": {
        if (slot.kind !== "text") return this.mismatch(slot, "text_delta")
        const text = delta.text
        if (typeof text !== "string") return notMessages("a text_delta whose text is not a string")
        this.addText(text, out)
        return undefined
      }
      case "input_json_delta": {
        if (slot.kind !== "tool") return this.mismatch(slot, "input_json_delta")
        const fragment = delta.partial_json
        if (typeof fragment !== "string") {
          return notMessages("an input_json_delta whose partial_json is not a string")
        }
        if (fragment === "") return undefined
        slot.call.fragments.add(fragment)
        out.push({ _tag: "ToolCallDelta", index: slot.call.ordinal, arguments: fragment })
        return undefined
      }
      case "thinking_delta": {
        if (slot.kind !== "thinking") return this.mismatch(slot, "thinking_delta")
        const text = delta.thinking
        if (typeof text !== "string")
          return notMessages("a thinking_delta whose thinking is not a string")
        this.addThinking(slot, text, out)
        return undefined
      }
      case "signature_delta": {
        if (slot.kind !== "thinking") return this.mismatch(slot, "signature_delta")
        const signature = delta.signature
        if (typeof signature !== "string")
          return notMessages("a signature_delta whose signature is not a string")
        // As the SDK's accumulator does: the signature comes whole, once, before the block stops.
        slot.signature = signature
        return undefined
      }
      case "citations_delta":
        if (slot.kind === "skipped") return undefined
        if (slot.kind !== "text") return this.mismatch(slot, "citations_delta")
        return this.citations([delta.citation])
      default: {
        if (slot.kind === "skipped") return undefined
        const type = typeof delta.type === "string" ? delta.type : "untyped"
        return this.refuse(`a delta of type ${type}`, `a delta of type ${type} was left out`)
      }
    }
  }

  private mismatch(slot: Slot, delta: string): SvirError.SvirError | undefined {
    // D13: the deltas of a block lenient mode leaves out go with it.
    if (slot.kind === "skipped") return undefined
    return notMessages(`a ${delta} for a ${slot.kind === "tool" ? "tool_use" : slot.kind} block`)
  }

  private addText(text: string, out: Array<Event.Event>): void {
    if (text === "") return
    this.text.add(text)
    // A literal, as `Event.textDelta` makes it (openai-codec D47: no call per piece).
    out.push({ _tag: "TextDelta", text })
  }

  private addThinking(slot: ThinkingSlot, text: string, out: Array<Event.Event>): void {
    if (text === "") return
    slot.text.add(text)
    this.thinking.add(text)
    out.push({ _tag: "ReasoningDelta", text, source: Thinking.source })
  }

  /** Blocks that started and never stopped (D10). */
  private openBlocks(): number {
    let open = 0
    for (const block of this.blocks.values()) if (!block.stopped) open++
    return open
  }

  /** The Completion once `message_stop` came (or the stream ended after a stop reason, D10). */
  complete(extraNote?: string): Result.Result<Completion.Completion, SvirError.SvirError> {
    if (extraNote !== undefined) this.note(extraNote)
    const open = this.openBlocks()
    const cut =
      this.stopReason === "max_tokens" || this.stopReason === "model_context_window_exceeded"
    if (open > 0 && !cut) {
      // D10: message_stop with a block still open, when no token limit cut the answer: the
      // block's last pieces may be missing. A limit cuts the block it is in (the SDK's
      // incomplete_partial_json_response), and its calls are not released anyway.
      if (!this.options.lenient) {
        return Result.fail(
          notMessages(
            `message_stop with ${open} content block(s) not stopped (lenient mode reads them)`,
          ),
        )
      }
      this.note(`the answer ended with ${open} content block(s) not stopped`)
    }
    const calls: Array<ToolCall.ToolCall> = []
    const ids = new Set<string>()
    for (const call of this.calls) {
      if (call.name === "") return Result.fail(notMessages("a call without a name"))
      if (ids.has(call.id)) return Result.fail(notMessages("two calls with the same id"))
      ids.add(call.id)
      calls.push({ id: call.id, name: call.name, arguments: call.fragments.join() })
    }
    let finish: Completion.FinishReason
    let released: ReadonlyArray<ToolCall.ToolCall> = []
    switch (this.stopReason) {
      case "refusal":
        finish = "refusal"
        break
      case "max_tokens":
      case "model_context_window_exceeded":
        finish = "length"
        break
      case "pause_turn":
        finish = "stop"
        this.note(
          "the server paused the turn (pause_turn): send the answer back as it is to let it go on",
        )
        break
      case "tool_use":
        if (calls.length === 0)
          return Result.fail(notMessages("a tool_use stop reason with no call"))
        finish = "tool_calls"
        released = calls
        break
      case "end_turn":
      case "stop_sequence":
      case undefined:
        finish = calls.length > 0 ? "tool_calls" : "stop"
        released = calls
        if (this.stopReason === undefined) {
          this.note(`the server sent no stop reason; the answer's is read as ${finish}`)
        }
        break
    }
    if (calls.length > 0 && released.length === 0) {
      // D12: calls of an answer that was cut, refused or paused are not the model's last word.
      this.note(
        `${calls.length} call(s) of the answer were not released (stop reason ${this.stopReason})`,
      )
    }
    const completion: Mutable<Completion.Completion> = {
      text: this.text.join(),
      reasoning: this.thinking.join(),
      reasoningBySource: this.reasoningBySource(),
      refusal: this.refusalText,
      calls: released,
      finish,
    }
    if (this.id !== undefined) completion.id = this.id
    if (this.model !== undefined) completion.model = this.model
    const usage = this.usageOf()
    if (usage !== undefined) completion.usage = usage
    if (this.notes !== undefined) completion.notes = this.notes
    return Result.succeed(completion)
  }

  /** D9: one entry of source `thinking`, carrying the signed blocks to send back. */
  private reasoningBySource(): ReadonlyArray<Completion.Reasoning> {
    if (this.thinkingSlots.length === 0) return []
    const blocks: Array<Thinking.Block> = []
    for (const slot of this.thinkingSlots) {
      if (slot.kind === "redacted") blocks.push({ type: "redacted_thinking", data: slot.data })
      // A block with no signature cannot be sent back; its text is still the answer's reasoning.
      else if (slot.signature !== "") {
        blocks.push({ type: "thinking", thinking: slot.text.join(), signature: slot.signature })
      }
    }
    const entry: Thinking.Reasoning = {
      source: Thinking.source,
      text: this.thinking.join(),
      blocks,
    }
    return [entry]
  }

  /**
   * D15: Anthropic's `input_tokens` leave out the tokens read from and written to the prompt
   * cache; core's `input` counts every input token, `cachedInput` those read from the cache.
   */
  private usageOf(): Completion.Usage | undefined {
    const input = this.inputTokens
    const output = this.outputTokens
    if (this.usageProblem || input === undefined || output === undefined) return undefined
    const allInput = input + (this.cacheCreation ?? 0) + (this.cacheRead ?? 0)
    const usage: Mutable<Completion.Usage> = { input: allInput, output, total: allInput + output }
    if (this.cacheRead !== undefined) usage.cachedInput = this.cacheRead
    if (this.thinkingTokens !== undefined) usage.reasoning = this.thinkingTokens
    return usage
  }
}

const textSlot: Slot = { kind: "text" }
const skippedSlot: Slot = { kind: "skipped" }
