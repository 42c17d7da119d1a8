import type { Codec } from "@svir/core"
import { Event, Json, Received, Sse, SvirError } from "@svir/core"
import * as Result from "effect/Result"
import { Assembly } from "./assembly.js"
import type * as Options from "./options.js"
import * as ServerError from "./serverError.js"

const nothing: Codec.DecodeStep = Object.freeze({ events: Object.freeze([]), error: undefined })

/** D10: `data: [DONE]`, as the first data line of an event, ends the answer at the end of its line. */
const isDone = (data: string): boolean => data === "[DONE]"

/**
 * The synchronous decoder of one streamed answer: core's Server-Sent Events reader frames the
 * bytes into events, and each event's data is read as a Chat Completions chunk.
 */
export class StreamDecoder implements Codec.StreamDecoder {
  private readonly answer: Assembly
  private readonly sse: Sse.Reader
  private ended = false
  private events: Array<Event.Event> = []
  private error: SvirError.SvirError | undefined

  constructor(private readonly options: Options.Resolved) {
    this.answer = new Assembly(options)
    this.sse = Sse.reader(this.onEvent, {
      maxEventBytes: options.maxEventBytes,
      maxBytes: options.maxBytes,
      lenient: options.lenient,
      endsOnData: isDone,
      onEventWithoutData: this.onEventWithoutData,
    })
  }

  readonly push = (bytes: Uint8Array): Codec.DecodeStep => {
    if (this.ended) return nothing
    const error = this.sse.push(bytes)
    if (error !== undefined) this.fail(error)
    return this.step()
  }

  readonly finish = (): Codec.DecodeStep => {
    if (this.ended) return nothing
    // D10: an event the input ends inside is dropped (SSE), except a last `data: [DONE]` line.
    // Data that is not UTF-8 is not `[DONE]`, so the reader's error says nothing more here.
    const end = this.sse.finish()
    if (end.error === undefined && end.unterminated === "[DONE]") {
      this.completeAnswer()
    } else if (this.answer.finished) {
      // D60: the finish reason ended the answer; only [DONE] (and what may follow it) is missing.
      this.completeAnswer(["the stream ended after the finish reason, without [DONE]"])
    } else {
      // D1: calls are released only from a complete answer.
      this.fail(
        SvirError.make("TruncatedStream", "the stream ended before the answer's finish reason"),
      )
    }
    return this.step()
  }

  readonly done = (): boolean => this.ended

  private step(): Codec.DecodeStep {
    if (this.events.length === 0 && this.error === undefined) return nothing
    const step = { events: this.events, error: this.error }
    this.events = []
    this.error = undefined
    return step
  }

  private fail(error: SvirError.SvirError): void {
    this.error = error
    this.ended = true
  }

  /** D10: `data: [DONE]` ends the answer at the end of its line; nothing after it is read. */
  private completeAnswer(notes?: ReadonlyArray<string>): void {
    const completion = this.answer.complete(notes)
    if (Result.isFailure(completion)) {
      this.fail(completion.failure)
      return
    }
    this.events.push(Event.completed(completion.success))
    this.ended = true
  }

  /** D30: an event type Chat Completions does not have; lenient mode skips the event. */
  private unknownType(type: string): boolean {
    if (this.options.lenient) return true
    this.fail(
      SvirError.make("Unsupported", "the server sent an event type that is not Chat Completions", {
        serverMessage: type,
      }),
    )
    return false
  }

  /** D30 also holds for a type with no data, which SSE does not dispatch (`event: ping`). */
  private readonly onEventWithoutData = (type: string): boolean =>
    type === "message" || type === "error" || this.unknownType(type)

  /** One event of the stream; false ends the reading. */
  private readonly onEvent = (event: Sse.Event): boolean => {
    const data = event.data
    // D10: `[DONE]` ends the answer whatever the event's type (only the first data line of an
    // event can be `[DONE]`: the reader dispatches that one at once).
    if (data === "[DONE]") {
      this.completeAnswer()
      return false
    }
    const type = event.type
    if (type === "error") {
      this.fail(errorEvent(data))
      return false
    }
    if (type !== "message") return this.unknownType(type)
    // D22: an empty data line is a keep-alive that carries nothing.
    if (data === "") return true
    // D45: no Result per event.
    const body = Json.parseValue(data)
    if (body instanceof Json.JsonError) {
      // D25: JSON too deep to read may hold anything, a call too; lenient mode skips only data
      // that is not JSON at all (core's rule).
      const error = Received.unreadableEvent(body, data, this.options)
      if (error === undefined) return true
      this.fail(error)
      return false
    }
    const error = this.answer.chunk(body, this.events)
    if (error === undefined) return true
    this.fail(error)
    return false
  }
}

/** `event: error`: a JSON error body, or the server's words as text (also JSON too deep to read). */
const errorEvent = (data: string): SvirError.SvirError => {
  const body = Json.parse(data)
  if (Result.isSuccess(body) && Json.isObject(body.success)) {
    return ServerError.isErrorBody(body.success)
      ? ServerError.fromBody(body.success, "in the stream")
      : ServerError.fromBody({ error: body.success }, "in the stream")
  }
  return ServerError.fromText(data)
}
