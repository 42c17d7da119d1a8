import type { Codec } from "@svir/core"
import { Event, Json, Received, Sse, SvirError } from "@svir/core"
import * as Result from "effect/Result"
import { Assembly } from "./assembly.js"
import type * as Options from "./options.js"
import * as ServerError from "./serverError.js"

const nothing: Codec.DecodeStep = Object.freeze({ events: Object.freeze([]), error: undefined })

/**
 * The synchronous decoder of one streamed answer: core's Server-Sent Events reader frames the
 * bytes into events, and {@link Assembly} reads each event's data. The SSE event name is not
 * read, but for `error` (D24): the data's `type` names each event, and streams replayed without
 * their `event:` lines still give the whole answer.
 */
export class StreamDecoder implements Codec.StreamDecoder {
  private readonly answer: Assembly
  private readonly sse: Sse.Reader
  private ended = false
  private events: Array<Event.Event> = []
  private error: SvirError.SvirError | undefined

  constructor(private readonly options: Options.Resolved) {
    this.answer = new Assembly(options)
    this.sse = Sse.reader((event) => this.onEvent(event), {
      maxEventBytes: options.maxEventBytes,
      maxBytes: options.maxBytes,
      lenient: options.lenient,
    })
  }

  push(bytes: Uint8Array): Codec.DecodeStep {
    if (this.ended) return nothing
    const error = this.sse.push(bytes)
    if (error !== undefined) this.fail(error)
    return this.step()
  }

  finish(): Codec.DecodeStep {
    if (this.ended) return nothing
    const end = this.sse.finish()
    // D13: the last event may lack the blank line that ends it; its data, when it is one whole
    // JSON value, is read as an event. A data line cut short is not JSON.
    if (end.error !== undefined) {
      this.fail(end.error)
      return this.step()
    }
    if (end.unterminated !== undefined) {
      const body = Json.parse(end.unterminated)
      if (Result.isSuccess(body)) this.read(body.success)
    }
    // D13: calls are released only from a complete answer.
    if (!this.ended) {
      this.fail(
        SvirError.make(
          "TruncatedStream",
          "the stream ended before response.completed or response.incomplete",
        ),
      )
    }
    return this.step()
  }

  done(): boolean {
    return this.ended
  }

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

  /** One event's data, parsed; false ends the reading. */
  private read(body: unknown): boolean {
    const outcome = this.answer.event(body, this.events)
    if (outcome === undefined) return true
    if (outcome === "completed") {
      const completion = this.answer.complete()
      if (Result.isFailure(completion)) this.fail(completion.failure)
      else {
        this.events.push(Event.completed(completion.success))
        this.ended = true
      }
    } else {
      this.fail(outcome)
    }
    return false
  }

  /** One event of the stream; false ends the reading. */
  private onEvent(event: Sse.Event): boolean {
    const data = event.data
    // An empty data line carries nothing (a keep-alive).
    if (data === "") return true
    const body = Json.parseValue(data)
    if (body instanceof Json.JsonError) {
      // D22: an error event whose data is not JSON: its text is the server's words.
      // D25: otherwise core's rule (JSON too deep ends the answer; lenient mode skips data that
      // is not JSON at all).
      const error =
        event.type === "error" && body.reason !== "TooDeep"
          ? ServerError.fromText(data)
          : Received.unreadableEvent(body, data, this.options)
      if (error === undefined) return true
      this.fail(error)
      return false
    }
    if (event.type === "error" && Json.isObject(body) && body.type !== "error") {
      // D22: `event: error` with data that does not say so is an error all the same.
      this.fail(ServerError.fromBody(body, "in the stream"))
      return false
    }
    return this.read(body)
  }
}
