import * as Util from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Redaction, Request, type SvirError } from "@svir/core"
import { Cause, Effect, Logger, References, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { Client } from "../src/index.js"
import { type Reply, serve } from "./httpServer.js"

// A slash in the key and a plus in the header value, which HTML pages write `&#x2F;` and `&#43;`.
const apiKey = "sk-live/9f8e7d6c5b4a3210"
const headers = { "api-key": "azure+Key0123456789abc" }
const secrets = [apiKey, headers["api-key"]]

/** Each secret cut in two, as an echo split over two lines carries it: the halves. */
const halves = secrets.map((secret) => [secret.slice(0, 9), secret.slice(9)] as const)

/** The secrets, each split over two `data:` lines, which the reader joins with a line break. */
const splitOverLines = halves.map(([head, tail]) => `${head}\ndata: ${tail}`).join(" and ")

const html = (status: number): Reply => ({
  status,
  headers: { "content-type": "text/html; charset=utf-8" },
  body:
    "<!doctype html><html><body><h1>Bad gateway</h1><p>upstream refused key " +
    `sk-live&#x2F;9f8e7d6c5b4a3210 with api-key azure&#43;Key0123456789abc</p></body></html>`,
})

const events = (text: string): Reply => ({
  status: 200,
  headers: { "content-type": "text/event-stream" },
  body: text,
})

/** Each way a server echoes the secrets in a form the client must also read. */
const paths: ReadonlyArray<{
  readonly name: string
  readonly via: "complete" | "stream"
  readonly kind: SvirError.Kind
  readonly reply: Reply
}> = [
  {
    name: "an error event whose data lines split each secret in two",
    via: "stream",
    kind: "Server",
    reply: events(`event: error\ndata: bad key ${splitOverLines}\n\n`),
  },
  {
    name: "a data event that is not JSON, split over two data lines",
    via: "stream",
    kind: "Protocol",
    reply: events(`data: {"error": "bad key ${splitOverLines}"}\n\n`),
  },
  { name: "an HTML error page, retried", via: "complete", kind: "Transport", reply: html(502) },
  { name: "an HTML error page, streamed", via: "stream", kind: "Transport", reply: html(502) },
  { name: "an HTML 401 page", via: "complete", kind: "Authentication", reply: html(401) },
  {
    name: "an HTML page instead of an answer",
    via: "complete",
    kind: "Protocol",
    reply: html(200),
  },
]

/** Every way an error is shown: fields, printing, inspection, Effect's rendering of a cause. */
const renderings = (error: SvirError.SvirError): ReadonlyArray<string> => [
  error.message,
  error.serverMessage ?? "",
  String(error),
  JSON.stringify(error),
  JSON.stringify(error.toJSON()),
  Util.inspect(error, { depth: 10 }),
  Util.inspect(error.cause, { depth: 10 }),
  Cause.pretty(Cause.fail(error)),
]

const checker = Redaction.make(secrets)

/** Fails when a text holds a secret: whole, in any form, or the second half of one. */
const assertNoSecret = (texts: ReadonlyArray<string>, where: string) => {
  for (const text of texts) {
    for (const [head, tail] of halves) {
      assert.notInclude(text, `${head}${tail}`, where)
      assert.notInclude(text, tail, `${where} shows the second half of a secret`)
    }
    assert.notInclude(text, "&#43;Key", where)
    assert.notInclude(text, "&#x2F;9f8e", where)
    assert.isFalse(checker.reveals(text), `${where}: ${text}`)
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

const hello = Request.make("m").pipe(Request.user("Hi"))

describe("secrets echoed over lines or as HTML", () => {
  for (const path of paths) {
    it.live(`never show in an error or a log line: ${path.name}`, () =>
      Effect.gen(function* () {
        const server = yield* serve(() => path.reply)
        const client = yield* Client.make({
          baseUrl: server.origin,
          apiKey,
          headers,
          retry: { times: 1, baseDelay: "1 millis", maxDelay: "1 millis" },
        }).pipe(Effect.provide(FetchHttpClient.layer))
        const call =
          path.via === "complete" ? client.complete(hello) : Stream.runDrain(client.stream(hello))
        const { result: error, lines } = yield* withLogs(Effect.flip(call))
        assert.strictEqual(error.reason._tag, path.kind)
        assert.strictEqual(server.received[0]!.headers.authorization, `Bearer ${apiKey}`)
        // The server's words are kept, with the secrets replaced.
        assert.include(error.serverMessage ?? error.message, Redaction.placeholder)
        assertNoSecret(renderings(error), "the error")
        assertNoSecret(lines, "a log line")
      }),
    )
  }
})
