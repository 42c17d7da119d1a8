/**
 * What the client adds to a request before the codec writes it (DECISIONS.md D13, D14): usage
 * asked for by default (the Rust crate's D21), the context size it was given (its P14), and files
 * by path read into the request.
 */
import { assert, describe, it } from "@effect/vitest"
import { Message, Request, SvirError } from "@svir/core"
import { Answer, ScriptedServer } from "@svir/testing"
import { ConfigProvider, Effect, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { Client } from "../../src/index.js"

const hello = Request.make("m").pipe(Request.user("hi"))

const setup = (script: ReadonlyArray<Answer.Answer>, options: Client.Options = {}) =>
  Effect.gen(function* () {
    const server = yield* ScriptedServer.start(script)
    const client = yield* Client.make({ baseUrl: server.url, retry: false, ...options }).pipe(
      Effect.provide(FetchHttpClient.layer),
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord({})),
    )
    return { server, client }
  })

const bodyOf = (server: ScriptedServer.ScriptedServer, index: number) =>
  server.bodies[index] as Record<string, unknown>

describe("the client's defaults", () => {
  it.live("asks for usage in a stream unless the request or the client says not to", () =>
    Effect.gen(function* () {
      const { server, client } = yield* setup([Answer.text("a"), Answer.text("b")])
      yield* Stream.runDrain(client.stream(hello))
      yield* Stream.runDrain(client.stream(hello.pipe(Request.includeUsage(false))))
      assert.deepStrictEqual(bodyOf(server, 0).stream_options, { include_usage: true })
      assert.notProperty(bodyOf(server, 1), "stream_options")
      const off = yield* setup([Answer.text("c")], { includeUsage: false })
      yield* Stream.runDrain(off.client.stream(hello))
      assert.notProperty(bodyOf(off.server, 0), "stream_options")
    }),
  )

  it.live("drops the usage it asked for when a strict server refuses it", () =>
    Effect.gen(function* () {
      const { server, client } = yield* setup([
        Answer.error(400, "Unrecognized request argument supplied: stream_options"),
        Answer.text("lean"),
      ])
      yield* Stream.runDrain(client.stream(hello))
      assert.property(bodyOf(server, 0), "stream_options")
      assert.notProperty(bodyOf(server, 1), "stream_options")
      assert.isTrue(yield* client.isStrict)
    }),
  )

  it.live("refuses a request that cannot fit the context size it was given", () =>
    Effect.gen(function* () {
      const { server, client } = yield* setup([Answer.text("unused")], { contextTokens: 16 })
      const error = yield* Effect.flip(client.complete(hello.pipe(Request.maxTokens(8))))
      assert.strictEqual(error.reason._tag, "ContextOverflow")
      assert.strictEqual(server.requests.length, 0)
      // A request's own size wins over the client's.
      const roomy = hello.pipe(Request.maxTokens(8), Request.contextTokens(100_000))
      assert.strictEqual((yield* client.complete(roomy)).text, "unused")
    }),
  )

  it.live("reads files by path with the reader it is given, before anything is sent", () =>
    Effect.gen(function* () {
      const files: Record<string, string> = { "notes.md": "buy milk" }
      const { server, client } = yield* setup([Answer.text("done")], {
        readFile: async (path) => {
          const text = files[path]
          if (text === undefined) throw new Error("no such file")
          return new TextEncoder().encode(text)
        },
      })
      const request = Request.make("m").pipe(
        Request.user([Message.textFileAt("notes.md"), Message.text("Summarize.")]),
      )
      assert.strictEqual((yield* client.complete(request)).text, "done")
      assert.include(JSON.stringify(bodyOf(server, 0).messages), "buy milk")
      const missing = Request.make("m").pipe(Request.user([Message.textFileAt("gone.md")]))
      const error = yield* Effect.flip(client.complete(missing))
      assert.isTrue(SvirError.isSvirError(error))
      assert.strictEqual(error.reason._tag, "Attachment")
      assert.strictEqual(server.requests.length, 1)
    }),
  )

  it.effect("refuses a context size that is not a whole number of 1 or more", () =>
    Effect.gen(function* () {
      for (const contextTokens of [0, -1, 1.5, Number.NaN]) {
        const error = yield* Effect.flip(
          Client.make({ baseUrl: "http://127.0.0.1:1/v1", contextTokens }).pipe(
            Effect.provide(FetchHttpClient.layer),
          ),
        )
        assert.strictEqual(error.reason._tag, "Config")
      }
    }),
  )
})
