/**
 * A codec for a wire that is not Chat Completions, written against `@svir/core` alone as a third
 * party would, runs through the client with its own auth, errors, retries, listing, provider name,
 * base URL and environment variables (D24). The server is a real HTTP server on loopback.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Codec, Completion, HttpError, Json, type Request, SvirError } from "@svir/core"
import { ConfigProvider, Effect, Result } from "effect"
import { FetchHttpClient } from "effect/http"
import { Client } from "../src/index.js"
import { type Received, type Reply, serve } from "./httpServer.js"

/** A tiny wire: `{"prompt": ...}` in, `{"said": ...}` out; its stream is one line of text. */
const tinyCodec: Codec.Codec = {
  name: "tiny",
  path: "/say",
  encode: (request: Request.Request) =>
    Effect.succeed({ model: request.model, prompt: request.messages.length }),
  decodeResponse: (body) => {
    const json = Json.parse(body)
    const said = Result.isSuccess(json) && Json.isObject(json.success) ? json.success.said : 0
    return typeof said === "string"
      ? Effect.succeed(Completion.make({ text: said, finish: "stop" }))
      : Effect.fail(SvirError.make("Protocol", "no `said`"))
  },
  decoder: () => {
    throw new Error("not streamed in this test")
  },
  http: {
    provider: "tiny-ai",
    baseUrl: undefined,
    environment: { apiKey: "TINY_KEY", baseUrl: "TINY_URL" },
    headers: (apiKey) => ({ "x-tiny-key": apiKey ?? "", "tiny-version": "7" }),
    readError: (response) =>
      // The wire's own overloaded status, retryable, and its own error shape.
      response.status === 529
        ? { kind: "Transport", words: HttpError.wordsOf(response.body, (body) => String(body.why)) }
        : HttpError.read(response),
    models: {
      path: "/catalog",
      query: { size: "all" },
      decode: (body) => {
        const json = Json.parse(body)
        const names =
          Result.isSuccess(json) && Json.isObject(json.success) ? json.success.names : []
        return Effect.succeed(
          (Array.isArray(names) ? names : []).map((id) => ({
            id: String(id),
            name: undefined,
            ownedBy: undefined,
          })),
        )
      },
    },
  },
}

const withServer = <A>(
  handle: (request: Received) => Reply,
  options: Client.Options,
  use: (client: Client.Service) => Effect.Effect<A, SvirError.SvirError>,
) =>
  Effect.gen(function* () {
    const server = yield* serve(handle)
    const client = yield* Client.make({ baseUrl: server.origin, codec: tinyCodec, ...options })
    const result = yield* use(client)
    return { result, received: server.received }
  }).pipe(Effect.provide(FetchHttpClient.layer))

const said = (text: string): Reply => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ said: text }),
})

const request = { model: "t1", messages: [] } as unknown as Request.Request

describe("a codec of another wire, through the client", () => {
  it.effect("sends the key in the codec's headers, not as a bearer token", () =>
    Effect.gen(function* () {
      const { result, received } = yield* withServer(
        () => said("hi"),
        { apiKey: "tiny-secret-1" },
        (client) => client.complete(request),
      )
      assert.strictEqual(result.text, "hi")
      assert.strictEqual(received[0]!.path, "/v1/say")
      assert.strictEqual(received[0]!.headers["x-tiny-key"], "tiny-secret-1")
      assert.strictEqual(received[0]!.headers["tiny-version"], "7")
      assert.isUndefined(received[0]!.headers.authorization)
    }),
  )

  // A real server and a retry without delay: the clock is the live one.
  it.live("retries the wire's own retryable status and reads its error shape", () =>
    Effect.gen(function* () {
      let calls = 0
      const { result, received } = yield* withServer(
        () => (++calls === 1 ? { status: 529, body: '{"why":"busy"}' } : said("after")),
        { retry: { times: 1, baseDelay: 0 } },
        (client) => client.complete(request),
      )
      assert.strictEqual(result.text, "after")
      assert.strictEqual(received.length, 2)
      const failed = yield* Effect.flip(
        withServer(
          () => ({ status: 529, body: '{"why":"busy"}' }),
          { retry: false },
          (client) => client.complete(request),
        ),
      )
      assert.strictEqual(failed.reason._tag, "Transport")
      assert.strictEqual(failed.status, 529)
      assert.strictEqual(failed.serverMessage, "busy")
    }),
  )

  it.effect("lists models where the codec says, with its query and the caller's", () =>
    Effect.gen(function* () {
      const { result, received } = yield* withServer(
        () => ({ status: 200, body: '{"names":["a","b"]}' }),
        { query: { tenant: "t" } },
        (client) => client.listModels(),
      )
      assert.deepStrictEqual(
        result.map((model) => model.id),
        ["a", "b"],
      )
      assert.strictEqual(received[0]!.path, "/v1/catalog?size=all&tenant=t")
    }),
  )

  it.effect("refuses a caller's header that the codec makes from the key", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Client.make({
          baseUrl: "http://127.0.0.1:9",
          codec: tinyCodec,
          headers: { "X-Tiny-Key": "x" },
        }),
      )
      assert.strictEqual(error.reason._tag, "Config")
      assert.include(error.message, "x-tiny-key")
    }).pipe(Effect.provide(FetchHttpClient.layer)),
  )

  it.effect(
    "reads the codec's variables, never OpenAI's, and needs a base URL it has none of",
    () =>
      Effect.gen(function* () {
        const env = (record: Record<string, string>) =>
          Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(record))
        const noUrl = yield* Effect.flip(
          Client.make({ codec: tinyCodec }).pipe(
            env({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_KEY: "sk-openai" }),
          ),
        )
        assert.strictEqual(noUrl.reason._tag, "Config")
        assert.include(noUrl.message, "tiny")
        const server = yield* serve(() => said("env"))
        const client = yield* Client.make({ codec: tinyCodec }).pipe(
          env({ TINY_URL: server.origin, TINY_KEY: "tiny-from-env", OPENAI_API_KEY: "sk-openai" }),
        )
        yield* client.complete(request)
        assert.strictEqual(server.received[0]!.headers["x-tiny-key"], "tiny-from-env")
      }).pipe(Effect.provide(FetchHttpClient.layer)),
  )

  it.effect("keeps the key out of an error that echoes it", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        withServer(
          (received) => ({
            status: 401,
            body: JSON.stringify({ error: `bad key ${String(received.headers["x-tiny-key"])}` }),
          }),
          { apiKey: "tiny-secret-echoed", retry: false },
          (client) => client.complete(request),
        ),
      )
      assert.strictEqual(error.reason._tag, "Authentication")
      assert.notInclude(String(error.serverMessage), "tiny-secret-echoed")
      assert.include(String(error.serverMessage), "bad key")
    }),
  )

  it.effect("says a wire without a listing has none", () =>
    Effect.gen(function* () {
      const { http: _, ...bare } = tinyCodec
      const client = yield* Client.make({ baseUrl: "http://127.0.0.1:9", codec: bare })
      const error = yield* Effect.flip(client.listModels())
      assert.strictEqual(error.reason._tag, "Unsupported")
      assert.include(error.message, "tiny")
    }).pipe(Effect.provide(FetchHttpClient.layer)),
  )
})
