import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Sse, type SvirError } from "../src/index.js"

const utf8 = new TextEncoder()
const bytes = (text: string): Uint8Array => utf8.encode(text)
const concat = (...parts: ReadonlyArray<Uint8Array | ReadonlyArray<number>>): Uint8Array => {
  const all: Array<number> = []
  for (const part of parts) all.push(...part)
  return new Uint8Array(all)
}

interface Setup {
  readonly maxEventBytes?: number
  readonly maxBytes?: number | undefined
  readonly lenient?: boolean
  readonly endsOnData?: ((data: string) => boolean) | undefined
  /** onEvent stops after this many events. */
  readonly stopAfter?: number | undefined
  readonly withoutData?: ((type: string) => boolean) | undefined
}

/** What a reader made of some chunks: everything a caller can see. */
interface Outcome {
  readonly events: ReadonlyArray<Sse.Event>
  /** The first error a push gave, as kind, limit and message. */
  readonly error: string | undefined
  readonly unterminated: string | undefined
  readonly finishError: string | undefined
  readonly retry: number | undefined
}

const describeError = (error: SvirError.SvirError | undefined): string | undefined => {
  if (error === undefined) return undefined
  const limit =
    error.reason._tag === "ResponseLimit" ? ` ${error.reason.limit}=${error.reason.max}` : ""
  return `${error.reason._tag}${limit}: ${error.message}`
}

const read = (chunks: ReadonlyArray<Uint8Array>, setup: Setup = {}): Outcome => {
  const events: Array<Sse.Event> = []
  const { stopAfter } = setup
  const reader = Sse.reader(
    (event) => {
      events.push(event)
      return stopAfter === undefined || events.length < stopAfter
    },
    {
      maxEventBytes: setup.maxEventBytes ?? 1 << 30,
      maxBytes: setup.maxBytes,
      lenient: setup.lenient,
      endsOnData: setup.endsOnData,
      onEventWithoutData: setup.withoutData,
    },
  )
  let error: string | undefined
  for (const chunk of chunks) {
    const pushed = describeError(reader.push(chunk))
    if (pushed !== undefined) {
      assert.isUndefined(error, "a reader gives its error once")
      error = pushed
    }
  }
  const end = reader.finish()
  return {
    events,
    error,
    unterminated: end.unterminated,
    finishError: describeError(end.error),
    retry: reader.retry(),
  }
}

const whole = (input: Uint8Array | string, setup?: Setup): Outcome =>
  read([typeof input === "string" ? bytes(input) : input], setup)

const message = (data: string, lastEventId = ""): Sse.Event => ({
  type: "message",
  data,
  lastEventId,
})

/** The chunkings every example is also read at: one byte at a time, and cut at each byte. */
const chunkings = (input: Uint8Array): Array<Array<Uint8Array>> => {
  const all = [[input], [...input].map((byte) => new Uint8Array([byte]))]
  for (let at = 1; at < input.length; at++) all.push([input.subarray(0, at), input.subarray(at)])
  return all
}

/** Reads `input` whole and at every chunking, checks they agree, and gives the outcome. */
const readAll = (input: string | Uint8Array, setup?: Setup): Outcome => {
  const data = typeof input === "string" ? bytes(input) : input
  const outcomes = chunkings(data).map((chunks) => read(chunks, setup))
  for (const outcome of outcomes) assert.deepStrictEqual(outcome, outcomes[0])
  return outcomes[0]!
}

describe("the WHATWG HTML standard's examples", () => {
  it("the stock ticker: three data lines are one event, joined by LF", () => {
    const outcome = readAll("data: YHOO\ndata: +2\ndata: 10\n\n")
    assert.deepStrictEqual(outcome.events, [message("YHOO\n+2\n10")])
  })

  it("a comment, then events that set and reset the last event ID", () => {
    const outcome = readAll(
      ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n",
    )
    assert.deepStrictEqual(outcome.events, [
      message("first event", "1"),
      message("second event", ""),
      message(" third event", ""),
    ])
  })

  it("the end of the stream does not dispatch the last event", () => {
    // The standard: the last event still has to end with a blank line.
    const outcome = readAll(": test stream\n\ndata: first event\nid: 1\n\ndata:  third event")
    assert.deepStrictEqual(outcome.events, [message("first event", "1")])
    assert.strictEqual(outcome.unterminated, " third event")
  })

  it("`data` alone is an empty data line; two are one newline; the last block is dropped", () => {
    const outcome = readAll("data\n\ndata\ndata\n\ndata:")
    assert.deepStrictEqual(outcome.events, [message(""), message("\n")])
    assert.strictEqual(outcome.unterminated, "")
  })

  it("`data:test` and `data: test` are the same event: one space after the colon is dropped", () => {
    const outcome = readAll("data:test\n\ndata: test\n\n")
    assert.deepStrictEqual(outcome.events, [message("test"), message("test")])
  })

  it("events of named types", () => {
    const outcome = readAll(
      "event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n",
    )
    assert.deepStrictEqual(
      outcome.events.map((event) => [event.type, event.data]),
      [
        ["add", "73857293"],
        ["remove", "2153"],
        ["add", "113411"],
      ],
    )
  })
})

describe("lines", () => {
  const stream = (end: string) =>
    `data: a${end}data: b${end}${end}event: t${end}data: c${end}${end}: note${end}data${end}${end}`
  const expected = [message("a\nb"), { type: "t", data: "c", lastEventId: "" }, message("")]

  it("end at LF, CRLF or a lone CR, with the same events", () => {
    for (const end of ["\n", "\r\n", "\r"]) {
      assert.deepStrictEqual(readAll(stream(end)).events, expected, JSON.stringify(end))
    }
  })

  it("may mix the three line ends", () => {
    const outcome = readAll("data: a\r\ndata: b\rdata: c\n\r\n\rdata: d\r\r")
    assert.deepStrictEqual(outcome.events, [message("a\nb\nc"), message("d")])
  })

  it("read a CR at the end of a chunk and an LF at the start of the next as one line end", () => {
    // Were the LF a second line end, it would be a blank line, dispatching "a" alone.
    const outcome = read([bytes("data: a\r"), bytes("\ndata: b\r\n\r\n")])
    assert.deepStrictEqual(outcome.events, [message("a\nb")])
    // An empty chunk between them changes nothing.
    const gap = read([bytes("data: a\r"), new Uint8Array(0), bytes("\ndata: b\r\n\r"), bytes("\n")])
    assert.deepStrictEqual(gap.events, [message("a\nb")])
  })

  it("read two CRs as two line ends: a line, then a blank line", () => {
    assert.deepStrictEqual(readAll("data: a\r\rdata: b\r\r").events, [message("a"), message("b")])
  })

  it("skip one byte order mark at the start, and only there", () => {
    assert.deepStrictEqual(readAll("\uFEFFdata: a\n\n").events, [message("a")])
    // A second one is part of the first field's name, which is then no field SSE knows.
    assert.deepStrictEqual(readAll("\uFEFF\uFEFFdata: a\n\ndata: b\n\n").events, [message("b")])
    assert.deepStrictEqual(readAll("data: a\n\n\uFEFFdata: b\n\n").events, [message("a")])
    assert.deepStrictEqual(readAll("\uFEFF: comment\ndata: a\n\n").events, [message("a")])
    assert.deepStrictEqual(readAll("\uFEFF\n\uFEFFdata: a\n\n").events, [])
    assert.strictEqual(readAll("\uFEFFdata: [DONE]").unterminated, "[DONE]")
  })

  it("skip comments, whatever they hold, also bytes that are not UTF-8", () => {
    const outcome = readAll(concat(bytes(":\n: a: b\ndata: x\n:"), [0xff, 0xfe], bytes("\n\n")))
    assert.deepStrictEqual(outcome.events, [message("x")])
    assert.isUndefined(outcome.error)
  })

  it("split a field at its first colon and drop one space", () => {
    const outcome = readAll("data: a: b\ndata:  c\ndata:d:\ndata::\n\n")
    assert.deepStrictEqual(outcome.events, [message("a: b\n c\nd:\n:")])
  })

  it("ignore fields SSE does not know, and names that differ in case", () => {
    const outcome = readAll("Data: a\ndat: b\ndatas: c\nfoo\nlongfieldname: d\ndata: e\n\n")
    assert.deepStrictEqual(outcome.events, [message("e")])
  })

  it("keep text that is not ASCII", () => {
    const outcome = readAll("event: 𝑒\ndata: Grüße, 世界 🙂\nid: ✓\n\n")
    assert.deepStrictEqual(outcome.events, [
      { type: "𝑒", data: "Grüße, 世界 🙂", lastEventId: "✓" },
    ])
  })
})

describe("events", () => {
  it("are not dispatched when no data line came, and forget their type", () => {
    const outcome = readAll("event: ping\n\nid: 3\n\n: x\n\ndata: a\n\n")
    assert.deepStrictEqual(outcome.events, [message("a", "3")])
  })

  it("with a type and no data are told to onEventWithoutData, which can stop the reader", () => {
    const seen: Array<string> = []
    const outcome = readAll("event: ping\n\nevent:\n\n\n\ndata: a\n\nevent: stop\n\ndata: b\n\n", {
      withoutData: (type) => {
        seen.push(type)
        return type !== "stop"
      },
    })
    assert.deepStrictEqual(outcome.events, [message("a")])
    assert.isUndefined(outcome.error)
    // Read once per chunking, and each reading saw the same types.
    assert.deepStrictEqual(seen.slice(0, 3), ["ping", "message", "stop"])
  })

  it("keep the last event ID until an `id:` changes it; one that holds U+0000 is ignored", () => {
    const outcome = readAll("id: 1\ndata: a\n\ndata: b\n\nid: x\u0000y\ndata: c\n\nid\ndata: d\n\n")
    assert.deepStrictEqual(outcome.events, [
      message("a", "1"),
      message("b", "1"),
      message("c", "1"),
      message("d", ""),
    ])
  })

  it("take the type `event:` names, or message when it names none", () => {
    const outcome = readAll(
      "event: a\ndata: 1\n\nevent:\ndata: 2\n\nevent: b\nevent: c\ndata: 3\n\n",
    )
    assert.deepStrictEqual(
      outcome.events.map((event) => event.type),
      ["a", "message", "c"],
    )
  })
})

describe("retry", () => {
  it("sets the reconnection time from ASCII digits only", () => {
    assert.isUndefined(readAll("data: a\n\n").retry)
    assert.strictEqual(readAll("retry: 3000\n").retry, 3000)
    assert.strictEqual(readAll("retry:10\nretry: 2s\nretry:\nretry: -1\nretry: 1 2\n").retry, 10)
    assert.strictEqual(readAll("retry: 5\nretry: ５\nretry: 1e3\n").retry, 5)
    assert.strictEqual(readAll("retry: 007\n").retry, 7)
    // Too large to be exact: ignored.
    assert.strictEqual(readAll(`retry: 1\nretry: ${"9".repeat(20)}\n`).retry, 1)
  })

  it("dispatches nothing, and is read only at the end of its line", () => {
    const outcome = readAll("retry: 100\n\nretry: 200")
    assert.deepStrictEqual(outcome.events, [])
    assert.strictEqual(outcome.retry, 100)
  })
})

describe("limits", () => {
  // 10 bytes of data line, 1 of the blank line: 11 bytes.
  const event = "data: abc\n\n"

  it("maxEventBytes counts an event's bytes, with the first byte of the blank line's end", () => {
    for (const [max, error] of [
      [10, "ResponseLimit maxEventBytes=10"],
      [11, undefined],
      [12, undefined],
    ] as const) {
      const outcome = readAll(`${event}${event}`, { maxEventBytes: max })
      if (error === undefined) {
        assert.deepStrictEqual(outcome.events, [message("abc"), message("abc")])
        assert.isUndefined(outcome.error)
      } else {
        assert.deepStrictEqual(outcome.events, [])
        assert.strictEqual(
          outcome.error,
          `${error}: an event of the stream is longer than ${max} bytes (the maxEventBytes option)`,
        )
      }
    }
  })

  it("counts a CRLF as two bytes, and the blank line's as one at every chunking", () => {
    // 9 + 2 + 1: the LF of the last CRLF belongs to no event.
    const crlf = "data: abc\r\n\r\ndata: d\r\n\r\n"
    assert.match(readAll(crlf, { maxEventBytes: 11 }).error ?? "", /maxEventBytes=11/)
    assert.isUndefined(readAll(crlf, { maxEventBytes: 12 }).error)
  })

  it("counts bytes, not characters", () => {
    // "data: é€🙂\n" is 6 + 2 + 3 + 4 + 1 = 16 bytes, then 1 for the blank line.
    const text = "data: é€🙂\n\n"
    assert.match(readAll(text, { maxEventBytes: 16 }).error ?? "", /maxEventBytes/)
    assert.deepStrictEqual(readAll(text, { maxEventBytes: 17 }).events, [message("é€🙂")])
    // Comments and other fields count too, and a blank line starts the count again.
    const long = `: ${"x".repeat(20)}\nid: 1\n${event}`
    // 23 + 6 + 10 + 1 bytes.
    assert.match(readAll(long, { maxEventBytes: 39 }).error ?? "", /maxEventBytes/)
    assert.isUndefined(readAll(long, { maxEventBytes: 40 }).error)
    assert.isUndefined(readAll(`: ${"x".repeat(20)}\n\n${event}`, { maxEventBytes: 24 }).error)
  })

  it("fails on a line that has not ended once it is past the limit, after the events before it", () => {
    const chunks = [bytes(`${event}data: ${"x".repeat(20)}`)]
    const outcome = read(chunks, { maxEventBytes: 20 })
    assert.deepStrictEqual(outcome.events, [message("abc")])
    assert.match(outcome.error ?? "", /maxEventBytes=20/)
    assert.isUndefined(outcome.unterminated)
  })

  it("maxBytes bounds the whole stream, after the events within it", () => {
    const all = `${event}${event}${event}`
    assert.deepStrictEqual(readAll(all, { maxBytes: 33 }).events.length, 3)
    assert.isUndefined(readAll(all, { maxBytes: 33 }).error)
    const over = readAll(all, { maxBytes: 32 })
    assert.strictEqual(over.events.length, 2)
    assert.strictEqual(
      over.error,
      "ResponseLimit maxBytes=32: the stream is longer than 32 bytes (the maxBytes option)",
    )
    assert.isUndefined(over.unterminated)
    // A reader stopped within the limit has no error.
    assert.isUndefined(readAll(all, { maxBytes: 32, stopAfter: 1 }).error)
  })
})

describe("text that is not ASCII", () => {
  // Lines that are not ASCII are decoded many at once and counted in characters where no event
  // can reach the limit, then the event still open is counted in bytes: the limit must fall at
  // the same byte whatever the chunking, and whatever came before.
  const words = ["plain", "слово", "単語", "🙂🚀", "é", "\u{10FFFF}"]
  const chunkSizes = [1, 3, 7, 32, 64, 100, 180, 300]
  const cut = (all: Uint8Array, size: number): Array<Uint8Array> => {
    const chunks: Array<Uint8Array> = []
    for (let at = 0; at < all.length; at += size) chunks.push(all.subarray(at, at + size))
    return chunks
  }
  /**
   * Reads `events` with `maxEventBytes` near one event's size (`sizes[which]` moved by `off`): the
   * reader fails on the limit exactly when an event is over it, and the same way at every chunking.
   */
  const meetsLimitAlike = (
    events: ReadonlyArray<string>,
    sizes: ReadonlyArray<number>,
    which: number,
    off: number,
  ) => {
    const maxEventBytes = Math.max(1, sizes[which % sizes.length]! + off)
    const input = bytes(events.join(""))
    const expected = maxEventBytes < Math.max(...sizes) ? /maxEventBytes/ : /^$/
    const first = read([input], { maxEventBytes })
    assert.match(first.error ?? "", expected)
    for (const size of chunkSizes) {
      assert.deepStrictEqual(read(cut(input, size), { maxEventBytes }), first)
    }
  }

  it("meets maxEventBytes at the same byte at every chunking", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }), {
          minLength: 1,
          maxLength: 8,
        }),
        lineEnd,
        fc.nat({ max: 7 }),
        fc.integer({ min: -2, max: 2 }),
        (pieces, end, which, off) => {
          const events = pieces.map((piece) => `data: ${piece.join(" ")}${end}${end}`)
          // An event's bytes: its data line with its line end, and one byte of the blank line's.
          const sizes = events.map((event) => bytes(event).length - (end === "\r\n" ? 1 : 0))
          meetsLimitAlike(events, sizes, which, off)
        },
      ),
      { seed: 45, numRuns: 1_000 },
    )
  })

  it("meets maxEventBytes at the same byte at every chunking, with events of several lines", () => {
    // LF only, as Anthropic Messages frames its events: the event still open at a chunk's end
    // has several lines, counted in bytes from the text's last characters (D42).
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom(...words),
            fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        fc.nat({ max: 7 }),
        fc.integer({ min: -2, max: 2 }),
        (pieces, which, off) => {
          const events = pieces.map(
            ([type, piece]) => `event: ${type}\nid: ${type}\ndata: ${piece.join(" ")}\n\n`,
          )
          const sizes = events.map((event) => bytes(event).length)
          meetsLimitAlike(events, sizes, which, off)
        },
      ),
      { seed: 46, numRuns: 1_000 },
    )
  })

  it("counts the bytes of an event a chunk ends inside, after whole lines", () => {
    for (const content of ["🙂🚀 слово", "単語 é \u0800\u07ff\u0080\u007f", "plain"]) {
      for (const end of ["\n", "\r\n", "\r"]) {
        const event = `data: ${content}${end}${end}`
        const size = bytes(event).length - (end === "\r\n" ? 1 : 0)
        // A blank line and an event first; the first chunk ends after the second event's data
        // line, so that event is open at its end and its blank line comes in the next chunk.
        const input = bytes(`${end}data: x${end}${end}${event}data: y${end}${end}`)
        const at = input.length - bytes(`${end}data: y${end}${end}`).length
        const chunks = [input.subarray(0, at), input.subarray(at)]
        for (const [maxEventBytes, error] of [
          [size, ""],
          [size + 1, ""],
          [size - 1, "ResponseLimit"],
        ] as const) {
          const outcome = read(chunks, { maxEventBytes })
          assert.strictEqual(outcome.error?.slice(0, 13) ?? "", error, `${content} ${end}`)
        }
      }
    }
  })
})

describe("cost", () => {
  it("is linear in lines without a colon", () => {
    // A search for a field's colon that ran on past its line would read on to the end of the
    // text for each of these lines: 10^11 characters, far past the test's time limit.
    const input = bytes(`${"abcdefghij\n".repeat(200_000)}data: a\n\n`)
    assert.deepStrictEqual(whole(input).events, [message("a")])
  })
})

describe("UTF-8", () => {
  const invalid = concat(bytes("data: a\n\ndata: b"), [0xc3, 0x28], bytes("\n\ndata: c\n\n"))

  it("that is not valid fails in strict mode, after the events before it", () => {
    const outcome = readAll(invalid)
    assert.deepStrictEqual(outcome.events, [message("a")])
    assert.strictEqual(
      outcome.error,
      "Protocol: the stream is not valid UTF-8 (lenient mode reads it)",
    )
  })

  it("that is not valid reads as U+FFFD in lenient mode", () => {
    const outcome = readAll(invalid, { lenient: true })
    assert.deepStrictEqual(outcome.events, [message("a"), message("b\uFFFD("), message("c")])
    assert.isUndefined(outcome.error)
  })

  it("keeps a CR or an LF out of a character cut short", () => {
    const cut = concat(
      bytes("data: "),
      [0xe2, 0x82],
      bytes("\rdata: "),
      [0xf0, 0x9f],
      bytes("\n\r"),
    )
    assert.deepStrictEqual(readAll(cut, { lenient: true }).events, [message("\uFFFD\n\uFFFD")])
    assert.match(readAll(cut).error ?? "", /^Protocol/)
  })

  it("in the line the input ends inside: a Protocol error from finish, in strict mode", () => {
    const tail = concat(bytes("data: a\n\ndata: "), [0xff])
    const strict = readAll(tail)
    assert.deepStrictEqual(strict.events, [message("a")])
    assert.isUndefined(strict.error)
    assert.isUndefined(strict.unterminated)
    assert.match(strict.finishError ?? "", /^Protocol: the stream is not valid UTF-8/)
    assert.strictEqual(readAll(tail, { lenient: true }).unterminated, "\uFFFD")
    // A line that is not data is not decoded.
    assert.isUndefined(readAll(concat(bytes("event: "), [0xff])).finishError)
  })
})

describe("stopping", () => {
  it("onEvent returning false stops the reader: nothing after that event is read", () => {
    const events: Array<Sse.Event> = []
    const reader = Sse.reader(
      (event) => {
        events.push(event)
        return false
      },
      { maxEventBytes: 100, maxBytes: 20 },
    )
    // The second event, and the limit past it, are never read.
    assert.isUndefined(reader.push(bytes("data: a\n\ndata: b\n\ndata: c\n\n")))
    assert.isUndefined(reader.push(bytes("data: d\n\n")))
    assert.deepStrictEqual(events, [message("a")])
    assert.deepStrictEqual(reader.finish(), { unterminated: undefined, error: undefined })
  })

  it("after an error, nothing more is read or given", () => {
    const events: Array<Sse.Event> = []
    const reader = Sse.reader((event) => events.push(event) > 0, { maxEventBytes: 5 })
    assert.match(describeError(reader.push(bytes("data: abcdef\n\n"))) ?? "", /maxEventBytes/)
    assert.isUndefined(reader.push(bytes("data: a\n\n")))
    assert.deepStrictEqual(reader.finish(), { unterminated: undefined, error: undefined })
    assert.deepStrictEqual(events, [])
  })

  it("after finish, nothing more is read", () => {
    const events: Array<Sse.Event> = []
    const reader = Sse.reader((event) => events.push(event) > 0, { maxEventBytes: 100 })
    reader.push(bytes("data: a"))
    assert.strictEqual(reader.finish().unterminated, "a")
    assert.isUndefined(reader.push(bytes("\n\n")))
    assert.deepStrictEqual(reader.finish(), { unterminated: undefined, error: undefined })
    assert.deepStrictEqual(events, [])
  })
})

describe("finish", () => {
  it("gives the data of the event the input ends inside", () => {
    const cases: ReadonlyArray<readonly [string, string | undefined]> = [
      ["", undefined],
      ["data: a\n\n", undefined],
      ["data: a\n", "a"],
      ["data: a\ndata: b", "a\nb"],
      ["data: a\ndata:", "a\n"],
      ["data: a\nevent: x", "a"],
      ["event: x", undefined],
      ["data", ""],
      ["dat", undefined],
      ["datax: 1", undefined],
      [": data: x", undefined],
      ["data:[DONE]", "[DONE]"],
      ["data: a\r", "a"],
      ["data: a\r\n\r", undefined],
    ]
    for (const [input, unterminated] of cases) {
      assert.strictEqual(readAll(input).unterminated, unterminated, JSON.stringify(input))
    }
  })
})

describe("endsOnData", () => {
  const isDone = (data: string) => data === "[DONE]"

  it("dispatches a first data line it takes at the end of that line", () => {
    const outcome = readAll("data: a\n\nevent: t\nid: 9\ndata: [DONE]\r\ndata: b\n\n", {
      endsOnData: isDone,
    })
    assert.deepStrictEqual(outcome.events, [
      message("a"),
      { type: "t", data: "[DONE]", lastEventId: "9" },
      message("b", "9"),
    ])
  })

  it("takes only the first data line of an event", () => {
    const outcome = readAll("data: a\ndata: [DONE]\n\n", { endsOnData: isDone })
    assert.deepStrictEqual(outcome.events, [message("a\n[DONE]")])
  })

  it("ends the count of the event, so the rest of a CRLF counts for no event", () => {
    // 12 bytes and the CR: 13; its LF is not counted, cut where it may.
    const outcome = readAll("data: [DONE]\r\ndata: b\r\n\r\n", {
      endsOnData: isDone,
      maxEventBytes: 13,
    })
    assert.deepStrictEqual(outcome.events, [message("[DONE]"), message("b")])
    assert.isUndefined(outcome.error)
    const stopped = readAll("data: [DONE]\r\ndata: b\r\n\r\n", { endsOnData: isDone, stopAfter: 1 })
    assert.deepStrictEqual(stopped.events, [message("[DONE]")])
  })
})

// --- property tests -----------------------------------------------------------------------

/**
 * The standard's algorithm, read as plainly as it is written: the text (already decoded) in,
 * the events, the last event ID, the reconnection time and the data left over out. `max` adds
 * the maxEventBytes rule as {@link Sse.Options} says it; `endsOn` the `endsOnData` rule.
 */
const reference = (
  input: string,
  max = Number.POSITIVE_INFINITY,
  endsOn: (data: string) => boolean = () => false,
): {
  events: Array<Sse.Event>
  error: boolean
  retry: number | undefined
  unterminated: string | undefined
} => {
  const text = input.startsWith("\uFEFF") ? input.slice(1) : input
  const bom = text.length < input.length ? 3 : 0
  const lines: Array<{ line: string; end: string }> = []
  const ends = /\r\n|\r|\n/g
  let from = 0
  for (let found = ends.exec(text); found !== null; found = ends.exec(text)) {
    lines.push({ line: text.slice(from, found.index), end: found[0] })
    from = found.index + found[0].length
  }
  const rest = text.slice(from)
  const events: Array<Sse.Event> = []
  let data = ""
  let type = ""
  let lastEventId = ""
  let retry: number | undefined
  let count = bom
  const dispatch = () => {
    count = 0
    if (data === "") {
      type = ""
      return
    }
    if (data.endsWith("\n")) data = data.slice(0, -1)
    events.push({ type: type === "" ? "message" : type, data, lastEventId })
    data = ""
    type = ""
  }
  const field = (line: string): [string, string] => {
    const colon = line.indexOf(":")
    if (colon === -1) return [line, ""]
    const value = line.slice(colon + 1)
    return [line.slice(0, colon), value.startsWith(" ") ? value.slice(1) : value]
  }
  const interpret = (line: string) => {
    if (line === "") return dispatch()
    if (line.startsWith(":")) return
    const [name, value] = field(line)
    if (name === "data") {
      const first = data === ""
      data += `${value}\n`
      if (first && endsOn(value)) dispatch()
    } else if (name === "event") type = value
    else if (name === "id") {
      if (!value.includes("\u0000")) lastEventId = value
    } else if (name === "retry") {
      if (/^[0-9]+$/.test(value) && Number.isSafeInteger(Number(value))) retry = Number(value)
    }
  }
  for (const { line, end } of lines) {
    count += bytes(line).length + 1
    if (count > max) return { events, error: true, retry, unterminated: undefined }
    interpret(line)
    // The LF of a CRLF counts for the event when the line did not end it.
    if (end === "\r\n" && count > 0 && ++count > max) {
      return { events, error: true, retry, unterminated: undefined }
    }
  }
  // The line the input ends inside (or a byte order mark alone) counts as it grows.
  if (count + bytes(rest).length > max) {
    return { events, error: true, retry, unterminated: undefined }
  }
  if (rest !== "" && !rest.startsWith(":")) {
    const [name, value] = field(rest)
    if (name === "data") data += `${value}\n`
  }
  return { events, error: false, retry, unterminated: data === "" ? undefined : data.slice(0, -1) }
}

/** A value: letters, digits, colons, spaces, and text that is not ASCII, never a line end. */
const value = fc.string({
  unit: fc.constantFrom("a", "b", "Z", "0", "7", ":", " ", "é", "世", "🙂", "\u0000", "\uFEFF"),
  maxLength: 8,
})
const digits = fc.string({ unit: fc.constantFrom("0", "1", "5", "9"), minLength: 1, maxLength: 5 })
const separator = fc.constantFrom(":", ": ", ":  ", "")
const lineEnd = fc.constantFrom("\n", "\r\n", "\r")

/** One line of a stream, with its line end. Blank lines come often, so that events dispatch. */
const line = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(separator, value).map(([sep, v]) => `data${sep}${v}`) },
  { weight: 3, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: fc.constant("data: [DONE]") },
  { weight: 2, arbitrary: fc.tuple(separator, value).map(([sep, v]) => `event${sep}${v}`) },
  { weight: 1, arbitrary: fc.tuple(separator, value).map(([sep, v]) => `id${sep}${v}`) },
  { weight: 1, arbitrary: fc.oneof(digits, value).map((v) => `retry: ${v}`) },
  { weight: 1, arbitrary: value.map((v) => `:${v}`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom("foo", "Data", "dat", "eventx", "ids", "retry2", "x"),
        separator,
        value,
      )
      .map(([name, sep, v]) => `${name}${sep}${v}`),
  },
)

/** An event: a data line among a few others, then (most often) a blank line. */
const lines = fc
  .array(fc.tuple(line, lineEnd), { maxLength: 3 })
  .map((all) => all.map(([text, end]) => `${text}${end}`).join(""))
const block = fc
  .tuple(
    lines,
    fc.tuple(separator, value, lineEnd).map(([sep, v, end]) => `data${sep}${v}${end}`),
    lines,
    fc.oneof({ weight: 5, arbitrary: lineEnd }, { weight: 1, arbitrary: fc.constant("") }),
  )
  .map((parts) => parts.join(""))

/** A stream: events, perhaps a byte order mark first, perhaps a last line without its end. */
const stream = fc
  .tuple(
    fc.array(block, { maxLength: 8, size: "max" }),
    fc.boolean(),
    fc.option(fc.oneof(line, value), { nil: undefined }),
  )
  .map(([blocks, bom, tail]) => `${bom ? "\uFEFF" : ""}${blocks.join("")}${tail ?? ""}`)

/** Cut points in a stream of `length` bytes, as fractions, so they fit any stream. */
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 })
const cutAt = (input: Uint8Array, fractions: ReadonlyArray<number>): Array<Uint8Array> => {
  const points = [...new Set(fractions.map((f) => Math.floor(f * input.length)))].sort(
    (a, b) => a - b,
  )
  const chunks: Array<Uint8Array> = []
  let from = 0
  for (const point of points) {
    chunks.push(input.subarray(from, point))
    from = point
  }
  chunks.push(input.subarray(from))
  return chunks
}
const bytewise = (input: Uint8Array): Array<Uint8Array> =>
  [...input].map((byte) => new Uint8Array([byte]))

/** Bytes that are not a stream of lines: line ends, bytes that are not UTF-8, a cut character. */
const noise = fc.oneof(
  stream.map(bytes),
  fc.uint8Array({ maxLength: 6 }),
  fc.constantFrom(
    [0x0d],
    [0x0a],
    [0x0d, 0x0a],
    [0xff],
    [0xc3],
    [0xa9],
    [0xe2, 0x82],
    [0xf0, 0x9f, 0x99],
    [0xef, 0xbb, 0xbf],
    [0xed, 0xa0, 0x80],
  ),
)
const noisyStream = fc.array(noise, { maxLength: 8 }).map((parts) => concat(...parts))

const setup: fc.Arbitrary<Setup> = fc.record({
  maxEventBytes: fc.oneof(fc.integer({ min: 1, max: 80 }), fc.constant(1 << 30)),
  maxBytes: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
  lenient: fc.boolean(),
  endsOnData: fc.option(
    fc.constant((data: string) => data === "[DONE]"),
    { nil: undefined },
  ),
  stopAfter: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
})

describe("properties", () => {
  it("any chunking gives the same events, error and unterminated data as one push", () => {
    fc.assert(
      fc.property(
        fc.oneof(stream.map(bytes), noisyStream),
        cuts,
        setup,
        (input, fractions, options) => {
          const one = read([input], options)
          assert.deepStrictEqual(read(cutAt(input, fractions), options), one)
          assert.deepStrictEqual(read(bytewise(input), options), one)
        },
      ),
      { numRuns: 3_000, seed: 7_001 },
    )
  })

  it("reads what the standard's algorithm reads", () => {
    fc.assert(
      fc.property(stream, cuts, (text, fractions) => {
        const expected = reference(text)
        const input = bytes(text)
        for (const chunks of [[input], cutAt(input, fractions)]) {
          const outcome = read(chunks)
          assert.deepStrictEqual(outcome.events, expected.events)
          assert.strictEqual(outcome.retry, expected.retry)
          assert.strictEqual(outcome.unterminated, expected.unterminated)
          assert.isUndefined(outcome.error)
        }
      }),
      { numRuns: 3_000, seed: 7_002 },
    )
  })

  it("the generated streams dispatch several events", () => {
    // So that the comparison above compares something: most streams dispatch more than one.
    const samples = fc.sample(stream, { numRuns: 1_000, seed: 7_003 })
    const several = samples.filter((text) => reference(text).events.length >= 2).length
    assert.isAbove(several, 600)
  })

  it("meets maxEventBytes at the byte the standard's algorithm with the limit meets it", () => {
    fc.assert(
      fc.property(
        stream,
        cuts,
        fc.integer({ min: 1, max: 60 }),
        fc.boolean(),
        (text, fractions, max, ends) => {
          const endsOnData = ends ? (data: string) => data === "[DONE]" : undefined
          const expected = reference(text, max, endsOnData)
          const input = bytes(text)
          for (const chunks of [[input], cutAt(input, fractions)]) {
            const outcome = read(chunks, { maxEventBytes: max, endsOnData })
            assert.deepStrictEqual(outcome.events, expected.events)
            if (expected.error) assert.match(outcome.error ?? "", /maxEventBytes/)
            else {
              assert.isUndefined(outcome.error)
              assert.strictEqual(outcome.unterminated, expected.unterminated)
              assert.strictEqual(outcome.retry, expected.retry)
            }
          }
        },
      ),
      { numRuns: 3_000, seed: 7_004 },
    )
  })
})
