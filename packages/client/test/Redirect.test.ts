import { assert, describe, it } from "@effect/vitest"
import { Request, type SvirError } from "@svir/core"
import { Effect, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { Client } from "../src/index.js"
import { type Received, type Reply, type Server, serve } from "./httpServer.js"

const apiKey = "sk-redirect-secret-1234"
const headers = { "api-key": "azure-redirect-secret-5678" }
const hello = Request.make("m").pipe(Request.user("a prompt that must stay put"))

const completion: Reply = {
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    choices: [
      { index: 0, message: { role: "assistant", content: "moved" }, finish_reason: "stop" },
    ],
  }),
}

const streamed: Reply = {
  status: 200,
  headers: { "content-type": "text/event-stream" },
  body: [
    { choices: [{ index: 0, delta: { content: "moved" }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  ]
    .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
    .concat("data: [DONE]\n\n")
    .join(""),
}

const redirect = (status: number, location: string): Reply => ({
  status,
  headers: { location },
  body: "Moved",
})

const clientOf = (origin: string) =>
  Client.make({ baseUrl: origin, apiKey, headers, retry: false }).pipe(
    Effect.provide(FetchHttpClient.layer),
  )

const calls = (
  client: Client.Service,
): ReadonlyArray<readonly [string, Effect.Effect<unknown, SvirError.SvirError>]> => [
  ["complete", client.complete(hello)],
  ["stream", Stream.runCollect(client.stream(hello))],
  ["listModels", client.listModels()],
]

/** A server on another port of 127.0.0.1, and one on another loopback address, that answer all. */
const otherOrigins = Effect.all([serve(() => completion), serve(() => completion, "127.0.0.2")])

const assertNothingReached = (servers: ReadonlyArray<Server>) => {
  for (const server of servers) {
    assert.deepStrictEqual(server.received, [], `${server.origin} received a request`)
  }
}

describe("redirects", () => {
  for (const status of [301, 302, 307, 308]) {
    it.live(`a ${status} to another origin is not followed, and the error names it`, () =>
      Effect.gen(function* () {
        const others = yield* otherOrigins
        for (const other of others) {
          const server = yield* serve((request) =>
            redirect(status, `${other.origin}${request.path}?token=abc#part`),
          )
          const client = yield* clientOf(server.origin)
          for (const [via, call] of calls(client)) {
            const error = yield* Effect.flip(call)
            assert.strictEqual(error.reason._tag, "Config", via)
            assert.strictEqual(error.status, status)
            assert.include(error.message, other.origin)
            assert.notInclude(error.message, "token=abc")
          }
          assert.strictEqual(server.received.length, 3)
        }
        assertNothingReached(others)
      }),
    )
  }

  it.live("fetch options that ask to follow redirects do not change that", () =>
    Effect.gen(function* () {
      const others = yield* otherOrigins
      const server = yield* serve(() => redirect(307, `${others[1].origin}/v1/chat/completions`))
      const client = yield* clientOf(server.origin)
      const error = yield* Effect.flip(
        client
          .complete(hello)
          .pipe(Effect.provideService(FetchHttpClient.RequestInit, { redirect: "follow" })),
      )
      assert.strictEqual(error.reason._tag, "Config")
      assertNothingReached(others)
    }),
  )

  for (const status of [301, 302, 307, 308]) {
    it.live(`a ${status} within the origin is followed, with the method, headers and body`, () =>
      Effect.gen(function* () {
        const server = yield* serve((request: Received) => {
          if (!request.path.startsWith("/moved")) return redirect(status, `/moved${request.path}`)
          return request.headers.accept === "text/event-stream" ? streamed : completion
        })
        const client = yield* clientOf(server.origin)
        assert.strictEqual((yield* client.complete(hello)).text, "moved")
        const events = yield* Stream.runCollect(client.stream(hello))
        assert.strictEqual(events.at(-1)!._tag, "Completed")
        const [first, second] = server.received
        assert.strictEqual(second!.path, "/moved/v1/chat/completions")
        assert.strictEqual(second!.method, "POST")
        assert.strictEqual(second!.body, first!.body)
        assert.strictEqual(second!.headers.authorization, `Bearer ${apiKey}`)
        assert.strictEqual(second!.headers["api-key"], headers["api-key"])
        assert.strictEqual(server.received.length, 4)
      }),
    )
  }

  it.live("a redirect loop ends with a typed error after a bounded number of hops", () =>
    Effect.gen(function* () {
      const server = yield* serve((request) => redirect(307, request.path))
      const client = yield* clientOf(server.origin)
      const error = yield* Effect.flip(client.complete(hello))
      assert.strictEqual(error.reason._tag, "Config")
      assert.strictEqual(error.status, 307)
      assert.include(error.message, "redirected more than 5 times")
      assert.strictEqual(server.received.length, 6)
    }),
  )

  it.live("a redirect to a location that is not a URL is a typed error", () =>
    Effect.gen(function* () {
      const server = yield* serve(() => redirect(302, "http://[::1"))
      const client = yield* clientOf(server.origin)
      const error = yield* Effect.flip(client.complete(hello))
      assert.strictEqual(error.reason._tag, "Config")
      assert.strictEqual(server.received.length, 1)
    }),
  )
})
