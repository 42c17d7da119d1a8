import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { type Event, Request } from "@svir/core"
import { Answer } from "@svir/testing"
import { Effect, Stream } from "effect"
import { failure, serverAndClient } from "./helpers.js"

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/${name}.sse`, import.meta.url), "utf8")

/** Replays a recorded stream in pieces of `size` bytes, a little apart, as a network would. */
const replay = (name: string, size: number) => {
  const text = fixture(name)
  const pieces: Array<string> = []
  for (let start = 0; start < text.length; start += size)
    pieces.push(text.slice(start, start + size))
  return Answer.raw(pieces, { delayMillis: 1 })
}

const hello = Request.make("scripted").pipe(Request.user("Hi"))

const completion = (events: ReadonlyArray<Event.Event>) => {
  const last = events.at(-1)
  assert.strictEqual(last?._tag, "Completed")
  return last?._tag === "Completed" ? last.completion : undefined
}

describe("recorded-style streams, replayed over HTTP", () => {
  for (const size of [7, 64, 100_000]) {
    it.live(`Ollama's parallel calls at index 0 are two calls (pieces of ${size})`, () =>
      Effect.gen(function* () {
        const { client } = yield* serverAndClient([replay("ollama-parallel-calls", size)])
        const done = completion(yield* Stream.runCollect(client.stream(hello)))
        assert.deepStrictEqual(done?.calls, [
          { id: "call_k2n1x8qa", name: "lookup", arguments: '{"id":42}' },
          { id: "call_9fj2mzp0", name: "now", arguments: "{}" },
        ])
      }),
    )

    it.live(`keep-alive comments are skipped (pieces of ${size})`, () =>
      Effect.gen(function* () {
        const { client } = yield* serverAndClient([replay("mlx-keepalive", size)], {
          timeouts: { firstToken: "5 seconds" },
        })
        const done = completion(yield* Stream.runCollect(client.stream(hello)))
        assert.strictEqual(done?.text, "Hello")
      }),
    )
  }

  it.live("llama.cpp's error chunk without [DONE] is a context overflow with its words", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([replay("llamacpp-error-without-done", 50)])
      const error = yield* failure(Stream.runCollect(client.stream(hello)))
      assert.strictEqual(error.reason._tag, "ContextOverflow")
      assert.include(error.message + (error.serverMessage ?? ""), "context size")
      assert.strictEqual(server.requests.length, 1)
    }),
  )

  it.live("a stream cut after the arguments started releases no call", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([replay("vllm-truncated", 30)])
      const events: Array<Event.Event> = []
      const error = yield* failure(
        client
          .stream(hello)
          .pipe(Stream.runForEach((event) => Effect.sync(() => events.push(event)))),
      )
      assert.strictEqual(error.reason._tag, "TruncatedStream")
      assert.isTrue(events.every((event) => event._tag === "ToolCallDelta"))
      assert.strictEqual(server.requests.length, 1, "a stream that has started is not retried")
    }),
  )
})
