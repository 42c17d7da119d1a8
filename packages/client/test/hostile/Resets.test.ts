import { assert, describe, it } from "@effect/vitest"
import { Codec, type Event, Request } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"
import { Effect, Stream } from "effect"
import { failure } from "../helpers.js"
import { allClosed, clientOf } from "./client.js"
import * as Hostile from "./HostileServer.js"

const hello = Request.make("hostile").pipe(Request.user("Hi"))
const sse = { "content-type": "text/event-stream" }

/** A whole streamed answer with text and two calls, frame by frame. */
const frames = [
  Hostile.frame(Hostile.chunk({ role: "assistant", content: "Looking up." })),
  Hostile.frame(
    Hostile.chunk({
      tool_calls: [
        { index: 0, id: "call_a", type: "function", function: { name: "lookup", arguments: "" } },
      ],
    }),
  ),
  Hostile.frame(Hostile.chunk({ tool_calls: [{ index: 0, function: { arguments: '{"id":' } }] })),
  Hostile.frame(Hostile.chunk({ tool_calls: [{ index: 0, function: { arguments: "42}" } }] })),
  Hostile.frame(
    Hostile.chunk({
      tool_calls: [
        { index: 1, id: "call_b", type: "function", function: { name: "now", arguments: "{}" } },
      ],
    }),
  ),
  Hostile.frame(Hostile.chunk({}, "tool_calls")),
  "data: [DONE]\n\n",
]
const whole = frames.join("")
const doneAt = whole.length - frames.at(-1)!.length

/** Where the answer is cut: after each frame, inside each frame, and inside `[DONE]`. */
const cuts: ReadonlyArray<number> = [
  0,
  ...frames.slice(0, -1).flatMap((_, i) => {
    const start = frames.slice(0, i).join("").length
    return [start + Math.floor(frames[i]!.length / 2), start + frames[i]!.length]
  }),
  doneAt + "data: [DON".length,
]

/** The events a clean decoder gives for the bytes before the cut. */
const eventsBefore = (cut: number): ReadonlyArray<string> => {
  const decoder = OpenAiCodec.make().decoder()
  return decoder.push(new TextEncoder().encode(whole.slice(0, cut))).events.map(tagOf)
}

const tagOf = (event: Event.Event): string => event._tag

describe("a connection cut mid-stream", () => {
  it("the whole answer, uncut, gives the calls", () => {
    const decoded = Codec.decodeChunks(OpenAiCodec.make(), [new TextEncoder().encode(whole)])
    const last = decoded.events.at(-1)
    assert.strictEqual(last?._tag === "Completed" && last.completion.calls.length, 2)
  })

  for (const how of ["close", "reset"] as const) {
    it.live(`by a ${how}, at any point, is a TruncatedStream and releases no call`, () =>
      Effect.gen(function* () {
        const server = yield* Hostile.start(({ index }) =>
          Hostile.cutAfter(sse, whole.slice(0, cuts[index]), how),
        )
        const client = yield* clientOf(server, {
          retry: { times: 2, baseDelay: "1 millis", maxDelay: "1 millis" },
        })
        for (const [index, cut] of cuts.entries()) {
          const seen: Array<string> = []
          const error = yield* failure(
            client
              .stream(hello)
              .pipe(Stream.runForEach((event) => Effect.sync(() => seen.push(tagOf(event))))),
          )
          assert.strictEqual(error.reason._tag, "TruncatedStream", `cut at byte ${cut}`)
          assert.notInclude(seen, "Completed", `cut at byte ${cut}`)
          // A reset may drop bytes the client had not read yet; a close delivers them all.
          if (how === "close") assert.deepStrictEqual(seen, eventsBefore(cut), `cut at ${cut}`)
          assert.strictEqual(server.requests, index + 1, "an answer that started is not retried")
        }
        yield* allClosed(server)
      }),
    )
  }

  it.live("a whole answer cut by a reset is a Transport error", () =>
    Effect.gen(function* () {
      const body = Hostile.completion("cut short")
      const server = yield* Hostile.start(() =>
        Hostile.cutAfter({ "content-type": "application/json" }, body.slice(0, 40), "reset"),
      )
      const client = yield* clientOf(server)
      const error = yield* failure(client.complete(hello))
      assert.strictEqual(error.reason._tag, "Transport")
      yield* allClosed(server)
    }),
  )
})
