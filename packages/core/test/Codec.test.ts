import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as fc from "fast-check"
import { Codec, Completion, Event, SvirError } from "../src/index.js"

/**
 * A toy codec for the adapters: one event per line. `t:TEXT` is a text piece, `end` completes
 * the answer, `err` fails it.
 */
const lines: Codec.Codec = {
  name: "lines",
  path: "/lines",
  encode: (request) => Effect.succeed({ model: request.model }),
  decodeResponse: (body) => Effect.succeed(Completion.make({ text: body, finish: "stop" })),
  decoder: () => {
    let pending = ""
    let text = ""
    let done = false
    const decoder = new TextDecoder()
    const line = (raw: string): Codec.DecodeStep => {
      if (raw.startsWith("t:")) {
        text += raw.slice(2)
        return { events: [Event.textDelta(raw.slice(2))], error: undefined }
      }
      done = true
      return raw === "end"
        ? { events: [Event.completed(Completion.make({ text, finish: "stop" }))], error: undefined }
        : { events: [], error: SvirError.make("Server", "the answer failed") }
    }
    return {
      done: () => done,
      push: (bytes) => {
        pending += decoder.decode(bytes, { stream: true })
        const events: Array<Event.Event> = []
        let end = pending.indexOf("\n")
        while (end !== -1 && !done) {
          const step = line(pending.slice(0, end))
          events.push(...step.events)
          if (step.error) return { events, error: step.error }
          pending = pending.slice(end + 1)
          end = pending.indexOf("\n")
        }
        return { events, error: undefined }
      },
      finish: () => {
        done = true
        return { events: [], error: SvirError.make("TruncatedStream", "the answer was cut short") }
      },
    }
  },
}

const bytes = (text: string) => new TextEncoder().encode(text)

const chunked = (text: string, size: number): Array<Uint8Array> => {
  const all = bytes(text)
  const chunks: Array<Uint8Array> = []
  for (let at = 0; at < all.length; at += size) chunks.push(all.slice(at, at + size))
  return chunks
}

describe("Codec", () => {
  it.effect("decodes a byte stream into events, ending after Completed", () =>
    Effect.gen(function* () {
      const body = Stream.fromArray(chunked("t:Hel\nt:lo\nend\n", 3)).pipe(
        // Bytes after the answer must not be read.
        Stream.concat(Stream.die("read past the end")),
      )
      const events = yield* Stream.runCollect(Codec.decodeStream(lines, body))
      assert.deepStrictEqual(events, [
        Event.textDelta("Hel"),
        Event.textDelta("lo"),
        Event.completed(Completion.make({ text: "Hello", finish: "stop" })),
      ])
    }),
  )

  it.effect("gives every event decoded before an error, then the error", () =>
    Effect.gen(function* () {
      const seen: Array<Event.Event> = []
      const error = yield* Codec.decodeStream(lines, Stream.make(bytes("t:a\nt:b\nerr\n"))).pipe(
        Stream.runForEach((event) => Effect.sync(() => seen.push(event))),
        Effect.flip,
      )
      assert.deepStrictEqual(seen, [Event.textDelta("a"), Event.textDelta("b")])
      assert.strictEqual(error._tag === "SvirError" ? error.reason._tag : "", "Server")
    }),
  )

  it.effect("fails a stream that ends before the answer is complete", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Stream.runCollect(Codec.decodeStream(lines, Stream.make(bytes("t:a\n")))),
      )
      assert.strictEqual(error.reason._tag, "TruncatedStream")
    }),
  )

  it.effect("passes the byte stream's own failure through", () =>
    Effect.gen(function* () {
      const body = Stream.concat(Stream.make(bytes("t:a\n")), Stream.fail("connection reset"))
      const error = yield* Effect.flip(Stream.runCollect(Codec.decodeStream(lines, body)))
      assert.strictEqual(error, "connection reset")
    }),
  )

  it("decodeChunks gives the same outcome as the stream adapter, however the bytes are cut", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z ]{0,5}$/), { maxLength: 6 }),
        fc.constantFrom("end", "err", ""),
        fc.integer({ min: 1, max: 9 }),
        (pieces, last, size) => {
          const text = `${pieces.map((piece) => `t:${piece}\n`).join("")}${last}${last ? "\n" : ""}`
          const whole = Codec.decodeChunks(lines, [bytes(text)])
          const cut = Codec.decodeChunks(lines, chunked(text, size))
          assert.deepStrictEqual(cut, whole)
          const streamed = Effect.runSync(
            Stream.runCollect(
              Codec.decodeStream(lines, Stream.fromArray(chunked(text, size))),
            ).pipe(
              Effect.map((events) => ({ events, error: undefined })),
              Effect.catch((error) => Effect.succeed({ events: whole.events, error })),
            ),
          )
          assert.deepStrictEqual(streamed, whole)
        },
      ),
    )
  })
})
