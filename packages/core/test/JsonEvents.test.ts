import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { type Codec, Completion, Event, JsonEvents, SvirError } from "../src/index.js"

/**
 * A wire of three events: `{"type":"text","text":...}` gives a text delta, `{"type":"end"}`
 * ends the answer, `{"type":"error","message":...}` fails it. It reads `{"type":"stop"}` as the
 * stop reason, which a lenient reading takes as the end when the input ends after it.
 */
class Toy implements JsonEvents.Answer {
  text = ""
  stopped = false
  read: Array<unknown> = []
  constructor(private readonly lenient: boolean) {}

  event(data: unknown, out: Array<Event.Event>) {
    this.read.push(data)
    const event = data as {
      readonly type?: string
      readonly text?: string
      readonly message?: string
    }
    switch (event.type) {
      case "text":
        this.text += event.text ?? ""
        out.push(Event.textDelta(event.text ?? ""))
        return undefined
      case "stop":
        this.stopped = true
        return undefined
      case "end":
        return "completed" as const
      case "error":
        return SvirError.make("Server", `error: ${event.message}`)
      default:
        return SvirError.make("Protocol", `unknown event ${String(event.type)}`)
    }
  }

  complete() {
    return Result.succeed(Completion.make({ text: this.text, finish: "stop" }))
  }

  unfinished() {
    return this.stopped && this.lenient
      ? this.complete()
      : Result.fail(SvirError.make("TruncatedStream", "no end event"))
  }

  errorOfText(text: string) {
    return SvirError.make("Server", `error text: ${text}`)
  }

  errorOfBody(body: { readonly [key: string]: unknown }) {
    return SvirError.make("Server", `error body: ${JSON.stringify(body)}`)
  }
}

const bytes = (text: string) => new TextEncoder().encode(text)

/** Everything a decoder gives for `chunks`, then its end. */
const decode = (
  chunks: ReadonlyArray<string | Uint8Array>,
  options: Partial<JsonEvents.Options> = {},
) => {
  const lenient = options.lenient ?? false
  const toy = new Toy(lenient)
  const decoder = JsonEvents.decoder(toy, { maxEventBytes: 1_000, lenient, ...options })
  const steps: Array<Codec.DecodeStep> = []
  for (const chunk of chunks)
    steps.push(decoder.push(typeof chunk === "string" ? bytes(chunk) : chunk))
  steps.push(decoder.finish())
  const events = steps.flatMap((step) => step.events)
  const errors = steps.flatMap((step) => (step.error === undefined ? [] : [step.error]))
  return { events, errors, toy, done: decoder.done() }
}

const shown = (outcome: ReturnType<typeof decode>) => ({
  events: outcome.events.map((event) =>
    event._tag === "TextDelta"
      ? `text ${event.text}`
      : event._tag === "Completed"
        ? `completed ${event.completion.text}`
        : event._tag,
  ),
  errors: outcome.errors.map((error) => `${error.reason._tag}: ${error.message}`),
})

const answer =
  'data: {"type":"text","text":"Hi"}\n\n: a comment\n\ndata: {"type":"text","text":" there"}\n\ndata: {"type":"end"}\n\n'

describe("JsonEvents.decoder", () => {
  it("reads each event's data and ends with the completion, once", () => {
    const outcome = decode([answer, 'data: {"type":"text","text":"late"}\n\n'])
    assert.deepStrictEqual(shown(outcome), {
      events: ["text Hi", "text  there", "completed Hi there"],
      errors: [],
    })
    assert.isTrue(outcome.done)
    // Nothing after the end is read.
    assert.strictEqual(outcome.toy.read.length, 3)
  })

  it("gives the same events however the bytes are cut", () =>
    fc.assert(
      fc.property(fc.array(fc.nat(answer.length), { maxLength: 12 }), (cuts) => {
        const all = bytes(answer)
        const points = [0, ...[...cuts].sort((a, b) => a - b), all.length]
        const chunks = points.slice(1).map((end, n) => all.slice(points[n]!, end))
        assert.deepStrictEqual(shown(decode(chunks)), shown(decode([answer])))
      }),
    ))

  it("skips keep-alives, and reads what the data says whatever the event is called", () => {
    const outcome = decode([
      'data:\n\nevent: delta\ndata: {"type":"text","text":"a"}\n\n',
      'event: done\ndata: {"type":"end"}\n\n',
    ])
    assert.deepStrictEqual(shown(outcome).events, ["text a", "completed a"])
  })

  it("refuses data that is not JSON in strict mode, skips it in lenient mode", () => {
    const input = ['data: {"type":"text","text":"a"}\n\ndata: not json\n\ndata: {"type":"end"}\n\n']
    assert.deepStrictEqual(shown(decode(input)), {
      events: ["text a"],
      errors: ["Protocol: the server sent an event whose data is not JSON"],
    })
    assert.deepStrictEqual(shown(decode(input, { lenient: true })).events, [
      "text a",
      "completed a",
    ])
  })

  it("ends on JSON too deep in both modes", () => {
    const deep = `data: ${"[".repeat(600)}${"]".repeat(600)}\n\n`
    for (const lenient of [false, true]) {
      const outcome = decode([deep], { lenient, maxEventBytes: 10_000 })
      assert.strictEqual(outcome.errors[0]?.reason._tag, "Protocol")
      assert.strictEqual(outcome.toy.read.length, 0)
    }
  })

  it("tells an error event apart: words, an object that does not say so, one that does", () => {
    assert.deepStrictEqual(
      shown(decode(["event: error\ndata: overloaded, try later\n\n"])).errors,
      ["Server: error text: overloaded, try later"],
    )
    assert.deepStrictEqual(shown(decode(['event: error\ndata: {"message":"boom"}\n\n'])).errors, [
      'Server: error body: {"message":"boom"}',
    ])
    assert.deepStrictEqual(
      shown(decode(['event: error\ndata: {"type":"error","message":"boom"}\n\n'])).errors,
      ["Server: error: boom"],
    )
  })

  it("reads a last event without its blank line, and not a line cut short", () => {
    assert.deepStrictEqual(
      shown(decode(['data: {"type":"text","text":"a"}\n\ndata: {"type":"end"}'])).events,
      ["text a", "completed a"],
    )
    assert.deepStrictEqual(
      shown(decode(['data: {"type":"text","text":"a"}\n\ndata: {"type":"en'])),
      {
        events: ["text a"],
        errors: ["TruncatedStream: no end event"],
      },
    )
  })

  it("asks the wire what an answer without its end is: cut, or taken in lenient mode", () => {
    const stopped = ['data: {"type":"text","text":"a"}\n\ndata: {"type":"stop"}\n\n']
    assert.deepStrictEqual(shown(decode(stopped)).errors, ["TruncatedStream: no end event"])
    assert.deepStrictEqual(shown(decode(stopped, { lenient: true })), {
      events: ["text a", "completed a"],
      errors: [],
    })
  })

  it("ends with the reader's error: an event past its limit, bytes that are not UTF-8", () => {
    const long = `data: {"type":"text","text":"${"x".repeat(2_000)}"}\n\n`
    assert.strictEqual(decode([long]).errors[0]?.reason._tag, "ResponseLimit")
    const cut = decode([
      bytes('data: {"type":"text","text":"a"}\n\ndata: "'),
      new Uint8Array([0xe2, 0x82]),
    ])
    assert.deepStrictEqual(
      cut.errors.map((error) => error.reason._tag),
      ["Protocol"],
    )
  })
})
