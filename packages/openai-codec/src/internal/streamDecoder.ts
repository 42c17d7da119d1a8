import type { Codec } from "@svir/core"
import { Event, Json, SvirError } from "@svir/core"
import * as Result from "effect/Result"
import { Assembly, tooDeep } from "./assembly.js"
import type * as Options from "./options.js"
import * as ServerError from "./serverError.js"

const LF = 10
const CR = 13
const COLON = 58
const SPACE = 32
const BOM = 0xfeff

const noBytes = new Uint8Array(0)

// Shared by every decoder: without `stream: true` a TextDecoder keeps no state between calls.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const lenientUtf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true })

/**
 * D45: the same decoders, on Node's other path (ICU), which a decoder takes for good once it is
 * called with `stream: true`. Called without it afterwards, each call flushes, so no state is
 * kept between calls here either. They decode text that is not ASCII in 0.6 times the time of the
 * first path, and ASCII in 4.6 times: they read the lines that follow lines that were not ASCII.
 */
const wideUtf8 = (fatal: boolean): TextDecoder => {
  const decoder = new TextDecoder("utf-8", { fatal, ignoreBOM: true })
  decoder.decode(noBytes, { stream: true })
  return decoder
}
const strictWideUtf8 = wideUtf8(true)
const lenientWideUtf8 = wideUtf8(false)

/**
 * Whether the last lines decoded, by any decoder, were not all ASCII. Only a guess at which path
 * is faster for the next lines (both give the same text); shared, so that the first chunk of an
 * answer is guessed from the answers before it (a process that talks to a model in Japanese).
 */
let wide = false

const nothing: Codec.DecodeStep = Object.freeze({ events: Object.freeze([]), error: undefined })

/**
 * The synchronous decoder of one streamed answer: Server-Sent Events framing over bytes, then
 * Chat Completions chunks. Lines are found by scanning bytes for LF; the bytes of a line that a
 * chunk cuts are kept in one growing buffer, so the cost is linear whatever the chunking. Text is
 * decoded from UTF-8 only in whole lines (a character never spans an LF byte), with TextDecoders
 * shared by every decoder, so a character split across chunks is never a problem.
 */
export class StreamDecoder implements Codec.StreamDecoder {
  private readonly answer: Assembly
  private readonly utf8: TextDecoder
  private readonly wideUtf8: TextDecoder
  private ended = false
  private total = 0
  private firstLine = true
  /** The bytes of a line not yet ended by LF. */
  private partial = noBytes
  private partialLength = 0
  /** The bytes of the event being read so far, for the maxEventBytes limit. */
  private eventBytes = 0
  private data: string | undefined
  private moreData: Array<string> | undefined
  private eventName: string | undefined
  private events: Array<Event.Event> = []
  private error: SvirError.SvirError | undefined

  constructor(private readonly options: Options.Resolved) {
    this.answer = new Assembly(options)
    this.utf8 = options.lenient ? lenientUtf8 : strictUtf8
    this.wideUtf8 = options.lenient ? lenientWideUtf8 : strictWideUtf8
  }

  readonly push = (bytes: Uint8Array): Codec.DecodeStep => {
    if (this.ended) return nothing
    let input = bytes
    const room = this.options.maxBytes - this.total
    const overLimit = input.length > room
    if (overLimit) input = input.subarray(0, room)
    this.total += input.length
    this.scan(input)
    if (overLimit && !this.ended) {
      this.fail(
        SvirError.make(
          "ResponseLimit",
          `the answer is longer than ${this.options.maxBytes} bytes (the maxBytes option)`,
          { limit: "maxBytes", max: this.options.maxBytes },
        ),
      )
    }
    return this.step()
  }

  readonly finish = (): Codec.DecodeStep => {
    if (this.ended) return nothing
    // D10: an event the input ends inside is dropped (SSE), except a last `data: [DONE]` line.
    if (this.partialLength > 0 && this.data === undefined && this.isDoneLine()) {
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

  private scan(input: Uint8Array): void {
    const length = input.length
    let start = 0
    if (this.partialLength > 0) {
      const lf = input.indexOf(LF)
      if (lf === -1) {
        this.keep(input, 0, length)
        return
      }
      this.keep(input, 0, lf)
      if (this.ended) return
      const partialLength = this.partialLength
      this.partialLength = 0
      this.byteLine(this.partial, 0, partialLength)
      if (this.ended) return
      start = lf + 1
    }
    // D47: a loop, not `lastIndexOf` (a call into the runtime that cost a small answer 0.2 µs);
    // it reads back at most the line a chunk cuts.
    let last = length - 1
    while (last >= start && input[last] !== LF) last--
    if (last >= start) {
      this.lines(input, start, last)
      if (this.ended) return
      start = last + 1
    }
    if (start < length) this.keep(input, start, length)
  }

  /**
   * Whole lines, from `start` to the LF at `last`, decoded in one call (D45). The k-th LF of the
   * text is the k-th LF byte: UTF-8 never uses byte 10 inside a character, and lenient decoding
   * never takes it into a U+FFFD. When every character took one byte, string offsets are byte
   * offsets; otherwise each line's length on the wire is found from the LF bytes. Bytes that are
   * not UTF-8 (strict mode) make the call throw: then each line is decoded alone, so an invalid
   * byte fails only its own line, after the events before it, and a comment is never decoded.
   */
  private lines(input: Uint8Array, start: number, last: number): void {
    let text: string
    try {
      text = (wide ? this.wideUtf8 : this.utf8).decode(input.subarray(start, last + 1))
    } catch {
      this.byteLines(input, start, last)
      return
    }
    let from = 0
    wide = text.length !== last + 1 - start
    if (!wide) {
      while (from < text.length) {
        const lf = text.indexOf("\n", from)
        this.line(text, from, lf, lf - from + 1)
        if (this.ended) return
        from = lf + 1
      }
      return
    }
    if (this.eventBytes + (last + 1 - start) > this.options.maxEventBytes) {
      let byteFrom = start
      while (from < text.length) {
        const lf = text.indexOf("\n", from)
        const byteLf = input.indexOf(LF, byteFrom)
        this.line(text, from, lf, byteLf - byteFrom + 1)
        if (this.ended) return
        from = lf + 1
        byteFrom = byteLf + 1
      }
      return
    }
    // No event can reach the limit within these bytes: lines are counted in characters (never
    // more than their bytes), and the event still open at the end is counted in bytes then, from
    // the LF bytes of its lines, the last lines of the chunk.
    const before = this.eventBytes
    let dispatched = false
    let openLines = 0
    while (from < text.length) {
      const lf = text.indexOf("\n", from)
      this.line(text, from, lf, lf - from + 1)
      if (this.ended) return
      from = lf + 1
      openLines++
      if (this.eventBytes === 0) {
        dispatched = true
        openLines = 0
      }
    }
    if (!dispatched) {
      this.eventBytes = before + (last + 1 - start)
      return
    }
    let open = last
    for (let i = 0; i < openLines; i++) open = input.lastIndexOf(LF, open - 1)
    this.eventBytes = last - open
  }

  /** Whole lines, from `start` to the LF at `last`, each decoded alone. */
  private byteLines(input: Uint8Array, start: number, last: number): void {
    let from = start
    while (from <= last) {
      const lf = input.indexOf(LF, from)
      this.byteLine(input, from, lf)
      if (this.ended) return
      from = lf + 1
    }
  }

  /** Keeps the start of a line the chunk cut, growing the buffer by doubling. */
  private keep(input: Uint8Array, start: number, end: number): void {
    const needed = this.partialLength + (end - start)
    if (needed > this.partial.length) {
      let size = Math.max(256, this.partial.length * 2)
      while (size < needed) size *= 2
      const grown = new Uint8Array(size)
      grown.set(this.partial.subarray(0, this.partialLength))
      this.partial = grown
    }
    this.partial.set(input.subarray(start, end), this.partialLength)
    this.partialLength = needed
    if (this.eventBytes + needed > this.options.maxEventBytes) this.eventTooLarge()
  }

  private eventTooLarge(): void {
    this.fail(
      SvirError.make(
        "ResponseLimit",
        `an event of the stream is longer than ${this.options.maxEventBytes} bytes (the maxEventBytes option)`,
        { limit: "maxEventBytes", max: this.options.maxEventBytes },
      ),
    )
  }

  /** One line of bytes, without its LF. A comment is never decoded: its bytes can be anything. */
  private byteLine(buffer: Uint8Array, start: number, end: number): void {
    const bytes = end - start + 1
    // The limit comes before decoding, as it does for a line a chunk cut (see `keep`): a line
    // that is both too long and not UTF-8 fails the same way at every chunking.
    if (this.eventBytes + bytes > this.options.maxEventBytes) {
      this.eventTooLarge()
      return
    }
    if (end > start && buffer[start] === COLON) {
      this.line(":", 0, 1, bytes)
      return
    }
    try {
      const text = this.utf8.decode(buffer.subarray(start, end))
      this.line(text, 0, text.length, bytes)
    } catch {
      this.fail(SvirError.make("Protocol", "the stream is not valid UTF-8 (lenient mode reads it)"))
    }
  }

  /** One line, `text` from `start` to `end` (its LF left out); `bytes` is its length on the wire. */
  private line(text: string, start: number, end: number, bytes: number): void {
    this.eventBytes += bytes
    if (end > start && text.charCodeAt(end - 1) === CR) end--
    if (this.firstLine) {
      this.firstLine = false
      if (end > start && text.charCodeAt(start) === BOM) start++
    }
    if (this.eventBytes > this.options.maxEventBytes) {
      this.eventTooLarge()
      return
    }
    if (end === start) {
      this.dispatch()
      return
    }
    const first = text.charCodeAt(start)
    if (first === COLON) return
    // `data:` read a character at a time (D47: `startsWith` at an offset cost 50 ns a line in
    // text that is not ASCII); past the line's end comes its CR or LF, which matches none.
    if (
      first === 100 &&
      text.charCodeAt(start + 1) === 97 &&
      text.charCodeAt(start + 2) === 116 &&
      text.charCodeAt(start + 3) === 97 &&
      text.charCodeAt(start + 4) === COLON
    ) {
      let value = start + 5
      if (value < end && text.charCodeAt(value) === SPACE) value++
      this.dataLine(text, value, end)
      return
    }
    let colon = text.indexOf(":", start)
    if (colon === -1 || colon > end) colon = end
    // Only `data` and `event` are read; longer names cannot be either.
    if (colon - start > 5) return
    let value = colon + 1
    if (value < end && text.charCodeAt(value) === SPACE) value++
    value = Math.min(value, end)
    const field = text.slice(start, colon)
    if (field === "data") this.dataLine(text, value, end)
    else if (field === "event") this.eventName = text.slice(value, end)
    // `id`, `retry` and unknown fields are ignored, as SSE says.
  }

  private dataLine(text: string, start: number, end: number): void {
    if (this.data === undefined && end - start === 6 && text.startsWith("[DONE]", start)) {
      this.completeAnswer()
      return
    }
    const value = text.slice(start, end)
    if (this.data === undefined) this.data = value
    else if (this.moreData === undefined) this.moreData = [value]
    else this.moreData.push(value)
  }

  private isDoneLine(): boolean {
    const buffer = this.partial
    let end = this.partialLength
    if (buffer[end - 1] === CR) end--
    if (end < 5 || buffer[0] !== 100 || buffer[4] !== COLON) return false
    let value = 5
    if (buffer[value] === SPACE) value++
    return buffer[1] === 97 && buffer[2] === 116 && buffer[3] === 97 && isDone(buffer, value, end)
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

  private dispatch(): void {
    this.eventBytes = 0
    const name = this.eventName
    this.eventName = undefined
    const first = this.data
    if (name !== undefined && name !== "" && name !== "message" && name !== "error") {
      // D30: an event type Chat Completions does not have; lenient mode skips the event.
      this.data = undefined
      this.moreData = undefined
      if (!this.options.lenient) {
        this.fail(
          SvirError.make(
            "Unsupported",
            "the server sent an event type that is not Chat Completions",
            {
              serverMessage: name,
            },
          ),
        )
      }
      return
    }
    if (first === undefined) return
    const data = this.moreData === undefined ? first : `${first}\n${this.moreData.join("\n")}`
    this.data = undefined
    this.moreData = undefined
    // D22: an empty data line is a keep-alive that carries nothing.
    if (data === "" && name !== "error") return
    if (name === "error") {
      this.fail(errorEvent(data))
      return
    }
    let body = readShallowJson(data)
    if (body === undecided) {
      const read = Json.parse(data)
      if (Result.isFailure(read)) {
        // D25: JSON too deep to read may hold anything, a call too; lenient mode skips only data
        // that is not JSON at all.
        if (read.failure.reason === "TooDeep") this.fail(tooDeep("an event"))
        else if (!this.options.lenient) {
          this.fail(
            SvirError.make("Protocol", "the server sent an event whose data is not JSON", {
              serverMessage: data,
            }),
          )
        }
        return
      }
      body = read.success
    }
    const error = this.answer.chunk(body, this.events)
    if (error !== undefined) this.fail(error)
  }
}

/** What `readShallowJson` gives when only `Json.parse` can tell. */
const undecided: unique symbol = Symbol("undecided")

/**
 * D45: the value of JSON text that `Json.parse` would read, at less cost, or `undecided`. JSON
 * that nests d levels holds 2d brackets, so valid JSON shorter than `2 * (Json.maxDepth + 1)`
 * cannot nest too deep, nor can one with at most `Json.maxDepth` opening brackets, in strings or
 * not (counted with `indexOf`, a fifth of the cost of `Json.textDepth`). The rest, and text that
 * is not JSON, are left to `Json.parse`, so the outcome is its own. D47: no `Result` per event.
 */
const readShallowJson = (text: string): unknown => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undecided
  }
  if (text.length >= 2 * (Json.maxDepth + 1) && !fewBrackets(text)) return undecided
  return value
}

const fewBrackets = (text: string): boolean => {
  let count = 0
  for (let at = text.indexOf("{"); at !== -1; at = text.indexOf("{", at + 1)) {
    if (++count > Json.maxDepth) return false
  }
  for (let at = text.indexOf("["); at !== -1; at = text.indexOf("[", at + 1)) {
    if (++count > Json.maxDepth) return false
  }
  return true
}

const isDone = (buffer: Uint8Array, start: number, end: number): boolean =>
  end - start === 6 &&
  buffer[start] === 91 &&
  buffer[start + 1] === 68 &&
  buffer[start + 2] === 79 &&
  buffer[start + 3] === 78 &&
  buffer[start + 4] === 69 &&
  buffer[start + 5] === 93

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
