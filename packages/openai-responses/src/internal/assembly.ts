import type { Completion, ToolCall } from "@svir/core"
import { Event, Json, type JsonEvents, Pieces, Received, SvirError } from "@svir/core"
import * as Result from "effect/Result"
import * as Reasoning from "../Reasoning.js"
import type * as Options from "./options.js"
import * as ServerError from "./serverError.js"

type JsonObject = { readonly [key: string]: unknown }
type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** The wire's name, in the errors of what is not of it. */
export const wire = "OpenAI Responses"

const notResponses = (what: string): SvirError.SvirError => Received.foreign(what, wire)

const tooManyCalls = (max: number): SvirError.SvirError =>
  SvirError.make("ResponseLimit", `the answer has more than ${max} calls (the maxCalls option)`, {
    limit: "maxCalls",
    max,
  })

const isIndex = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0

const isCount = isIndex

/**
 * D21: output items that ask the caller for an answer this codec cannot represent: dropping one
 * would drop a call, so they are refused in both modes. An item with a `call_id` is one too,
 * whatever its type (every item the caller must answer has one).
 */
const callerItems: ReadonlySet<string> = new Set([
  "custom_tool_call",
  "computer_call",
  "local_shell_call",
  "shell_call",
  "apply_patch_call",
  "mcp_approval_request",
])

/** A message item: its text parts and refusal parts, by content index, as streamed. */
interface MessageSlot {
  readonly kind: "message"
  readonly parts: Map<number, "output_text" | "refusal" | "skipped">
  readonly text: Pieces.Pieces
  readonly refusal: Pieces.Pieces
  /** The log probabilities streamed with the text (D27). */
  readonly logprobs: Array<Completion.TokenLogprob>
}

/** A function call: its ordinal among the calls is the `index` of its events (D19). */
interface CallSlot {
  readonly kind: "call"
  readonly ordinal: number
  readonly callId: string
  readonly name: string
  readonly arguments: Pieces.Pieces
}

/** A reasoning item: what was streamed of its text, separators included (D18). */
interface ReasoningSlot {
  readonly kind: "reasoning"
  /**
   * The reasoning parts of the answer before this item's, counted when its first text is given
   * (or when it is done); `undefined` until then.
   */
  partsBefore: number | undefined
  /** The part being streamed: `s<summary index>` or `c<content index>`. */
  part: string | undefined
  readonly streamed: Pieces.Pieces
}

type Slot = MessageSlot | CallSlot | ReasoningSlot | { readonly kind: "skipped" }

/** The kinds of pieces the completion joins item after item (D26). */
type Joined = "text" | "refusal" | "logprobs" | "reasoning"

/** An output item, at its `output_index`. `final` is the item as the server completed it. */
interface Item {
  readonly index: number
  readonly id: string | undefined
  readonly type: string
  readonly slot: Slot
  final: JsonObject | undefined
}

/** How the answer ended: the terminal event's kind. */
type Ending = "completed" | "incomplete"

/**
 * The state machine of one answer, fed the Responses events one at a time (each one's JSON data,
 * already parsed). It gives the codec's events as they come and the Completion at the end. A whole
 * (non-streamed) answer is read by the same machine: its body is the terminal event's response,
 * whose output items it reads as if streamed (D14). A stream is read through core's `JsonEvents`
 * decoder: the SSE event name is not read but for `error` (D24), as the data's `type` names each
 * event, and streams replayed without their `event:` lines still give the whole answer.
 */
export class Assembly implements JsonEvents.Answer {
  private id: string | undefined
  private model: string | undefined
  private readonly items = new Map<number, Item>()
  private readonly byId = new Map<string, Item>()
  /** The last item looked up: most deltas are for the item of the delta before. */
  private lastItem: Item | undefined
  private calls = 0
  /** The reasoning parts given so far, for the separator between parts (D18). */
  private reasoningParts = 0
  /** D26: the items that gave each kind of piece, in the order they gave their first. */
  private readonly given: Record<Joined, Array<Slot>> = {
    text: [],
    refusal: [],
    logprobs: [],
    reasoning: [],
  }
  private ending: Ending | undefined
  private incompleteReason: string | undefined
  private usage: Completion.Usage | undefined
  private notes: Array<string> | undefined

  constructor(private readonly options: Options.Resolved) {}

  /**
   * D13: the end of a stream before `response.completed` or `response.incomplete` (after the
   * last event's data, read when it lacks its blank line): the answer is cut, and its calls are
   * released only from a complete answer.
   */
  unfinished(): Result.Result<Completion.Completion, SvirError.SvirError> {
    return Result.fail(
      SvirError.make(
        "TruncatedStream",
        "the stream ended before response.completed or response.incomplete",
      ),
    )
  }

  /** D22: an `error` event whose data is not JSON: its text is the server's words. */
  errorOfText(text: string): SvirError.SvirError {
    return ServerError.fromText(text)
  }

  /** D22: `event: error` with data that does not say so is an error all the same. */
  errorOfBody(body: { readonly [key: string]: unknown }): SvirError.SvirError {
    return ServerError.fromBody(body, "in the stream")
  }

  private note(text: string): void {
    this.notes ??= []
    if (!this.notes.includes(text)) this.notes.push(text)
  }

  /**
   * D21: what strict mode refuses and lenient mode leaves out with a note. Strict mode gives the
   * error; lenient mode notes it and gives nothing.
   */
  private refuse(what: string, note = `${what} was left out`): SvirError.SvirError | undefined {
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
   * One event: `data` is its parsed data. Gives the error that ends the answer, if one does;
   * `"completed"` for the terminal event of an answer (`response.completed`, `response.incomplete`).
   */
  event(data: unknown, out: Array<Event.Event>): SvirError.SvirError | "completed" | undefined {
    if (typeof data !== "object" || data === null || Array.isArray(data)) {
      return notResponses("an event that is not a JSON object")
    }
    const body = data as JsonObject
    switch (body.type) {
      case "response.output_text.delta":
        return this.textDelta(body, "output_text", out)
      case "response.function_call_arguments.delta":
        return this.argumentsDelta(body, out)
      case "response.reasoning_summary_text.delta":
        return this.reasoningDelta(body, `s${String(body.summary_index)}`, out)
      case "response.reasoning_text.delta":
      case "response.reasoning.delta":
        // OpenAI's name, and the Open Responses specification's, for raw reasoning text.
        return this.reasoningDelta(body, `c${String(body.content_index)}`, out)
      case "response.refusal.delta":
        return this.textDelta(body, "refusal", out)
      case "response.reasoning_summary_part.added":
        return this.reasoningPart(body, `s${String(body.summary_index)}`, out)
      case "response.content_part.added":
        return this.contentPart(body, out)
      case "response.output_item.added":
      case "response.output_item.done":
        return this.itemEvent(body, out)
      case "response.created":
      case "response.in_progress":
      case "response.queued":
        return this.header(body.response)
      case "response.completed":
        return this.terminal(body.response, "completed", out)
      case "response.incomplete":
        return this.terminal(body.response, "incomplete", out)
      case "response.failed":
        return this.failed(body.response)
      case "error":
        return ServerError.fromBody(body, "in the stream")
      default:
        // D24: event types this codec does not know say nothing it needs (the `.done` events
        // repeat what `response.output_item.done` gives whole); a stream without types is not
        // this wire.
        if (typeof body.type !== "string") return notResponses("an event with no type")
        return undefined
    }
  }

  /** The id and model of the response, from the first event that names them. */
  private header(response: unknown): SvirError.SvirError | undefined {
    if (!Json.isObject(response)) return notResponses("a response event with no response object")
    if (this.id === undefined && typeof response.id === "string" && response.id !== "") {
      this.id = response.id
    }
    if (this.model === undefined && typeof response.model === "string" && response.model !== "") {
      this.model = response.model
    }
    return undefined
  }

  /** D26: an event's item, by its `output_index`, else by its `item_id`. */
  private itemOf(body: JsonObject): Item | undefined {
    const index = body.output_index
    const last = this.lastItem
    if (last !== undefined && index === last.index) return last
    const item = isIndex(index)
      ? this.items.get(index)
      : typeof body.item_id === "string"
        ? this.byId.get(body.item_id)
        : undefined
    if (item !== undefined) this.lastItem = item
    return item
  }

  /** The open item of a delta or a part, or the error when there is none. */
  private openItem(body: JsonObject): Item | SvirError.SvirError {
    const item = this.itemOf(body)
    if (item === undefined) return notResponses(`a ${String(body.type)} for an item never added`)
    if (item.final !== undefined) {
      return notResponses(`a ${String(body.type)} after its item was done`)
    }
    return item
  }

  private mismatch(item: Item, type: unknown): SvirError.SvirError | undefined {
    // D21: the events of an item lenient mode leaves out go with it.
    if (item.slot.kind === "skipped") return undefined
    return notResponses(`a ${String(type)} for a ${item.type} item`)
  }

  /**
   * The slot of an event's open item, when the item is of `kind`; `undefined` when the event is
   * skipped with its item (D21); else the error.
   */
  private slotOf<K extends Slot["kind"]>(
    body: JsonObject,
    kind: K,
  ): Extract<Slot, { readonly kind: K }> | SvirError.SvirError | undefined {
    const item = this.openItem(body)
    if (item instanceof SvirError.SvirError) return item
    if (item.slot.kind === kind) return item.slot as Extract<Slot, { readonly kind: K }>
    return this.mismatch(item, body.type)
  }

  /** `response.output_item.added` or `.done`. */
  private itemEvent(body: JsonObject, out: Array<Event.Event>): SvirError.SvirError | undefined {
    const index = body.output_index
    if (!isIndex(index)) return notResponses("an output item whose output_index is not a number")
    return body.type === "response.output_item.added"
      ? this.startItem(index, body.item, out)
      : this.completeItem(index, body.item, out)
  }

  private startItem(
    index: number,
    item: unknown,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    if (this.items.has(index)) return notResponses(`a second output item at output_index ${index}`)
    if (!Json.isObject(item) || typeof item.type !== "string") {
      return notResponses("an output item that is not an object with a type")
    }
    const id = typeof item.id === "string" && item.id !== "" ? item.id : undefined
    let slot: Slot
    switch (item.type) {
      case "message": {
        if (item.role !== undefined && item.role !== "assistant") {
          return notResponses("a message item whose role is not assistant")
        }
        slot = {
          kind: "message",
          parts: new Map(),
          text: Pieces.make(),
          refusal: Pieces.make(),
          logprobs: [],
        }
        break
      }
      case "function_call": {
        const { call_id: callId, name } = item
        if (typeof callId !== "string" || callId === "") {
          return notResponses("a function_call item with no call_id")
        }
        if (typeof name !== "string" || name === "") {
          return notResponses("a function_call item with no name")
        }
        if (this.calls >= this.options.maxCalls) return tooManyCalls(this.options.maxCalls)
        const call: CallSlot = {
          kind: "call",
          ordinal: this.calls++,
          callId,
          name,
          arguments: Pieces.make(),
        }
        out.push(Event.toolCallDelta({ index: call.ordinal, id: callId, name, arguments: "" }))
        slot = call
        break
      }
      case "reasoning":
        slot = {
          kind: "reasoning",
          partsBefore: undefined,
          part: undefined,
          streamed: Pieces.make(),
        }
        break
      default: {
        const type = item.type
        if (callerItems.has(type) || item.call_id !== undefined) {
          // D21: a call the caller must answer is never left out.
          return SvirError.make(
            "Unsupported",
            `the server sent an output item of type ${type}, a call this codec cannot represent`,
          )
        }
        const error = this.refuse(`an output item of type ${type}`)
        if (error !== undefined) return error
        slot = skippedSlot
      }
    }
    const entry: Item = { index, id, type: item.type, slot, final: undefined }
    this.items.set(index, entry)
    if (id !== undefined) this.byId.set(id, entry)
    return undefined
  }

  private contentPart(body: JsonObject, out: Array<Event.Event>): SvirError.SvirError | undefined {
    const item = this.openItem(body)
    if (item instanceof SvirError.SvirError) return item
    const part = body.part
    const index = body.content_index
    if (!Json.isObject(part) || !isIndex(index)) {
      return notResponses("a content part with no part or content_index")
    }
    const slot = item.slot
    if (slot.kind === "reasoning" && part.type === "reasoning_text") {
      return this.startPart(slot, `c${index}`, out)
    }
    if (slot.kind !== "message") return this.mismatch(item, body.type)
    if (slot.parts.has(index)) return notResponses(`a second content part at index ${index}`)
    if (part.type === "output_text" || part.type === "refusal") {
      slot.parts.set(index, part.type)
      return undefined
    }
    const type = typeof part.type === "string" ? part.type : "untyped"
    const error = this.refuse(`a content part of type ${type}`)
    if (error !== undefined) return error
    slot.parts.set(index, "skipped")
    return undefined
  }

  private textDelta(
    body: JsonObject,
    kind: "output_text" | "refusal",
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    const slot = this.slotOf(body, "message")
    if (slot === undefined || slot instanceof SvirError.SvirError) return slot
    const index = body.content_index
    if (!isIndex(index)) return notResponses(`a ${kind} delta whose content_index is not a number`)
    const part = slot.parts.get(index)
    if (part === "skipped") return undefined
    if (part === undefined) slot.parts.set(index, kind)
    else if (part !== kind) return notResponses(`a ${kind} delta for a ${part} part`)
    const text = body.delta
    if (typeof text !== "string") return notResponses(`a ${kind} delta that is not a string`)
    if (kind === "output_text") {
      const tokens = logprobsOf(body.logprobs)
      if (tokens === undefined) return notResponses("log probabilities this codec cannot read")
      if (text !== "") {
        const error = this.give("text", slot)
        if (error !== undefined) return error
        slot.text.add(text)
        out.push({ _tag: "TextDelta", text })
      }
      if (tokens.length > 0) {
        const error = this.give("logprobs", slot)
        if (error !== undefined) return error
        slot.logprobs.push(...tokens)
        out.push(Event.logprobsDelta(tokens))
      }
    } else if (text !== "") {
      const error = this.give("refusal", slot)
      if (error !== undefined) return error
      slot.refusal.add(text)
      out.push({ _tag: "RefusalDelta", text })
    }
    return undefined
  }

  /**
   * D26: `slot` gives a piece of `kind`. The completion joins the items in the order they gave
   * their first piece of each kind, so that the events add up to it; an item that gives one after
   * another item gave one of that kind, when it gave one before, has its pieces interleaved with
   * the other's, which no completion can add up to: the disagreement of D15.
   */
  private give(kind: Joined, slot: Slot): SvirError.SvirError | undefined {
    const order = this.given[kind]
    if (order.at(-1) === slot) return undefined
    if (order.includes(slot)) return this.disagree()
    order.push(slot)
    return undefined
  }

  private argumentsDelta(
    body: JsonObject,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    const slot = this.slotOf(body, "call")
    if (slot === undefined || slot instanceof SvirError.SvirError) return slot
    const fragment = body.delta
    if (typeof fragment !== "string") return notResponses("an arguments delta that is not a string")
    if (fragment === "") return undefined
    slot.arguments.add(fragment)
    out.push({ _tag: "ToolCallDelta", index: slot.ordinal, arguments: fragment })
    return undefined
  }

  private reasoningPart(
    body: JsonObject,
    part: string,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    const slot = this.slotOf(body, "reasoning")
    if (slot === undefined || slot instanceof SvirError.SvirError) return slot
    if (slot.part === part) return undefined
    return this.startPart(slot, part, out)
  }

  /**
   * D18: a new reasoning part. The item's first part waits for its first text (`place`); a part
   * after another of the item's is given now, the separator first.
   */
  private startPart(
    slot: ReasoningSlot,
    part: string,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    if (slot.part !== undefined) {
      const error = this.place(slot, out) ?? this.addReasoning(slot, separator, out)
      if (error !== undefined) return error
      this.reasoningParts++
    }
    slot.part = part
    return undefined
  }

  /**
   * D18: the item's first part is given, when its first text is (or a second part starts): it
   * comes after the reasoning parts given so far, with the separator when there are some.
   */
  private place(slot: ReasoningSlot, out: Array<Event.Event>): SvirError.SvirError | undefined {
    if (slot.partsBefore !== undefined) return undefined
    slot.partsBefore = this.reasoningParts
    const error = this.give("reasoning", slot)
    if (error !== undefined) return error
    return this.reasoningParts++ > 0 ? this.addReasoning(slot, separator, out) : undefined
  }

  private reasoningDelta(
    body: JsonObject,
    part: string,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    const slot = this.slotOf(body, "reasoning")
    if (slot === undefined || slot instanceof SvirError.SvirError) return slot
    const text = body.delta
    if (typeof text !== "string") return notResponses("a reasoning delta that is not a string")
    if (slot.part !== part) {
      const error = this.startPart(slot, part, out)
      if (error !== undefined) return error
    }
    if (text === "") return undefined
    return this.place(slot, out) ?? this.addReasoning(slot, text, out)
  }

  private addReasoning(
    slot: ReasoningSlot,
    text: string,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    if (text === "") return undefined
    const error = this.give("reasoning", slot)
    if (error !== undefined) return error
    slot.streamed.add(text)
    out.push({ _tag: "ReasoningDelta", text, source: Reasoning.source })
    return undefined
  }

  /**
   * D15: an item as the server completed it. An item never added is added first (a server may
   * send items whole); what was streamed of it must be the start of what it holds, and the rest is
   * given as one more delta, so that the events add up to the answer.
   */
  private completeItem(
    index: number,
    final: unknown,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    if (!this.items.has(index)) {
      const error = this.startItem(index, final, out)
      if (error !== undefined) return error
    }
    const item = this.items.get(index)!
    if (item.final !== undefined) return notResponses(`a second output_item.done at ${index}`)
    if (!Json.isObject(final) || final.type !== item.type) {
      return notResponses(`an output_item.done at ${index} that is not the item added there`)
    }
    const slot = item.slot
    let error: SvirError.SvirError | undefined
    switch (slot.kind) {
      case "message":
        error = this.completeMessage(slot, final, out)
        break
      case "call":
        error = this.completeCall(slot, final, out)
        break
      case "reasoning":
        error = this.completeReasoning(slot, final, out)
        break
      case "skipped":
        break
    }
    if (error !== undefined) return error
    item.final = final
    return undefined
  }

  private completeMessage(
    slot: MessageSlot,
    final: JsonObject,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    const content = final.content ?? []
    if (!Array.isArray(content)) return notResponses("a message item whose content is not an array")
    let text = ""
    let refusal = ""
    const tokens: Array<Completion.TokenLogprob> = []
    for (const part of content) {
      if (!Json.isObject(part)) return notResponses("a content part that is not an object")
      if (part.type === "output_text") {
        if (typeof part.text !== "string") return notResponses("an output_text with no text")
        const read = logprobsOf(part.logprobs)
        if (read === undefined) return notResponses("log probabilities this codec cannot read")
        tokens.push(...read)
        const annotations = part.annotations
        if (Array.isArray(annotations) && annotations.length > 0) {
          const error = this.refuse(
            "annotations of a text",
            "annotations of the text were left out",
          )
          if (error !== undefined) return error
        }
        text += part.text
      } else if (part.type === "refusal") {
        if (typeof part.refusal !== "string") return notResponses("a refusal part with no refusal")
        refusal += part.refusal
      } else {
        const type = typeof part.type === "string" ? part.type : "untyped"
        const error = this.refuse(`a content part of type ${type}`)
        if (error !== undefined) return error
      }
    }
    return (
      this.reconcile(slot.text.join(), text, (rest) =>
        this.giveNow("text", slot, out, Event.textDelta(rest)),
      ) ??
      this.reconcile(slot.refusal.join(), refusal, (rest) =>
        this.giveNow("refusal", slot, out, Event.refusalDelta(rest)),
      ) ??
      this.reconcileLogprobs(slot, tokens, out)
    )
  }

  /** The rest of an item, given when it is done (D15), in its place (D26). */
  private giveNow(
    kind: Joined,
    slot: Slot,
    out: Array<Event.Event>,
    event: Event.Event,
  ): SvirError.SvirError | undefined {
    const error = this.give(kind, slot)
    if (error === undefined) out.push(event)
    return error
  }

  /**
   * D27: the log probabilities of the item done are the answer's. Those streamed must be their
   * start, token for token (text and values); the rest is given as one more delta. Anything else is
   * the disagreement of D15.
   */
  private reconcileLogprobs(
    slot: MessageSlot,
    final: ReadonlyArray<Completion.TokenLogprob>,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    const streamed = slot.logprobs
    if (
      final.length < streamed.length ||
      streamed.some((token, i) => JSON.stringify(token) !== JSON.stringify(final[i]))
    ) {
      return this.disagree()
    }
    if (final.length === streamed.length) return undefined
    return this.giveNow("logprobs", slot, out, Event.logprobsDelta(final.slice(streamed.length)))
  }

  private completeCall(
    slot: CallSlot,
    final: JsonObject,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    if (final.call_id !== slot.callId || final.name !== slot.name) {
      return notResponses("a function_call item done with another call_id or name than it had")
    }
    const args = argumentsOf(final)
    if (typeof args !== "string")
      return notResponses("a function_call whose arguments are not text")
    return this.reconcile(slot.arguments.join(), args, (rest) => {
      out.push({ _tag: "ToolCallDelta", index: slot.ordinal, arguments: rest })
      return undefined
    })
  }

  private completeReasoning(
    slot: ReasoningSlot,
    final: JsonObject,
    out: Array<Event.Event>,
  ): SvirError.SvirError | undefined {
    if (!Reasoning.isItem(final)) return notResponses("a reasoning item whose parts are not text")
    // D18: an item that gave no text yet comes after the reasoning given so far.
    const before = slot.partsBefore ?? this.reasoningParts
    if (slot.partsBefore === undefined) this.given.reasoning.push(slot)
    slot.partsBefore = before
    let expected = ""
    let parts = before
    for (const part of [...final.summary, ...(final.content ?? [])]) {
      if (parts++ > 0) expected += separator
      expected += part.text
    }
    // The count never goes back: lenient mode goes on after interleaved items (D15, D26).
    this.reasoningParts = Math.max(this.reasoningParts, parts)
    return this.reconcile(slot.streamed.join(), expected, (rest) =>
      this.addReasoning(slot, rest, out),
    )
  }

  /**
   * D15: what was streamed of an item against the item done. When it is the start, the rest is
   * given; otherwise the server said two things: a Protocol error in strict mode, and in lenient
   * mode the item done is kept, with a note (the events then do not add up to the answer).
   */
  private reconcile(
    streamed: string,
    final: string,
    give: (rest: string) => SvirError.SvirError | undefined,
  ): SvirError.SvirError | undefined {
    if (final.startsWith(streamed)) {
      return final.length > streamed.length ? give(final.slice(streamed.length)) : undefined
    }
    return this.disagree()
  }

  /** D15: the item done is not what was streamed of it. */
  private disagree(): SvirError.SvirError | undefined {
    if (!this.options.lenient) {
      return notResponses(
        "an output item whose streamed pieces are not what the item holds (lenient mode keeps the item, with a note)",
      )
    }
    this.note(
      "the streamed pieces of an output item were not what the item holds; the item is kept",
    )
    return undefined
  }

  /** `response.failed`: the error of the response, which ends the answer. */
  private failed(response: unknown): SvirError.SvirError {
    if (!Json.isObject(response)) return notResponses("a response.failed with no response")
    if (Json.isObject(response.error)) {
      return ServerError.fromBody(response.error, "as the response's failure")
    }
    return ServerError.unexplainedFailure()
  }

  /**
   * D16: the terminal event's response. It gives the usage, the reason an answer is incomplete,
   * and its output items: an item the stream did not complete is completed from it (every item,
   * when the stream gave none), an item the stream completed must be the same item, and an empty
   * `output` says nothing.
   */
  terminal(
    response: unknown,
    ending: Ending,
    out: Array<Event.Event>,
  ): SvirError.SvirError | "completed" {
    if (!Json.isObject(response)) return notResponses(`a response.${ending} with no response`)
    const header = this.header(response)
    if (header !== undefined) return header
    const output = response.output ?? []
    if (!Array.isArray(output)) return notResponses("a response whose output is not an array")
    if (output.length > 0) {
      for (let index = 0; index < output.length; index++) {
        const item = this.items.get(index)
        const error =
          item?.final === undefined
            ? this.completeItem(index, output[index], out)
            : sameItem(item.final, output[index])
        if (error !== undefined) return error
      }
      for (const index of this.items.keys()) {
        if (index >= output.length) {
          return notResponses("a final response without an output item the stream gave")
        }
      }
    }
    for (const item of this.items.values()) {
      if (item.final === undefined) {
        return notResponses(`an answer that ended with the output item at ${item.index} not done`)
      }
    }
    if (ending === "incomplete") {
      const details = response.incomplete_details
      const reason = Json.isObject(details) ? details.reason : undefined
      if (typeof reason !== "string") {
        return notResponses("an incomplete response that does not say why")
      }
      this.incompleteReason = reason
    }
    const usage = this.readUsage(response.usage)
    if (usage !== undefined) return usage
    this.ending = ending
    return "completed"
  }

  /**
   * D23: `input_tokens` counts every input token, cached ones included (as core's `input` does);
   * `cachedInput` and `reasoning` are the details where the server reported them. A count that is
   * not one is a Protocol error in strict mode; lenient mode leaves the usage out.
   */
  private readUsage(usage: unknown): SvirError.SvirError | undefined {
    if (usage === undefined || usage === null) return undefined
    const bad = () => {
      if (!this.options.lenient) {
        return SvirError.make(
          "Protocol",
          "the server sent a usage whose counts are not counts of tokens (lenient mode leaves the usage out)",
        )
      }
      this.note("the usage the server sent could not be read and was left out")
      return undefined
    }
    if (!Json.isObject(usage)) return bad()
    const { input_tokens: input, output_tokens: output, total_tokens: total } = usage
    const cached = Json.isObject(usage.input_tokens_details)
      ? usage.input_tokens_details.cached_tokens
      : undefined
    const reasoning = Json.isObject(usage.output_tokens_details)
      ? usage.output_tokens_details.reasoning_tokens
      : undefined
    if (!isCount(input) || !isCount(output)) return bad()
    for (const count of [total, cached, reasoning]) {
      if (count !== undefined && count !== null && !isCount(count)) return bad()
    }
    const read: Mutable<Completion.Usage> = {
      input,
      output,
      total: isCount(total) ? total : input + output,
    }
    if (isCount(cached)) read.cachedInput = cached
    if (isCount(reasoning)) read.reasoning = reasoning
    this.usage = read
    return undefined
  }

  /**
   * The Completion, once the terminal event was read. D26: each kind of piece is joined item after
   * item in the order the items gave their first piece of it, as the events gave them; the calls
   * in the order of their indexes (D19).
   */
  complete(): Result.Result<Completion.Completion, SvirError.SvirError> {
    const finals = new Map<Slot, JsonObject>()
    const calls: Array<ToolCall.ToolCall> = []
    const ids = new Set<string>()
    for (const item of this.items.values()) {
      const final = item.final!
      finals.set(item.slot, final)
      if (item.slot.kind !== "call") continue
      const slot = item.slot
      if (ids.has(slot.callId)) return Result.fail(notResponses("two calls with the same call_id"))
      ids.add(slot.callId)
      calls[slot.ordinal] = {
        id: slot.callId,
        name: slot.name,
        arguments: argumentsOf(final) as string,
      }
    }
    const partsOf = (slot: Slot) => (finals.get(slot)!.content ?? []) as ReadonlyArray<JsonObject>
    let text = ""
    for (const slot of this.given.text) {
      for (const part of partsOf(slot)) {
        if (part.type === "output_text") text += part.text as string
      }
    }
    let refusal = ""
    for (const slot of this.given.refusal) {
      for (const part of partsOf(slot)) {
        if (part.type === "refusal") refusal += part.refusal as string
      }
    }
    const logprobs: Array<Completion.TokenLogprob> = []
    for (const slot of this.given.logprobs) {
      for (const part of partsOf(slot)) {
        // Read when the item was done (D27).
        if (part.type === "output_text") logprobs.push(...logprobsOf(part.logprobs)!)
      }
    }
    const reasoningItems = this.given.reasoning.map((slot) => finals.get(slot) as Reasoning.Item)
    if (refusal !== "" && (text !== "" || calls.length > 0)) {
      // D17: the server contradicts itself about what the answer is.
      return Result.fail(notResponses("a refusal beside an answer"))
    }
    let finish: Completion.FinishReason
    let released: ReadonlyArray<ToolCall.ToolCall> = []
    if (this.ending === "incomplete") {
      switch (this.incompleteReason) {
        case "max_output_tokens":
          finish = refusal === "" ? "length" : "refusal"
          break
        case "content_filter":
          finish = "content_filter"
          break
        default:
          // D20: an incomplete answer for a reason this codec does not know may mean another answer.
          return Result.fail(
            SvirError.make(
              "Unsupported",
              "the server sent an incomplete response for a reason this codec does not know",
              { serverMessage: this.incompleteReason },
            ),
          )
      }
      if (calls.length > 0) {
        this.note(
          `${calls.length} call(s) of the answer were not released (incomplete: ${this.incompleteReason})`,
        )
      }
    } else if (refusal !== "") {
      finish = "refusal"
    } else if (calls.length > 0) {
      finish = "tool_calls"
      released = calls
    } else {
      finish = "stop"
    }
    const completion: Mutable<Completion.Completion> = {
      text,
      reasoning: Reasoning.textOf(reasoningItems),
      reasoningBySource: reasoningItems.length > 0 ? [Reasoning.reasoning(reasoningItems)] : [],
      refusal,
      calls: released,
      finish,
    }
    if (this.id !== undefined) completion.id = this.id
    if (this.model !== undefined) completion.model = this.model
    if (this.usage !== undefined) completion.usage = this.usage
    if (logprobs.length > 0) completion.logprobs = logprobs
    if (this.notes !== undefined) completion.notes = this.notes
    return Result.succeed(completion)
  }
}

const separator = "\n\n"

/** D19: a call's arguments; none is blank. */
const argumentsOf = (call: JsonObject): unknown => call.arguments ?? ""

const noTokens: ReadonlyArray<Completion.TokenLogprob> = []

/** One token's log probability: `{token, logprob, bytes}`, or undefined when it is not one. */
const topLogprobOf = (entry: unknown): Completion.TopLogprob | undefined => {
  if (
    !Json.isObject(entry) ||
    typeof entry.token !== "string" ||
    typeof entry.logprob !== "number"
  ) {
    return undefined
  }
  const bytes = entry.bytes
  if (bytes === undefined || bytes === null) return { token: entry.token, logprob: entry.logprob }
  if (!Array.isArray(bytes) || !bytes.every((byte) => Number.isInteger(byte))) return undefined
  return { token: entry.token, logprob: entry.logprob, bytes: bytes as ReadonlyArray<number> }
}

/**
 * D27: the `logprobs` of an output text or its delta, in core's form; none when absent or empty,
 * `undefined` when they are not log probabilities.
 */
const logprobsOf = (list: unknown): ReadonlyArray<Completion.TokenLogprob> | undefined => {
  if (list === undefined || list === null) return noTokens
  if (!Array.isArray(list)) return undefined
  if (list.length === 0) return noTokens
  const tokens: Array<Completion.TokenLogprob> = []
  for (const entry of list) {
    const token = topLogprobOf(entry)
    if (token === undefined) return undefined
    const tops = (entry as JsonObject).top_logprobs ?? []
    if (!Array.isArray(tops)) return undefined
    const topLogprobs: Array<Completion.TopLogprob> = []
    for (const top of tops) {
      const read = topLogprobOf(top)
      if (read === undefined) return undefined
      topLogprobs.push(read)
    }
    tokens.push({ ...token, topLogprobs })
  }
  return tokens
}
const skippedSlot: Slot = { kind: "skipped" }

/**
 * D16: whether the final response's item is the item the stream completed, in what the answer is
 * made of: type, text, refusal, call, reasoning text. Not `encrypted_content`: OpenAI encrypts
 * the same reasoning anew in each event that carries it (`openai-reasoning-encrypted-content`);
 * not the `id`, which GitHub Copilot changes in every event (D26, `github-copilot-id-rotation`);
 * nor `status` and the other fields the answer does not read.
 */
const sameItem = (streamed: JsonObject, final: unknown): SvirError.SvirError | undefined => {
  const same =
    Json.isObject(final) &&
    final.type === streamed.type &&
    final.call_id === streamed.call_id &&
    final.name === streamed.name &&
    (final.arguments ?? "") === (streamed.arguments ?? "") &&
    partsText(final.content) === partsText(streamed.content) &&
    partsText(final.summary) === partsText(streamed.summary)
  return same ? undefined : notResponses("a final response whose output is not the streamed items")
}

/** The texts of a list of parts, for comparing two items. */
const partsText = (parts: unknown): string => {
  if (!Array.isArray(parts)) return ""
  let all = ""
  for (const part of parts) {
    if (!Json.isObject(part)) continue
    all += `${String(part.type)}:${String(part.text ?? part.refusal ?? "")}\u0000`
  }
  return all
}
