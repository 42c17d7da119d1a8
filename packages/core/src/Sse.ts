/**
 * Server-Sent Events, read from bytes as they arrive: the one reader of `text/event-stream` for
 * every wire (Chat Completions, Anthropic Messages, a third party's), so that the byte order
 * mark, the three line ends, comments, `event:`, `id:` and `retry:` are read in one place, the
 * way the WHATWG HTML standard's "server-sent events" section reads them.
 *
 * @since 0.2.0
 */
import * as SvirError from "./SvirError.js"

/**
 * One event of a stream, as the WHATWG HTML "server-sent events" section dispatches it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Event {
  /** `event:`, or "message" when the event names none. */
  readonly type: string
  /** The `data:` lines, joined by "\n". */
  readonly data: string
  /** The last event ID the stream set with `id:` ("" when none). */
  readonly lastEventId: string
}

/**
 * How a {@link reader} reads: its limits, its mode, and what a wire adds to SSE.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /**
   * The largest event, counted in bytes on the wire: past it the reader fails with a
   * ResponseLimit error (limit "maxEventBytes"). An event's bytes are those of its lines, each
   * with its line end, up to the first byte of the line end of the blank line that ends it (so
   * that a CRLF cut between two chunks counts the same as one that is not). Checked before a
   * line is decoded, and as a line that has not ended yet grows.
   */
  readonly maxEventBytes: number
  /**
   * The most bytes of the whole stream: past it a ResponseLimit error (limit "maxBytes"), after
   * the events the bytes within it end. Default: no limit.
   */
  readonly maxBytes?: number | undefined
  /** Bytes that are not UTF-8 read as U+FFFD instead of failing with a Protocol error. */
  readonly lenient?: boolean | undefined
  /**
   * For wires that end a stream with a data line (Chat Completions' `data: [DONE]`, which some
   * servers follow with no blank line, or close the connection at once): called with the value
   * of each `data:` line that is the first of its event; when it gives true, the event is
   * dispatched at once, at the end of that line, with that one line as its data. The lines after
   * it begin a new event.
   */
  readonly endsOnData?: ((data: string) => boolean) | undefined
  /**
   * Called with the type of an event that has an `event:` line but no `data:` line, which SSE
   * does not dispatch (`event: ping` and a blank line), for a wire that refuses event types it
   * does not know even when they carry nothing. Returns false to stop, as `onEvent` does.
   */
  readonly onEventWithoutData?: ((type: string) => boolean) | undefined
}

/**
 * A reader of one stream: see {@link reader}.
 *
 * @since 0.2.0
 * @category models
 */
export interface Reader {
  /**
   * Feeds bytes, dispatching each event they end, in order, to `onEvent`. `onEvent` returns
   * false to stop: nothing after that event is read. Gives the error that ended the reader, if
   * one did (a limit, bytes that are not UTF-8); after an error or a stop, further calls read
   * nothing.
   */
  readonly push: (bytes: Uint8Array) => SvirError.SvirError | undefined
  /**
   * Ends the input. An event the input ends inside is not dispatched (as SSE says); its data so
   * far is given as `unterminated` (undefined when there is none), for wires whose last line may
   * lack its line end. `error` is a Protocol error when that data is not UTF-8 (strict mode);
   * `unterminated` is then undefined. After an error or a stop, both are undefined.
   */
  readonly finish: () => {
    readonly unterminated: string | undefined
    readonly error: SvirError.SvirError | undefined
  }
  /** The reconnection time the stream last set with `retry:`, in ms. */
  readonly retry: () => number | undefined
}

/**
 * Reads a stream of Server-Sent Events from its bytes, however they are cut: the events, the
 * error and the `unterminated` data are the same for any chunking. Lines end at CRLF, LF or a
 * lone CR (a CR at the end of one chunk and an LF at the start of the next are one line end); a
 * byte order mark at the start is skipped; `:` starts a comment; a field's name ends at the first
 * colon and one space after it is dropped; `data` lines are joined by "\n" and a blank line
 * dispatches them, unless there are none; `event` names the type, `id` sets the last event ID
 * (unless it holds U+0000), `retry` the reconnection time (ASCII digits only; a value too large
 * to be exact is ignored); other fields are ignored. Text is decoded from UTF-8 a run of whole
 * lines at a time. The cost is linear in the bytes, whatever the chunking.
 *
 * @example
 * ```ts
 * import { Sse } from "@svir/core"
 *
 * const events: Array<Sse.Event> = []
 * const reader = Sse.reader(
 *   (event) => {
 *     events.push(event)
 *     return true
 *   },
 *   { maxEventBytes: 1 << 20 },
 * )
 * const bytes = new TextEncoder().encode("event: delta\ndata: {\"text\":\"Hi\"}\n\ndata: x")
 * reader.push(bytes.subarray(0, 9))
 * reader.push(bytes.subarray(9))
 * events.map((event) => `${event.type} ${event.data}`) // ['delta {"text":"Hi"}']
 * reader.finish().unterminated // "x"
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const reader = (onEvent: (event: Event) => boolean, options: Options): Reader =>
  new SseReader(onEvent, options)

const LF = 10
const CR = 13
const COLON = 58
const SPACE = 32
const BOM = 0xfeff

const noBytes = new Uint8Array(0)

// Shared by every reader: without `stream: true` a TextDecoder keeps no state between calls.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const lenientUtf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true })

/**
 * The same decoders, on Node's other path (ICU), which a decoder takes for good once it is called
 * with `stream: true`. Called without it afterwards, each call flushes, so no state is kept
 * between calls here either. They decode text that is not ASCII in 0.6 times the time of the
 * first path, and ASCII in 4.6 times: they read the lines that follow lines that were not ASCII
 * (D32).
 */
const wideUtf8 = (fatal: boolean): TextDecoder => {
  const decoder = new TextDecoder("utf-8", { fatal, ignoreBOM: true })
  decoder.decode(noBytes, { stream: true })
  return decoder
}
const strictWideUtf8 = wideUtf8(true)
const lenientWideUtf8 = wideUtf8(false)

/**
 * Whether the last lines decoded, by any reader, were not all ASCII. Only a guess at which path
 * is faster for the next lines (both give the same text); shared, so that the first chunk of a
 * stream is guessed from the streams before it (a process that talks to a model in Japanese).
 */
let wide = false

const nothingLeft = Object.freeze({ unterminated: undefined, error: undefined })

/** The first CR or LF byte at `from` or after; the caller knows there is one. */
const lineEndAt = (input: Uint8Array, from: number): number => {
  let at = from
  while (input[at] !== LF && input[at] !== CR) at++
  return at
}

/** Where the line that ends just before `end` (its line end included) starts, not before `floor`. */
const lineStartBefore = (input: Uint8Array, end: number, floor: number): number => {
  let at = end - 1
  if (input[at] === LF && at > floor && input[at - 1] === CR) at--
  while (at > floor && input[at - 1] !== LF && input[at - 1] !== CR) at--
  return at
}

/** Whether a field name of the line, `text` from `start` to the colon at `colon`, is `name`. */
const isField = (text: string, start: number, colon: number, name: string): boolean => {
  if (colon - start !== name.length) return false
  for (let i = 0; i < name.length; i++) {
    if (text.charCodeAt(start + i) !== name.charCodeAt(i)) return false
  }
  return true
}

class SseReader implements Reader {
  private readonly maxEventBytes: number
  private readonly maxBytes: number
  private readonly utf8: TextDecoder
  private readonly wideUtf8: TextDecoder
  private readonly endsOnData: ((data: string) => boolean) | undefined
  private readonly onEventWithoutData: ((type: string) => boolean) | undefined
  /** Stopped, failed or finished: nothing more is read. */
  private ended = false
  private error: SvirError.SvirError | undefined
  private total = 0
  private firstLine = true
  /** The bytes of a line not yet ended (never a CR or an LF). */
  private partial = noBytes
  private partialLength = 0
  /**
   * The last chunk ended with a CR, so an LF that starts the next is the rest of its line end:
   * 0 when not, 1 when that LF counts for no event (its line ended one), 2 when it counts for
   * the event still open.
   */
  private pendingLf: 0 | 1 | 2 = 0
  /** The bytes of the event being read so far, for the maxEventBytes limit. */
  private eventBytes = 0
  /** The data buffer: undefined when empty, else its first line, and the others after it. */
  private data: string | undefined
  private moreData: Array<string> | undefined
  private type: string | undefined
  private lastEventId = ""
  private reconnection: number | undefined

  constructor(
    private readonly onEvent: (event: Event) => boolean,
    options: Options,
  ) {
    this.maxEventBytes = options.maxEventBytes
    this.maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY
    this.utf8 = options.lenient === true ? lenientUtf8 : strictUtf8
    this.wideUtf8 = options.lenient === true ? lenientWideUtf8 : strictWideUtf8
    this.endsOnData = options.endsOnData
    this.onEventWithoutData = options.onEventWithoutData
  }

  readonly push = (bytes: Uint8Array): SvirError.SvirError | undefined => {
    if (this.ended) return undefined
    let input = bytes
    const room = this.maxBytes - this.total
    const overLimit = input.length > room
    if (overLimit) input = input.subarray(0, room)
    this.total += input.length
    this.scan(input)
    if (overLimit && !this.ended) {
      this.fail(
        SvirError.make(
          "ResponseLimit",
          `the stream is longer than ${this.maxBytes} bytes (the maxBytes option)`,
          { limit: "maxBytes", max: this.maxBytes },
        ),
      )
    }
    const error = this.error
    this.error = undefined
    return error
  }

  readonly finish = (): {
    readonly unterminated: string | undefined
    readonly error: SvirError.SvirError | undefined
  } => {
    if (this.ended) return nothingLeft
    this.ended = true
    const data = this.joinedData()
    const value = this.partialLength === 0 ? -1 : this.partialDataValue()
    if (value === -1)
      return data === undefined ? nothingLeft : { unterminated: data, error: undefined }
    let text: string
    try {
      text = this.utf8.decode(this.partial.subarray(value, this.partialLength))
    } catch {
      return { unterminated: undefined, error: notUtf8() }
    }
    return { unterminated: data === undefined ? text : `${data}\n${text}`, error: undefined }
  }

  readonly retry = (): number | undefined => this.reconnection

  private fail(error: SvirError.SvirError): void {
    this.error = error
    this.ended = true
  }

  private eventTooLarge(): void {
    this.fail(
      SvirError.make(
        "ResponseLimit",
        `an event of the stream is longer than ${this.maxEventBytes} bytes (the maxEventBytes option)`,
        { limit: "maxEventBytes", max: this.maxEventBytes },
      ),
    )
  }

  private scan(input: Uint8Array): void {
    const length = input.length
    if (length === 0) return
    let start = 0
    if (this.pendingLf !== 0) {
      const counted = this.pendingLf === 2
      this.pendingLf = 0
      if (input[0] === LF) {
        start = 1
        if (counted && ++this.eventBytes > this.maxEventBytes) {
          this.eventTooLarge()
          return
        }
      }
    }
    if (this.partialLength > 0) {
      // The line a chunk cut: its end is near, so the CR is looked for up to the first LF.
      const lf = input.indexOf(LF, start)
      const bound = lf === -1 ? length : lf
      let end = start
      while (end < bound && input[end] !== CR) end++
      this.keep(input, start, end)
      if (end === length || this.ended) return
      const partialLength = this.partialLength
      this.partialLength = 0
      this.byteLine(this.partial, 0, partialLength)
      if (this.ended) return
      const crlf = input[end] === CR && input[end + 1] === LF
      if (crlf && !this.crlfRest()) return
      start = end + (crlf ? 2 : 1)
    }
    // A loop, not `lastIndexOf` (a call into the runtime that cost a small answer 0.2 µs,
    // D32); it reads back at most the line a chunk cuts.
    let last = length - 1
    while (last >= start && input[last] !== LF && input[last] !== CR) last--
    if (last >= start) {
      this.lines(input, start, last)
      if (this.ended) return
      start = last + 1
    }
    if (start < length) this.keep(input, start, length)
    else if (input[length - 1] === CR) this.pendingLf = this.eventBytes === 0 ? 1 : 2
  }

  /**
   * The LF of a CRLF, after its line was read: it counts for the event when the line did not end
   * one. False when that is past the limit.
   */
  private crlfRest(): boolean {
    if (this.eventBytes === 0 || ++this.eventBytes <= this.maxEventBytes) return true
    this.eventTooLarge()
    return false
  }

  /**
   * Whole lines, from `start` to the line end at `last`, decoded in one call (D32).
   * The k-th CR or LF of the text is the k-th CR or LF byte: UTF-8 never uses bytes 10 and 13
   * inside a character, and lenient decoding never takes them into a U+FFFD. When every
   * character took one byte, string offsets are byte offsets; otherwise each line's length on
   * the wire is found from the line-end bytes. Bytes that are not UTF-8 (strict mode) make the
   * call throw: then each line is decoded alone, so an invalid byte fails only its own line,
   * after the events before it, and a comment is never decoded.
   */
  private lines(input: Uint8Array, start: number, last: number): void {
    let text: string
    try {
      text = (wide ? this.wideUtf8 : this.utf8).decode(input.subarray(start, last + 1))
    } catch {
      this.byteLines(input, start, last)
      return
    }
    const size = last + 1 - start
    wide = text.length !== size
    // -1 when the text has no CR: most streams, which pay one search for it.
    let cr = text.indexOf("\r")
    let from = 0
    // Near the limit, each line's bytes are counted from the line-end bytes. Otherwise no event
    // can reach the limit within these bytes: lines are counted in characters (never more than
    // their bytes), and the event still open at the end is counted in bytes then, from the
    // line-end bytes of its lines, the last lines of the chunk.
    const near = wide && this.eventBytes + size > this.maxEventBytes
    const before = this.eventBytes
    if (cr === -1 && !near) {
      // The common case, in a loop of its own (inside the general one, a small Chat Completions
      // answer spent 0.5% more of its time here), text that is not ASCII included (D42): every
      // line ends at an LF, and is counted in characters, which for ASCII are its bytes.
      while (from < text.length) {
        // A blank line is told without a search (one line in three of most streams; a search
        // in text that is not ASCII is a call out of the engine's fast path, D42).
        const lf = text.charCodeAt(from) === LF ? from : text.indexOf("\n", from)
        this.line(text, from, lf, lf - from + 1)
        if (this.ended) return
        from = lf + 1
      }
      if (wide) this.openEventBytes(text, input, start, last, before)
      return
    }
    let dispatched = false
    let openLines = 0
    let byteFrom = start
    let lf = text.indexOf("\n")
    while (from < text.length) {
      let end: number
      let crlf = false
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        end = lf
        lf = text.indexOf("\n", end + 1)
      } else {
        end = cr
        crlf = lf === cr + 1
        if (crlf) lf = text.indexOf("\n", end + 2)
        cr = text.indexOf("\r", end + 1)
      }
      let bytes = end - from + 1
      if (near) {
        const byteEnd = lineEndAt(input, byteFrom)
        bytes = byteEnd - byteFrom + 1
        byteFrom = byteEnd + (crlf ? 2 : 1)
      }
      this.line(text, from, end, bytes)
      if (this.ended) return
      if (crlf && !this.crlfRest()) return
      from = end + (crlf ? 2 : 1)
      openLines++
      if (this.eventBytes === 0) {
        dispatched = true
        openLines = 0
      }
    }
    if (!wide || near) return
    if (!dispatched) {
      this.eventBytes = before + size
      return
    }
    let open = last + 1
    for (let i = 0; i < openLines; i++) open = lineStartBefore(input, open, start)
    this.eventBytes = last + 1 - open
  }

  /**
   * After LF-only lines counted in characters (`lines`), counts the event still open in bytes.
   * No event ended in the run when the count grew by every character of the text; otherwise the
   * open event is the text's last `eventBytes` characters, and its lines the last lines of the
   * bytes.
   */
  private openEventBytes(
    text: string,
    input: Uint8Array,
    start: number,
    last: number,
    before: number,
  ): void {
    if (this.eventBytes === before + text.length) {
      this.eventBytes = before + last + 1 - start
      return
    }
    let open = last + 1
    let lf = text.indexOf("\n", text.length - this.eventBytes)
    while (lf !== -1) {
      open = lineStartBefore(input, open, start)
      lf = text.indexOf("\n", lf + 1)
    }
    this.eventBytes = last + 1 - open
  }

  /** Whole lines, from `start` to the line end at `last`, each decoded alone. */
  private byteLines(input: Uint8Array, start: number, last: number): void {
    let from = start
    while (from <= last) {
      const end = lineEndAt(input, from)
      this.byteLine(input, from, end)
      if (this.ended) return
      const crlf = input[end] === CR && end < last && input[end + 1] === LF
      if (crlf && !this.crlfRest()) return
      from = end + (crlf ? 2 : 1)
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
    if (this.eventBytes + needed > this.maxEventBytes) this.eventTooLarge()
  }

  /**
   * One line of bytes, `start` to its line end at `end`. A comment is never decoded: its bytes
   * can be anything.
   */
  private byteLine(buffer: Uint8Array, start: number, end: number): void {
    const bytes = end - start + 1
    // The limit comes before decoding, as it does for a line a chunk cut (see `keep`): a line
    // that is both too long and not UTF-8 fails the same way at every chunking.
    if (this.eventBytes + bytes > this.maxEventBytes) {
      this.eventTooLarge()
      return
    }
    let at = start
    if (
      this.firstLine &&
      buffer[at] === 0xef &&
      buffer[at + 1] === 0xbb &&
      buffer[at + 2] === 0xbf
    ) {
      at += 3
    }
    if (at < end && buffer[at] === COLON) {
      this.line(":", 0, 1, bytes)
      return
    }
    let text: string
    try {
      text = this.utf8.decode(buffer.subarray(start, end))
    } catch {
      this.fail(notUtf8())
      return
    }
    this.line(text, 0, text.length, bytes)
  }

  /**
   * One line, `text` from `start` to `end` (its line end left out); `bytes` is its length on the
   * wire, with the first byte of its line end.
   */
  private line(text: string, start: number, end: number, bytes: number): void {
    this.eventBytes += bytes
    let from = start
    if (this.firstLine) {
      this.firstLine = false
      if (end > from && text.charCodeAt(from) === BOM) from++
    }
    if (this.eventBytes > this.maxEventBytes) {
      this.eventTooLarge()
      return
    }
    if (end === from) {
      this.dispatch()
      return
    }
    const first = text.charCodeAt(from)
    if (first === COLON) return
    // `data:` read a character at a time (D32: `startsWith` at an offset cost 50 ns
    // a line in text that is not ASCII); past the line's end comes its CR or LF, or nothing,
    // which matches none.
    if (
      first === 100 &&
      text.charCodeAt(from + 1) === 97 &&
      text.charCodeAt(from + 2) === 116 &&
      text.charCodeAt(from + 3) === 97 &&
      text.charCodeAt(from + 4) === COLON
    ) {
      let value = from + 5
      if (value < end && text.charCodeAt(value) === SPACE) value++
      this.dataLine(text.slice(value, end))
      return
    }
    // `event:` too, the other line of every event on some wires (Anthropic Messages): the
    // search for the colon and the name checks below took 4% of the reader's time on such a
    // stream that is not ASCII, 10% on one that is (D42).
    if (
      first === 101 &&
      text.charCodeAt(from + 1) === 118 &&
      text.charCodeAt(from + 2) === 101 &&
      text.charCodeAt(from + 3) === 110 &&
      text.charCodeAt(from + 4) === 116 &&
      text.charCodeAt(from + 5) === COLON
    ) {
      let value = from + 6
      if (value < end && text.charCodeAt(value) === SPACE) value++
      this.type = text.slice(value, end)
      return
    }
    // The name ends at the first colon. Only names of 5 characters at most are read, so the
    // colon is looked for no further (a search to the next colon of the text could cross many
    // lines).
    const stop = end - from > 6 ? from + 6 : end
    let colon = from
    while (colon < stop && text.charCodeAt(colon) !== COLON) colon++
    if (colon === stop && stop < end) return
    let value = colon + 1
    if (value < end && text.charCodeAt(value) === SPACE) value++
    if (value > end) value = end
    if (isField(text, from, colon, "data")) this.dataLine(text.slice(value, end))
    else if (isField(text, from, colon, "event")) this.type = text.slice(value, end)
    else if (isField(text, from, colon, "id")) {
      const id = text.slice(value, end)
      if (!id.includes("\u0000")) this.lastEventId = id
    } else if (isField(text, from, colon, "retry")) this.retryField(text, value, end)
    // Other fields are ignored, as SSE says.
  }

  private dataLine(value: string): void {
    if (this.data !== undefined) {
      if (this.moreData === undefined) this.moreData = [value]
      else this.moreData.push(value)
      return
    }
    this.data = value
    if (this.endsOnData?.(value) === true) this.dispatch()
  }

  private retryField(text: string, start: number, end: number): void {
    if (start === end) return
    for (let at = start; at < end; at++) {
      const code = text.charCodeAt(at)
      if (code < 48 || code > 57) return
    }
    const millis = Number(text.slice(start, end))
    if (Number.isSafeInteger(millis)) this.reconnection = millis
  }

  private joinedData(): string | undefined {
    const first = this.data
    if (first === undefined || this.moreData === undefined) return first
    return `${first}\n${this.moreData.join("\n")}`
  }

  /** The end of an event: a blank line, or a data line `endsOnData` took. */
  private dispatch(): void {
    this.eventBytes = 0
    const type = this.type
    this.type = undefined
    const data = this.joinedData()
    if (data === undefined) {
      if (type === undefined || this.onEventWithoutData === undefined) return
      if (this.onEventWithoutData(type === "" ? "message" : type) === false) this.ended = true
      return
    }
    this.data = undefined
    this.moreData = undefined
    const event: Event = {
      type: type === undefined || type === "" ? "message" : type,
      data,
      lastEventId: this.lastEventId,
    }
    if (this.onEvent(event) === false) this.ended = true
  }

  /** Where the value of the line a chunk cut starts, when it is a `data` field; else -1. */
  private partialDataValue(): number {
    const buffer = this.partial
    const length = this.partialLength
    let at = 0
    if (this.firstLine && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) at = 3
    if (
      length - at < 4 ||
      buffer[at] !== 100 ||
      buffer[at + 1] !== 97 ||
      buffer[at + 2] !== 116 ||
      buffer[at + 3] !== 97
    ) {
      return -1
    }
    at += 4
    if (at === length) return at
    if (buffer[at] !== COLON) return -1
    at++
    if (at < length && buffer[at] === SPACE) at++
    return at
  }
}

const notUtf8 = (): SvirError.SvirError =>
  SvirError.make("Protocol", "the stream is not valid UTF-8 (lenient mode reads it)")
