import { assert, describe, it } from "@effect/vitest"
import { Request } from "@svir/core"
import { Deferred, Effect, Fiber, Stream } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { Client } from "../../src/index.js"
import { apiKey, failure } from "../helpers.js"
import { allClosed } from "./client.js"
import * as Hostile from "./HostileServer.js"

const hello = Request.make("hostile").pipe(Request.user("Hi"))

/** The headers of an event stream, then nothing. */
const headersOnly: Hostile.Behaviour = (response) => {
  response.writeHead(200, { "content-type": "text/event-stream" })
  response.flushHeaders()
}

/**
 * A fetch client that stops once a response's headers have arrived, before anyone reads its body:
 * it holds the client in the moment between the two, so a test can interrupt it there.
 */
const pausedAfterHeaders = Effect.gen(function* () {
  const headersArrived = yield* Deferred.make<void>()
  const fetch = yield* HttpClient.HttpClient.pipe(Effect.provide(FetchHttpClient.layer))
  const http = HttpClient.transformResponse(fetch, (response) =>
    Effect.tap(response, () =>
      Deferred.succeed(headersArrived, undefined).pipe(Effect.andThen(Effect.never)),
    ),
  )
  return { http, headersArrived: Deferred.await(headersArrived) }
})

describe("a stream stopped after the headers and before its body is read", () => {
  it.live("by the caller, lets the socket go", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => headersOnly)
      const paused = yield* pausedAfterHeaders
      const client = yield* Client.make({ baseUrl: server.url, apiKey, retry: false }).pipe(
        Effect.provideService(HttpClient.HttpClient, paused.http),
      )
      const fiber = yield* Effect.forkChild(Stream.runDrain(client.stream(hello)))
      yield* paused.headersArrived
      yield* Fiber.interrupt(fiber)
      yield* allClosed(server)
    }),
  )

  it.live("by the total timeout, lets the socket go", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => headersOnly)
      const paused = yield* pausedAfterHeaders
      const client = yield* Client.make({
        baseUrl: server.url,
        apiKey,
        retry: false,
        timeouts: { total: "200 millis" },
      }).pipe(Effect.provideService(HttpClient.HttpClient, paused.http))
      const error = yield* failure(Stream.runDrain(client.stream(hello)))
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.deepInclude(error.reason, { limit: "total" })
      yield* allClosed(server)
    }),
  )
})

describe("a stream whose server sends the headers and then nothing", () => {
  it.live("meets the total timeout before the first token one, and lets the socket go", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => headersOnly)
      const client = yield* Client.make({
        baseUrl: server.url,
        apiKey,
        retry: false,
        timeouts: { total: "200 millis", firstToken: "1 day" },
      }).pipe(Effect.provide(FetchHttpClient.layer))
      const error = yield* failure(Stream.runDrain(client.stream(hello)))
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.deepInclude(error.reason, { limit: "total" })
      yield* allClosed(server)
    }),
  )
})
