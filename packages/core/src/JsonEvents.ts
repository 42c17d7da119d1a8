/**
 * The stream decoder of a wire whose Server-Sent Events each carry one JSON value that names
 * itself (the Messages and Responses APIs): the frame around a wire's own reading of each event
 * (D46). Core's {@link Sse} reader frames the bytes; here an event's data is parsed, an `error`
 * event is told apart, and the steps, the end of the input and the end of the answer are kept;
 * the wire's {@link Answer} reads each value and makes the completion.
 *
 * @since 0.2.0
 * @module
 */
import * as Result from "effect/Result"
import type * as Codec from "./Codec.js"
import type * as Completion from "./Completion.js"
import * as Event from "./Event.js"
import * as Json from "./Json.js"
import * as Received from "./Received.js"
import * as Sse from "./Sse.js"
import type * as SvirError from "./SvirError.js"

/**
 * A wire's reading of one answer, event by event.
 *
 * @since 0.2.0
 * @category models
 */
export interface Answer {
  /**
   * Reads one event's data, parsed, and adds the events it gives to `out`: `undefined` to read
   * on, `"completed"` when the answer's last event came, or the error that ends the answer.
   */
  readonly event: (
    data: unknown,
    out: Array<Event.Event>,
  ) => "completed" | SvirError.SvirError | undefined
  /** The answer, once its last event came, or why it cannot be one. */
  readonly complete: () => Result.Result<Completion.Completion, SvirError.SvirError>
  /**
   * The answer when the input ends before its last event: an error (a TruncatedStream), or a
   * completion the wire takes all the same (a lenient reading).
   */
  readonly unfinished: () => Result.Result<Completion.Completion, SvirError.SvirError>
  /** The error an `error` event reports with data that is not JSON: the server's words. */
  readonly errorOfText: (text: string) => SvirError.SvirError
  /** The error an `error` event reports with a JSON object that does not call itself one. */
  readonly errorOfBody: (body: { readonly [key: string]: unknown }) => SvirError.SvirError
}

/**
 * The limits and mode of a decoder: those of the SSE reader, and `lenient`, which also skips an
 * event whose data is not JSON.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly maxEventBytes: number
  readonly maxBytes?: number | undefined
  readonly lenient: boolean
}

/**
 * A decoder of one streamed answer over `answer`. An empty `data:` line is a keep-alive. Data
 * that is not JSON ends the answer with a Protocol error (too deep, or not JSON in strict mode;
 * lenient mode skips it), or, in an `error` event, with `errorOfText`; an `error` event whose
 * object does not say `"type": "error"` ends it with `errorOfBody`. The SSE event type is read
 * for nothing else: the data names each event, so streams replayed without their `event:` lines
 * still give the whole answer. At the end of the input, the last event may lack its blank line:
 * its data, when it is one whole JSON value, is read; then an answer without its last event is
 * `unfinished()`.
 *
 * @example
 * ```ts
 * import { Completion, JsonEvents, SvirError } from "@svir/core"
 * import { Result } from "effect"
 *
 * // A wire whose events are {"type":"text","text":...} and {"type":"end"}.
 * let text = ""
 * const decoder = JsonEvents.decoder(
 *   {
 *     event: (data, out) => {
 *       const event = data as { type: string; text?: string }
 *       if (event.type === "end") return "completed"
 *       text += event.text ?? ""
 *       return undefined
 *     },
 *     complete: () => Result.succeed(Completion.make({ text, finish: "stop" })),
 *     unfinished: () => Result.fail(SvirError.make("TruncatedStream", "no end event")),
 *     errorOfText: (words) => SvirError.make("Server", "an error", { serverMessage: words }),
 *     errorOfBody: () => SvirError.make("Server", "an error"),
 *   },
 *   { maxEventBytes: 1_000_000, lenient: false },
 * )
 * const step = decoder.push(
 *   new TextEncoder().encode('data: {"type":"text","text":"Hi"}\n\ndata: {"type":"end"}\n\n'),
 * )
 * // One event: Completed, with the text "Hi".
 * step.events.length // 1
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const decoder = (answer: Answer, options: Options): Codec.StreamDecoder =>
  new JsonEventDecoder(answer, options)

const nothing: Codec.DecodeStep = Object.freeze({ events: Object.freeze([]), error: undefined })

class JsonEventDecoder implements Codec.StreamDecoder {
  private readonly sse: Sse.Reader
  private ended = false
  private events: Array<Event.Event> = []
  private error: SvirError.SvirError | undefined

  constructor(
    private readonly answer: Answer,
    private readonly options: Options,
  ) {
    // Methods, and an arrow with no name: under `tsx` every named function a constructor makes
    // is wrapped by a naming helper, which cost a small answer 7% of its time.
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
    if (end.error !== undefined) {
      this.fail(end.error)
      return this.step()
    }
    // The last event may lack the blank line that ends it; a data line cut short is not JSON.
    if (end.unterminated !== undefined) {
      const body = Json.parse(end.unterminated)
      if (Result.isSuccess(body)) this.read(body.success)
    }
    if (!this.ended) this.settle(this.answer.unfinished())
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

  private settle(completion: Result.Result<Completion.Completion, SvirError.SvirError>): void {
    if (Result.isFailure(completion)) {
      this.fail(completion.failure)
      return
    }
    this.events.push(Event.completed(completion.success))
    this.ended = true
  }

  /** One event's data, parsed; false ends the reading. */
  private read(body: unknown): boolean {
    const outcome = this.answer.event(body, this.events)
    if (outcome === undefined) return true
    if (outcome === "completed") this.settle(this.answer.complete())
    else this.fail(outcome)
    return false
  }

  /** One event of the stream; false ends the reading. */
  private onEvent(event: Sse.Event): boolean {
    const data = event.data
    if (data === "") return true
    const body = Json.parseValue(data)
    if (body instanceof Json.JsonError) {
      const error =
        event.type === "error" && body.reason !== "TooDeep"
          ? this.answer.errorOfText(data)
          : Received.unreadableEvent(body, data, this.options)
      if (error === undefined) return true
      this.fail(error)
      return false
    }
    if (event.type === "error" && Json.isObject(body) && body.type !== "error") {
      this.fail(this.answer.errorOfBody(body))
      return false
    }
    return this.read(body)
  }
}
