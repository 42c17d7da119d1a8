import { assert, describe, it } from "@effect/vitest"
import { Request } from "@svir/core"
import { Effect, Stream } from "effect"
import { failure } from "../helpers.js"
import { allClosed, clientOf } from "./client.js"
import * as Hostile from "./HostileServer.js"

const hello = Request.make("hostile").pipe(Request.user("Hi"))
const sse = { "content-type": "text/event-stream" }
const json = { "content-type": "application/json" }
const textEvent = Hostile.frame(Hostile.chunk({ role: "assistant", content: "a" }))

describe("a server that accepts and never answers", () => {
  it.live("a stream is a connect Timeout, and the socket is let go", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => Hostile.silent)
      const client = yield* clientOf(server, { timeouts: { connect: "300 millis" } })
      const error = yield* failure(Stream.runCollect(client.stream(hello)))
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.include(error.message, "connect timeout")
      assert.deepInclude(error.reason, { limit: "connect", limitMillis: 300 })
      yield* allClosed(server)
    }),
  )

  it.live("a whole answer is a first token Timeout, and the socket is let go", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => Hostile.silent)
      const client = yield* clientOf(server, { timeouts: { firstToken: "300 millis" } })
      const error = yield* failure(client.complete(hello))
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.include(error.message, "first token timeout")
      assert.deepInclude(error.reason, { limit: "firstToken", limitMillis: 300 })
      yield* allClosed(server)
    }),
  )

  it.live("a list of models is a connect Timeout", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => Hostile.silent)
      const client = yield* clientOf(server, { timeouts: { connect: "300 millis" } })
      const error = yield* failure(client.listModels())
      assert.strictEqual(error.reason._tag, "Timeout")
      yield* allClosed(server)
    }),
  )

  it.live("a list of models meets the total timeout, retries included", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => Hostile.silent)
      const client = yield* clientOf(server, {
        timeouts: { connect: "1 day", total: "300 millis" },
      })
      const error = yield* failure(client.listModels())
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.deepInclude(error.reason, { limit: "total", limitMillis: 300 })
      yield* allClosed(server)
    }),
  )

  it.live("every retry is abandoned in turn", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => Hostile.silent)
      const client = yield* clientOf(server, {
        timeouts: { connect: "200 millis" },
        retry: { times: 2, baseDelay: "1 millis", maxDelay: "1 millis" },
      })
      const error = yield* failure(Stream.runCollect(client.stream(hello)))
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.strictEqual(server.requests, 3)
      yield* allClosed(server)
    }),
  )
})

describe("a server that drips one byte at a time", () => {
  it.live("bytes that never make an event do not count as the first token", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => Hostile.drip(200, sse, "a", 50, "data: "))
      const client = yield* clientOf(server, { timeouts: { firstToken: "300 millis" } })
      const error = yield* failure(Stream.runCollect(client.stream(hello)))
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.include(error.message, "first token timeout")
      assert.isAbove(server.bytesWritten, 0, "the server was dripping")
      yield* allClosed(server)
    }),
  )

  it.live("bytes that never make the next event do not keep a stream alive", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => Hostile.drip(200, sse, "a", 50, textEvent))
      const client = yield* clientOf(server, { timeouts: { idle: "300 millis" } })
      const seen: Array<string> = []
      const error = yield* failure(
        client
          .stream(hello)
          .pipe(Stream.runForEach((event) => Effect.sync(() => seen.push(event._tag)))),
      )
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.include(error.message, "idle timeout")
      assert.deepInclude(error.reason, { limit: "idle", limitMillis: 300 })
      assert.deepStrictEqual(seen, ["TextDelta"])
      yield* allClosed(server)
    }),
  )

  it.live("a stream that never ends, though never idle, meets the total timeout", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => Hostile.eventsForever(textEvent, 50))
      const client = yield* clientOf(server, {
        timeouts: { idle: "300 millis", total: "500 millis" },
      })
      let deltas = 0
      const error = yield* failure(
        client.stream(hello).pipe(
          Stream.runForEach(() =>
            Effect.sync(() => {
              deltas += 1
            }),
          ),
        ),
      )
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.include(error.message, "total timeout")
      assert.deepInclude(error.reason, { limit: "total", limitMillis: 500 })
      assert.isAbove(deltas, 1)
      yield* allClosed(server)
    }),
  )

  it.live("a whole answer that drips is a first token Timeout, or the total one", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => Hostile.drip(200, json, '{"id":"x"', 50))
      const client = yield* clientOf(server, { timeouts: { firstToken: "300 millis" } })
      const error = yield* failure(client.complete(hello))
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.include(error.message, "first token timeout")
      const totalOnly = yield* clientOf(server, { timeouts: { total: "300 millis" } })
      const total = yield* failure(totalOnly.complete(hello))
      assert.strictEqual(total.reason._tag, "Timeout")
      assert.include(total.message, "total timeout")
      yield* allClosed(server)
    }),
  )

  it.live("an error body that drips is reported by its status, for both calls", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() =>
        Hostile.drip(503, json, '{"error":{"message":"busy"}}', 50),
      )
      const client = yield* clientOf(server, {
        errorBodyTimeout: "200 millis",
        timeouts: { connect: "2 seconds", firstToken: "2 seconds" },
      })
      const whole = yield* failure(client.complete(hello))
      assert.strictEqual(whole.reason._tag, "Transport")
      assert.strictEqual(whole.status, 503)
      const streamed = yield* failure(Stream.runCollect(client.stream(hello)))
      assert.strictEqual(streamed.reason._tag, "Transport")
      assert.strictEqual(streamed.status, 503)
      yield* allClosed(server)
    }),
  )
})
