import * as Util from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Request, type SvirError } from "@svir/core"
import { Cause, Effect, Logger, References, Stream, Tracer } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { Client } from "../src/index.js"
import { type Received, type Reply, serve } from "./httpServer.js"

// A slash and a plus in the values, so that `\/` and `%2B` echoes are tried too.
const apiKey = "sk-live/9f8e7d6c5b4a3210"
const headers = {
  "api-key": "azure+Key0123456789abc",
  cookie: "session=c00kie/Value9876",
  "x-team-token": "tok_ABCDEF123456ghij",
}
const secrets = [apiKey, ...Object.values(headers)]

/** Every header value a request carried, whole, and the key alone. */
const echoedValues = (request: Received): ReadonlyArray<string> => {
  const values = Object.values(request.headers).flatMap((value) => value ?? [])
  const bearer = request.headers.authorization?.replace(/^Bearer /, "")
  return bearer === undefined ? values : [...values, bearer]
}

const unicodeEscaped = (text: string): string =>
  [...text].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")

/** The values echoed back as given, with `\/`, as `\uXXXX` escapes, and percent-encoded. */
const echoes = (request: Received): string =>
  echoedValues(request)
    .map(
      (value) =>
        `${value} | ${value.replaceAll("/", "\\/")} | ${unicodeEscaped(value)} | ${encodeURIComponent(value)}`,
    )
    .join(" ; ")

/** A text cut by a server's limit of `limit` characters six characters into the key. */
const cutInKey = (limit: number): string => `${"x".repeat(limit - 6)}${apiKey}`

const json = (status: number, body: unknown): Reply => ({
  status,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
})

const events = (text: string): Reply => ({
  status: 200,
  headers: { "content-type": "text/event-stream" },
  body: text,
})

/** Each way a server can send the request's secrets back, and the kind of error it gives. */
const paths: ReadonlyArray<{
  readonly name: string
  readonly via: "complete" | "stream" | "both"
  readonly kind: SvirError.Kind
  readonly reply: (request: Received) => Reply
}> = [
  {
    name: "a JSON error body",
    via: "both",
    kind: "Authentication",
    reply: (r) => json(401, { error: { message: echoes(r) } }),
  },
  {
    name: "a text error body, retried",
    via: "both",
    kind: "Transport",
    reply: (r) => ({ status: 500, body: `upstream said: ${echoes(r)}` }),
  },
  {
    name: "an error body cut at the server message limit",
    via: "both",
    kind: "Unsupported",
    reply: () => json(400, { error: { message: cutInKey(4096) } }),
  },
  {
    name: "a FastAPI detail",
    via: "both",
    kind: "Unsupported",
    reply: (r) => json(422, { detail: [{ msg: echoes(r), loc: ["body"] }] }),
  },
  {
    name: "a 200 that is an error",
    via: "complete",
    kind: "Server",
    reply: (r) => json(200, { error: { message: echoes(r) } }),
  },
  {
    name: "a 200 that is an error, cut",
    via: "complete",
    kind: "Server",
    reply: () => json(200, { error: { message: cutInKey(300) } }),
  },
  {
    name: "a 200 that is not JSON",
    via: "complete",
    kind: "Protocol",
    reply: (r) => ({ status: 200, body: echoes(r) }),
  },
  {
    name: "a 200 that is not JSON, cut",
    via: "complete",
    kind: "Protocol",
    reply: () => ({ status: 200, body: cutInKey(200) }),
  },
  {
    name: "an error chunk in the stream",
    via: "stream",
    kind: "Server",
    reply: (r) => events(`data: ${JSON.stringify({ error: { message: echoes(r) } })}\n\n`),
  },
  {
    name: "an error event",
    via: "stream",
    kind: "Server",
    reply: (r) => events(`event: error\ndata: ${echoes(r)}\n\n`),
  },
  {
    name: "an error event, cut",
    via: "stream",
    kind: "Server",
    reply: () => events(`event: error\ndata: ${cutInKey(4096)}\n\n`),
  },
  {
    name: "a data line that is not JSON",
    via: "stream",
    kind: "Protocol",
    reply: (r) => events(`data: not json ${echoes(r)}\n\n`),
  },
  {
    name: "a 200 that is not an event stream",
    via: "stream",
    kind: "Unsupported",
    reply: (r) => json(200, { echo: echoes(r) }),
  },
]

/** Every way an error is shown: fields, printing, inspection, Effect's rendering of a cause. */
const renderings = (error: SvirError.SvirError): ReadonlyArray<string> => [
  error.message,
  error.serverMessage ?? "",
  String(error),
  error.toString(),
  JSON.stringify(error),
  JSON.stringify(error.toJSON()),
  Util.inspect(error, { depth: 10 }),
  Util.inspect(error.cause, { depth: 10 }),
  Cause.pretty(Cause.fail(error)),
]

/** Fails the test when a text holds a secret as given, escaped, encoded, or cut short. */
const assertNoSecret = (texts: ReadonlyArray<string>, where: string) => {
  for (const text of texts) {
    for (const secret of secrets) {
      for (const form of [
        secret,
        secret.replaceAll("/", "\\/"),
        unicodeEscaped(secret),
        encodeURIComponent(secret),
        secret.slice(0, 6),
      ]) {
        assert.notInclude(text, form, `${where} shows ${JSON.stringify(form)}`)
      }
    }
  }
}

/** The log lines of an effect, at every level; none reaches the console. */
const withLogs = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const capture = Logger.make(({ message, cause }) => {
      lines.push(`${Util.inspect(message, { depth: 10 })} ${Cause.pretty(cause)}`)
    })
    const result = yield* effect.pipe(
      Effect.provide(Logger.layer([capture])),
      Effect.provideService(References.MinimumLogLevel, "All"),
    )
    return { result, lines }
  })

const hello = Request.make("m").pipe(Request.user("Hi"), Request.temperature(0.2))

const clientOf = (origin: string) =>
  Client.make({
    baseUrl: origin,
    apiKey,
    headers,
    retry: { times: 1, baseDelay: "1 millis", maxDelay: "1 millis" },
    errorBodyTimeout: "1 second",
  }).pipe(Effect.provide(FetchHttpClient.layer))

describe("secrets", () => {
  for (const path of paths) {
    const vias = path.via === "both" ? (["complete", "stream"] as const) : [path.via]
    for (const via of vias) {
      it.live(`never show in an error or a log line: ${path.name}, via ${via}`, () =>
        Effect.gen(function* () {
          const server = yield* serve(path.reply)
          const client = yield* clientOf(server.origin)
          const call =
            via === "complete" ? client.complete(hello) : Stream.runDrain(client.stream(hello))
          const { result: error, lines } = yield* withLogs(Effect.flip(call))
          assert.strictEqual(error.reason._tag, path.kind)
          // The server did receive the secrets, so each echo above is a real one.
          assert.strictEqual(server.received[0]!.headers["api-key"], headers["api-key"])
          assertNoSecret(renderings(error), "the error")
          assertNoSecret(lines, "a log line")
        }),
      )
    }
  }

  it.live("never show in an error or a log line of the list of models", () =>
    Effect.gen(function* () {
      const server = yield* serve((r) => json(503, { error: { message: echoes(r) } }))
      const client = yield* clientOf(server.origin)
      const { result: error, lines } = yield* withLogs(Effect.flip(client.listModels()))
      assert.strictEqual(error.reason._tag, "Transport")
      assert.strictEqual(server.received.length, 2, "retried once, and logged")
      assert.isAbove(lines.length, 0)
      assertNoSecret(renderings(error), "the error")
      assertNoSecret(lines, "a log line")
    }),
  )

  it.live("show as redacted in a span that records the request's headers", () =>
    Effect.gen(function* () {
      const spans: Array<Tracer.NativeSpan> = []
      const tracer = Tracer.make({
        span: (options) => {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        },
      })
      const server = yield* serve((r) => json(401, { error: { message: echoes(r) } }))
      const client = yield* clientOf(server.origin)
      yield* Effect.flip(client.complete(hello)).pipe(
        Effect.withTracer(tracer),
        Effect.provideService(HttpClient.TracerHeaderFilter, () => true),
      )
      const attributes = spans.flatMap((span) =>
        [...span.attributes].map(([name, value]) => `${name}=${String(value)}`),
      )
      assert.include(attributes, "http.request.header.api-key=<redacted>")
      assertNoSecret(attributes, "a span")
    }),
  )

  it.live("are replaced by a placeholder, so the rest of the server's words can be read", () =>
    Effect.gen(function* () {
      const server = yield* serve((r) => json(401, { error: { message: `bad key ${echoes(r)}` } }))
      const client = yield* clientOf(server.origin)
      const error = yield* Effect.flip(client.complete(hello))
      assert.match(error.serverMessage ?? "", /^bad key .*\[redacted\] \| \[redacted\]/)
    }),
  )
})
