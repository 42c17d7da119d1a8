import * as Util from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { fc, it as prop } from "@fast-check/vitest"
import { Request, type SvirError } from "@svir/core"
import { Answer, ScriptedServer } from "@svir/testing"
import { Cause, ConfigProvider, Effect, Stream, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { Client } from "../src/index.js"
import * as Settings from "../src/internal/settings.js"
import { type Received, type Reply, serve } from "./httpServer.js"

// Azure's classic form, and a gateway key with characters a URL writes another way.
const query = {
  "api-version": "2024-10-21",
  "api-key": "azk+Q/9f=8e7&d6c 5b4a",
}
const secretValues = Object.values(query)

const hello = Request.make("gpt-4o-mini").pipe(Request.user("Hi"))

const json = (status: number, body: unknown): Reply => ({
  status,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
})

const answer = json(200, {
  id: "c",
  choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }],
})
const streamed: Reply = {
  status: 200,
  headers: { "content-type": "text/event-stream" },
  body: `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
}
const models = json(200, { data: [{ id: "gpt-4o-mini" }] })

const make = (options: Client.Options) =>
  Client.make({ apiKey: "sk-test-secret-4242", retry: false, ...options }).pipe(
    Effect.provide(FetchHttpClient.layer),
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord({})),
  )

/** Every way an error is shown. */
const renderings = (error: SvirError.SvirError): ReadonlyArray<string> => [
  error.message,
  error.serverMessage ?? "",
  String(error),
  JSON.stringify(error),
  Util.inspect(error, { depth: 10 }),
  Cause.pretty(Cause.fail(error)),
]

/** The query's values as given, percent-encoded, and JSON-escaped. */
const secretForms = secretValues.flatMap((value) => [
  value,
  encodeURIComponent(value),
  value.replaceAll("/", "\\/"),
])

const assertNoQueryValue = (texts: ReadonlyArray<string>, where: string) => {
  for (const text of texts) {
    for (const form of secretForms) {
      assert.notInclude(text, form, `${where} shows ${JSON.stringify(form)}`)
    }
  }
}

const queryOf = (request: Received) => new URL(request.path, "http://x").searchParams

describe("query parameters (D18)", () => {
  it.live("end every URL: a whole answer, a stream and the list of models", () =>
    Effect.gen(function* () {
      const server = yield* serve((request) =>
        request.method === "GET"
          ? models
          : JSON.parse(request.body).stream === true
            ? streamed
            : answer,
      )
      const client = yield* make({ baseUrl: `${server.origin}/openai/deployments/d`, query })
      assert.strictEqual((yield* client.complete(hello)).text, "Hi")
      yield* Stream.runDrain(client.stream(hello))
      yield* client.listModels()
      const encoded = "api-version=2024-10-21&api-key=azk%2BQ%2F9f%3D8e7%26d6c%205b4a"
      assert.deepStrictEqual(
        server.received.map((request) => `${request.method} ${request.path}`),
        [
          `POST /openai/deployments/d/chat/completions?${encoded}`,
          `POST /openai/deployments/d/chat/completions?${encoded}`,
          `GET /openai/deployments/d/models?${encoded}`,
        ],
      )
      for (const request of server.received) {
        assert.deepStrictEqual(Object.fromEntries(queryOf(request)), query)
      }
    }),
  )

  it.live("are sent to a scripted server, which answers as usual", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([Answer.text("One"), Answer.text("Two")])
      const client = yield* make({ baseUrl: server.url, query })
      assert.strictEqual((yield* client.complete(hello)).text, "One")
      const events = yield* Stream.runCollect(client.stream(hello))
      const last = events.at(-1)
      assert.strictEqual(last?._tag === "Completed" && last.completion.text, "Two")
      assert.deepStrictEqual(
        server.requests.map((request) => request.path),
        ["/v1/chat/completions", "/v1/chat/completions"],
      )
    }),
  )

  it.live("no query leaves the URLs as they were", () =>
    Effect.gen(function* () {
      const server = yield* serve(() => answer)
      const client = yield* make({ baseUrl: server.origin })
      yield* client.complete(hello)
      assert.strictEqual(server.received[0]!.path, "/v1/chat/completions")
    }),
  )

  prop.prop([
    fc.dictionary(fc.string({ unit: "binary", minLength: 1 }), fc.string({ unit: "binary" }), {
      maxKeys: 6,
    }),
  ])("each name and value reads back as given, whatever its characters", (given) => {
    const text = Settings.queryString(given)
    const read = new URL(`http://x/v1/chat/completions${text}`).searchParams
    assert.deepStrictEqual([...read], Object.entries(given))
    assert.strictEqual(text === "", Object.keys(given).length === 0)
  })
})

describe("query values are secrets (D18)", () => {
  /** Server replies that send the request's URL back, on each path an error can take. */
  const echoes: ReadonlyArray<{
    readonly name: string
    readonly via: "complete" | "stream"
    readonly kind: SvirError.Kind
    readonly reply: (request: Received) => Reply
  }> = [
    {
      name: "a JSON error body",
      via: "complete",
      kind: "Unsupported",
      reply: (r) => json(400, { error: { message: `no route ${r.path} (${decodeURI(r.path)})` } }),
    },
    {
      name: "a 200 that is not JSON",
      via: "complete",
      kind: "Protocol",
      reply: (r) => ({ status: 200, body: `echo ${r.path} ${decodeURIComponent(r.path)}` }),
    },
    {
      name: "an error event",
      via: "stream",
      kind: "Server",
      reply: (r) => ({
        status: 200,
        headers: { "content-type": "text/event-stream" },
        body: `event: error\ndata: ${JSON.stringify({ message: decodeURIComponent(r.path) })}\n\n`,
      }),
    },
  ]
  for (const echo of echoes) {
    it.live(`never show in an error: ${echo.name}, via ${echo.via}`, () =>
      Effect.gen(function* () {
        const server = yield* serve(echo.reply)
        const client = yield* make({ baseUrl: server.origin, query })
        const call =
          echo.via === "complete" ? client.complete(hello) : Stream.runDrain(client.stream(hello))
        const error = yield* Effect.flip(call)
        assert.strictEqual(error.reason._tag, echo.kind)
        assert.include(server.received[0]!.path, encodeURIComponent(query["api-key"]))
        assertNoQueryValue(renderings(error), "the error")
      }),
    )
  }

  it.live("a URL that cannot be reached is named without them", () =>
    Effect.gen(function* () {
      const client = yield* make({ baseUrl: "http://127.0.0.1:1/v1", query })
      const error = yield* Effect.flip(client.complete(hello))
      assert.strictEqual(error.reason._tag, "Transport")
      assert.include(error.message, "http://127.0.0.1:1/v1/chat/completions?api-version=")
      assertNoQueryValue(renderings(error), "the error")
    }),
  )

  it.live("a value beyond ASCII is kept out as the URL writes it, too", () =>
    Effect.gen(function* () {
      const token = "clé-secrète-42"
      const client = yield* make({ baseUrl: "http://127.0.0.1:1/v1", query: { token } })
      const error = yield* Effect.flip(client.complete(hello))
      assert.include(error.message, "?token=[redacted]")
      for (const text of renderings(error)) {
        assert.notInclude(text, encodeURIComponent(token))
        assert.notInclude(text, token)
      }
    }),
  )

  it.live("show as redacted in the request's span", () =>
    Effect.gen(function* () {
      const spans: Array<Tracer.NativeSpan> = []
      const tracer = Tracer.make({
        span: (options) => {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        },
      })
      const server = yield* serve(() => answer)
      const client = yield* make({ baseUrl: server.origin, query })
      yield* client.complete(hello).pipe(Effect.withTracer(tracer))
      const attributes = spans.flatMap((span) =>
        [...span.attributes].map(([name, value]) => `${name}=${String(value)}`),
      )
      assert.isTrue(attributes.some((attribute) => attribute.startsWith("url.full=")))
      assertNoQueryValue(attributes, "a span")
    }),
  )
})

describe("query configuration (D18, D19)", () => {
  it.effect("a base URL with a query is refused, naming its parameters and the option", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        make({
          baseUrl:
            "https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21&api-key=k3y-s3cret",
        }),
      )
      assert.strictEqual(error.reason._tag, "Config")
      assert.strictEqual(
        error.message,
        'the base URL must not have a query: give its parameters as the `query` option ("api-version", "api-key")',
      )
      assert.notInclude(error.message, "k3y-s3cret")
      for (const baseUrl of ["https://example.com/v1?", "https://example.com/v1#x"]) {
        assert.strictEqual((yield* Effect.flip(make({ baseUrl }))).reason._tag, "Config", baseUrl)
      }
    }),
  )

  it.effect("a name must not be empty, and a name or a value must be text a URL can carry", () =>
    Effect.gen(function* () {
      const empty = yield* Effect.flip(make({ baseUrl: "https://example.com", query: { "": "x" } }))
      assert.strictEqual(empty.reason._tag, "Config")
      assert.strictEqual(empty.message, '"" is not a valid query parameter name')
      const lone = yield* Effect.flip(
        make({ baseUrl: "https://example.com", query: { key: "s3cret\ud800" } }),
      )
      assert.strictEqual(lone.reason._tag, "Config")
      assert.strictEqual(
        lone.message,
        'the value of the query parameter "key" is not text a URL can carry',
      )
      const notText = yield* Effect.flip(
        make({ baseUrl: "https://example.com", query: { n: 5 as unknown as string } }),
      )
      assert.strictEqual(notText.reason._tag, "Config")
    }),
  )
})
