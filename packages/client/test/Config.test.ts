import { assert, describe, it } from "@effect/vitest"
import { Request, SvirError } from "@svir/core"
import { Answer, ScriptedServer } from "@svir/testing"
import { ConfigProvider, Effect, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientResponse } from "effect/http"
import { Client } from "../src/index.js"

const make = (options: Client.Options, env: Record<string, string> = {}) =>
  Client.make(options).pipe(
    Effect.provide(FetchHttpClient.layer),
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env)),
  )

const configFailure = (options: Client.Options, env: Record<string, string> = {}) =>
  Effect.flip(make(options, env)).pipe(
    Effect.tap((error) => Effect.sync(() => assert.strictEqual(error.reason._tag, "Config"))),
  )

describe("configuration", () => {
  it.effect("normalizes the base URL, with or without /v1 and trailing slashes", () =>
    Effect.gen(function* () {
      const expectations: ReadonlyArray<readonly [string, string]> = [
        ["http://127.0.0.1:11434", "http://127.0.0.1:11434/v1"],
        ["http://127.0.0.1:11434/", "http://127.0.0.1:11434/v1"],
        ["http://localhost:1234/v1", "http://localhost:1234/v1"],
        ["http://localhost:1234/v1//", "http://localhost:1234/v1"],
        ["https://openrouter.ai/api/v1/", "https://openrouter.ai/api/v1"],
        ["http://[::1]:8080", "http://[::1]:8080/v1"],
        ["  https://example.com  ", "https://example.com/v1"],
      ]
      for (const [given, normalized] of expectations) {
        const client = yield* make({ baseUrl: given })
        assert.strictEqual(client.baseUrl, normalized)
      }
    }),
  )

  it.effect("refuses plain http beyond loopback unless allowed", () =>
    Effect.gen(function* () {
      const error = yield* configFailure({ baseUrl: "http://10.0.0.5:8000/v1" })
      assert.include(error.message, "allowInsecureHttp")
      const allowed = yield* make({ baseUrl: "http://10.0.0.5:8000/v1", allowInsecureHttp: true })
      assert.strictEqual(allowed.baseUrl, "http://10.0.0.5:8000/v1")
    }),
  )

  it.effect("refuses URLs that are not http(s), carry credentials, queries, or are not URLs", () =>
    Effect.gen(function* () {
      for (const baseUrl of [
        "not a url",
        "ftp://example.com",
        "https://user:hunter2@example.com/v1",
        "https://example.com/v1?key=1",
      ]) {
        const error = yield* configFailure({ baseUrl })
        assert.notInclude(error.message, "hunter2")
      }
    }),
  )

  it.effect("refuses reserved or malformed extra headers", () =>
    Effect.gen(function* () {
      for (const name of ["Authorization", "content-type", "Content-Length", "host"]) {
        const error = yield* configFailure({ headers: { [name]: "x" } })
        assert.include(error.message, name.toLowerCase())
      }
      yield* configFailure({ headers: { "bad name": "x" } })
      const injected = yield* configFailure({ headers: { "x-secret": "a\r\nhost: evil" } })
      assert.notInclude(injected.message, "evil")
    }),
  )

  it.effect("refuses an empty key or one with whitespace, without showing it", () =>
    Effect.gen(function* () {
      yield* configFailure({ apiKey: "" })
      const error = yield* configFailure({ apiKey: "sk-abc def" })
      assert.notInclude(error.message, "sk-abc")
      yield* configFailure({ apiKey: Redacted.make("sk-line\nbreak") })
    }),
  )

  it.effect("refuses a key or header value fetch cannot send, before anything is sent", () =>
    Effect.gen(function* () {
      // A key pasted with a typographic character would otherwise fail inside fetch, be taken
      // for a Transport error and be retried.
      const key = yield* configFailure({ apiKey: "sk-abc\u2026" })
      assert.notInclude(key.message, "sk-abc")
      yield* configFailure({ apiKey: "sk-ключ" })
      const header = yield* configFailure({ headers: { "x-team": "naïve ✓" } })
      assert.notInclude(header.message, "naïve")
    }),
  )

  it.effect("refuses policies that make no sense", () =>
    Effect.gen(function* () {
      yield* configFailure({ retry: { times: -1 } })
      yield* configFailure({ retry: { times: 1.5 } })
      yield* configFailure({ maxResponseBytes: 0 })
    }),
  )

  it.live("reads the key and the base URL from OPENAI_API_KEY and OPENAI_BASE_URL", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([Answer.text("from env")])
      const client = yield* make({}, { OPENAI_API_KEY: "sk-from-env", OPENAI_BASE_URL: server.url })
      const done = yield* client.complete(Request.make("m").pipe(Request.user("Hi")))
      assert.strictEqual(done.text, "from env")
      assert.strictEqual(server.requests[0]!.headers.authorization, "Bearer sk-from-env")
    }),
  )

  it.live("sends no authorization without a key, and an option wins over the environment", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([Answer.text("a"), Answer.text("b")])
      const anonymous = yield* make({ baseUrl: server.url })
      yield* anonymous.complete(Request.make("m").pipe(Request.user("Hi")))
      assert.notProperty(server.requests[0]!.headers, "authorization")
      const blank = yield* make({ baseUrl: server.url }, { OPENAI_API_KEY: " " })
      assert.strictEqual(blank.baseUrl, server.url)
      const explicit = yield* make(
        { baseUrl: server.url, apiKey: Redacted.make("sk-option") },
        { OPENAI_API_KEY: "sk-env" },
      )
      yield* explicit.complete(Request.make("m").pipe(Request.user("Hi")))
      assert.strictEqual(server.requests[1]!.headers.authorization, "Bearer sk-option")
    }),
  )

  it.live("a request the codec cannot encode fails before anything is sent", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([Answer.text("unused")])
      const client = yield* make({ baseUrl: server.url })
      const error = yield* Effect.flip(client.complete(Request.make("")))
      assert.isTrue(SvirError.isSvirError(error))
      assert.strictEqual(error.reason._tag, "Unsupported")
      assert.strictEqual(server.requests.length, 0)
    }),
  )

  it.live("works as a layer, over fetch", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([Answer.text("via layer")])
      const done = yield* Client.complete(Request.make("m").pipe(Request.user("Hi"))).pipe(
        Effect.provide(Client.layerFetch({ baseUrl: server.url })),
      )
      assert.strictEqual(done.text, "via layer")
    }),
  )

  it.effect("runs over any HttpClient layer in place of fetch", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const canned = HttpClient.make((request) =>
        Effect.sync(() => {
          seen.push(`${request.method} ${request.url}`)
          const body = JSON.stringify({
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: "canned" },
                finish_reason: "stop",
              },
            ],
          })
          return HttpClientResponse.fromWeb(
            request,
            new Response(body, { headers: { "content-type": "application/json" } }),
          )
        }),
      )
      const client = yield* Client.make({ baseUrl: "https://llm.internal", apiKey: "k" }).pipe(
        Effect.provideService(HttpClient.HttpClient, canned),
      )
      const done = yield* client.complete(Request.make("m").pipe(Request.user("Hi")))
      assert.strictEqual(done.text, "canned")
      assert.deepStrictEqual(seen, ["POST https://llm.internal/v1/chat/completions"])
    }),
  )
})
