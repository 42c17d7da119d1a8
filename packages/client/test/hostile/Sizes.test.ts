import { assert, describe, it } from "@effect/vitest"
import { Request } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"
import { Effect, Stream } from "effect"
import { failure } from "../helpers.js"
import { allClosed, clientOf } from "./client.js"
import * as Hostile from "./HostileServer.js"

const hello = Request.make("hostile").pipe(Request.user("Hi"))
const sse = { "content-type": "text/event-stream" }
const json = { "content-type": "application/json" }
const gzip = { "content-encoding": "gzip" }
const encode = (text: string) => new TextEncoder().encode(text)

const MiB = 1024 * 1024
/** 64 KiB of the letter a, written again and again: a body of any size without holding it. */
const letters = new Uint8Array(64 * 1024).fill(97)
/** 16 MiB of zeros, gzipped to about 16 KiB; members follow each other in one gzip body. */
const zerosMember = Hostile.gzipMember(16 * MiB, 0)
const lettersMember = Hostile.gzipMember(16 * MiB, 97)
const prefixMember = (text: string) => Hostile.gzip(encode(text))
/** Inflated, the bombs are 64 GiB; what the client does not read is never made. */
const bombMembers = 4096
const bombBytes = bombMembers * zerosMember.length

/** How far the resident memory may grow while a hostile body is read. */
const memoryHeadroom = 256 * MiB

/**
 * Runs the effect while sampling the resident memory, and checks that it grew by less than the
 * headroom: a client that held a hostile body whole would grow by hundreds of megabytes.
 */
const inBoundedMemory = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const before = process.memoryUsage.rss()
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss())
    }, 5)
    return effect.pipe(
      Effect.ensuring(Effect.sync(() => clearInterval(sampler))),
      Effect.tap(() =>
        Effect.sync(() =>
          assert.isBelow(
            peak - before,
            memoryHeadroom,
            `resident memory grew by ${Math.round((peak - before) / MiB)} MiB`,
          ),
        ),
      ),
    )
  })

describe("a 100 MB body", () => {
  const hundredMegabytes = 100 * 1000 * 1000

  it.live("a whole answer stops at maxResponseBytes, a ResponseLimit, and reads no further", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() =>
        Hostile.endless(200, json, letters, hundredMegabytes, encode('{"id":"')),
      )
      const client = yield* clientOf(server)
      const error = yield* inBoundedMemory(failure(client.complete(hello)))
      assert.strictEqual(error.reason._tag, "ResponseLimit")
      assert.deepInclude(error.reason, { limit: "maxResponseBytes", max: 16 * 1024 * 1024 })
      yield* allClosed(server)
      assert.isBelow(server.bytesWritten, 40 * MiB, "the read stopped early")
    }),
  )

  it.live("one gigantic SSE line is bounded by the codec's event limit", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() =>
        Hostile.endless(200, sse, letters, hundredMegabytes, encode("data: ")),
      )
      const client = yield* clientOf(server)
      const error = yield* inBoundedMemory(failure(Stream.runCollect(client.stream(hello))))
      assert.strictEqual(error.reason._tag, "ResponseLimit")
      yield* allClosed(server)
      assert.isBelow(server.bytesWritten, 30 * MiB, "the read stopped early")
    }),
  )

  it.live("a line without a field name is bounded the same way", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() =>
        Hostile.endless(200, sse, letters, hundredMegabytes),
      )
      const client = yield* clientOf(server)
      const error = yield* inBoundedMemory(failure(Stream.runCollect(client.stream(hello))))
      assert.strictEqual(error.reason._tag, "ResponseLimit")
      yield* allClosed(server)
      assert.isBelow(server.bytesWritten, 30 * MiB)
    }),
  )

  it.live("many well-formed events stop at the codec's limit on the whole answer", () =>
    Effect.gen(function* () {
      const big = encode(Hostile.frame(Hostile.chunk({ content: "a".repeat(256 * 1024) })))
      const server = yield* Hostile.start(() => Hostile.endless(200, sse, big, hundredMegabytes))
      const client = yield* clientOf(server, { codec: OpenAiCodec.make({ maxBytes: 8 * MiB }) })
      const error = yield* failure(Stream.runDrain(client.stream(hello)))
      assert.strictEqual(error.reason._tag, "ResponseLimit")
      yield* allClosed(server)
      assert.isBelow(server.bytesWritten, 30 * MiB)
    }),
  )
})

describe("a gzip bomb", () => {
  it.live("a whole answer stops at maxResponseBytes of inflated bytes", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() =>
        Hostile.endless(200, { ...json, ...gzip }, zerosMember, bombBytes),
      )
      const client = yield* clientOf(server)
      const error = yield* inBoundedMemory(failure(client.complete(hello)))
      assert.strictEqual(error.reason._tag, "ResponseLimit")
      yield* allClosed(server)
      assert.isBelow(server.bytesWritten, bombBytes / 4, "the read stopped early")
    }),
  )

  it.live("a stream stops at the codec's event limit", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() =>
        Hostile.endless(200, { ...sse, ...gzip }, lettersMember, bombBytes, prefixMember("data: ")),
      )
      const client = yield* clientOf(server)
      const error = yield* inBoundedMemory(failure(Stream.runCollect(client.stream(hello))))
      assert.strictEqual(error.reason._tag, "ResponseLimit")
      yield* allClosed(server)
      assert.isBelow(server.bytesWritten, bombBytes / 4, "the read stopped early")
    }),
  )

  it.live("an error body is read up to 64 KiB and reported by its status", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() =>
        Hostile.endless(503, { ...json, ...gzip }, lettersMember, bombBytes),
      )
      const client = yield* clientOf(server)
      const whole = yield* inBoundedMemory(failure(client.complete(hello)))
      assert.strictEqual(whole.reason._tag, "Transport")
      assert.strictEqual(whole.status, 503)
      const streamed = yield* inBoundedMemory(failure(Stream.runCollect(client.stream(hello))))
      assert.strictEqual(streamed.reason._tag, "Transport")
      assert.strictEqual(streamed.status, 503)
      yield* allClosed(server)
      assert.isBelow(server.bytesWritten, bombBytes / 4, "the reads stopped early")
    }),
  )

  it.live("a success that is not an event stream is read up to 64 KiB too", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() =>
        Hostile.endless(200, { ...json, ...gzip }, lettersMember, bombBytes),
      )
      const client = yield* clientOf(server)
      const error = yield* inBoundedMemory(failure(Stream.runCollect(client.stream(hello))))
      assert.strictEqual(error.reason._tag, "Unsupported")
      assert.include(error.message, "not an event stream")
      yield* allClosed(server)
      assert.isBelow(server.bytesWritten, bombBytes / 4, "the read stopped early")
    }),
  )
})
