import { assert, describe, it } from "@effect/vitest"
import { Request, SvirError } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"
import { Answer } from "@svir/testing"
import { Cause, Deferred, Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { apiKey, failure, serverAndClient } from "./helpers.js"
import { allClosed, clientOf } from "./hostile/client.js"
import * as Hostile from "./hostile/HostileServer.js"
import { recordingSleeps } from "./hostile/sleeps.js"

const hello = Request.make("scripted").pipe(Request.user("Hi"))

describe("complete and stream", () => {
  it.live("reads a whole answer and sends the key, the model and the messages", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([Answer.text("Hello there")], {
        headers: { "X-Title": "svir tests" },
      })
      const done = yield* client.complete(hello)
      assert.strictEqual(done.text, "Hello there")
      assert.strictEqual(done.finish, "stop")
      const sent = server.requests[0]!
      assert.strictEqual(sent.path, "/v1/chat/completions")
      assert.strictEqual(sent.headers.authorization, `Bearer ${apiKey}`)
      assert.strictEqual(sent.headers["x-title"], "svir tests")
      assert.include(sent.headers["content-type"] ?? "", "application/json")
      assert.notProperty(sent.headers, "traceparent")
      assert.notProperty(sent.headers, "b3")
      assert.deepStrictEqual(sent.body, {
        model: "scripted",
        messages: [{ role: "user", content: "Hi" }],
      })
    }),
  )

  it.live("streams text and calls as they arrive, and ends with the completion", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient(
        [Answer.reply({ text: "Checking.", calls: [{ name: "lookup", arguments: { id: 42 } }] })],
        {},
        { chunkSize: 2 },
      )
      const events = yield* Stream.runCollect(client.stream(hello))
      const last = events.at(-1)!
      assert.strictEqual(last._tag, "Completed")
      if (last._tag !== "Completed") return
      assert.strictEqual(last.completion.text, "Checking.")
      assert.deepStrictEqual(last.completion.calls, [
        { id: "call_1", name: "lookup", arguments: '{"id":42}' },
      ])
      const texts = events.filter((event) => event._tag === "TextDelta")
      assert.isAbove(texts.length, 1, "text arrives in pieces")
      assert.strictEqual(server.requests[0]!.headers.accept, "text/event-stream")
      assert.strictEqual((server.bodies[0] as { stream: boolean }).stream, true)
    }),
  )

  it.live("sends to the path of the codec it is given", () =>
    Effect.gen(function* () {
      const codec = { ...OpenAiCodec.make(), path: "/unrouted" }
      const { server, client } = yield* serverAndClient([Answer.text("unused")], { codec })
      const error = yield* failure(client.complete(hello))
      assert.strictEqual(error.status, 404)
      assert.strictEqual(server.requests[0]!.path, "/v1/unrouted")
    }),
  )

  it.live("a failed list of models is a typed error too", () =>
    Effect.gen(function* () {
      const { server } = yield* serverAndClient([])
      const { client } = yield* serverAndClient([], { baseUrl: `${server.url}/nested` })
      const error = yield* failure(client.listModels())
      assert.strictEqual(error.reason._tag, "Unsupported")
      assert.strictEqual(error.status, 404)
      assert.include(error.serverMessage ?? "", "no route")
    }),
  )

  it.live("lists the server's models", () =>
    Effect.gen(function* () {
      const { client } = yield* serverAndClient([], {}, { model: "qwen3", models: ["llama3"] })
      const models = yield* client.listModels()
      assert.deepStrictEqual(
        models.map((model) => model.id),
        ["qwen3", "llama3"],
      )
      assert.strictEqual(models[0]!.ownedBy, "svir-testing")
    }),
  )
})

describe("HTTP statuses", () => {
  const cases: ReadonlyArray<readonly [Answer.Status, SvirError.Kind, string | undefined]> = [
    [Answer.error(401, "Invalid API key"), "Authentication", "Invalid API key"],
    [Answer.error(403, "forbidden model"), "Authentication", "forbidden model"],
    [Answer.error(408, "request timeout"), "Timeout", "request timeout"],
    [Answer.error(504, "gateway timeout"), "Timeout", "gateway timeout"],
    [Answer.error(429, "rate limit reached"), "RateLimited", "rate limit reached"],
    [
      Answer.error(400, "This model's maximum context length is 8192 tokens", {
        code: "context_length_exceeded",
      }),
      "ContextOverflow",
      "This model's maximum context length is 8192 tokens",
    ],
    [
      Answer.status(413, { error: "the request exceeds the available context size" }),
      "ContextOverflow",
      "the request exceeds the available context size",
    ],
    [
      Answer.status(422, { detail: [{ msg: "prompt is too long for the context window" }] }),
      "ContextOverflow",
      "prompt is too long for the context window",
    ],
    [
      Answer.error(400, "flagged by the content filter", { code: "content_filter" }),
      "ContentFilter",
      "flagged by the content filter",
    ],
    [Answer.status(500, { detail: "CUDA out of memory" }), "Transport", "CUDA out of memory"],
    [Answer.status(502, "Bad Gateway"), "Transport", "Bad Gateway"],
    [Answer.error(503, "model is loading"), "Transport", "model is loading"],
    [Answer.error(404, "model qwen9 not found"), "Unsupported", "model qwen9 not found"],
    [Answer.error(400, "tools are not supported"), "Unsupported", "tools are not supported"],
    [Answer.status(418, ""), "Unsupported", undefined],
  ]

  for (const [answer, kind, words] of cases) {
    it.live(`${answer.status} is ${kind}, with the server's message`, () =>
      Effect.gen(function* () {
        const { client } = yield* serverAndClient([answer], { retry: false })
        const error = yield* failure(client.complete(hello))
        assert.strictEqual(error.reason._tag, kind)
        assert.strictEqual(error.status, answer.status)
        assert.strictEqual(error.serverMessage, words)
        // The server's words can quote the prompt and messages get logged: never in the message.
        if (words !== undefined) assert.notInclude(error.message, words)
        assert.include(error.message, `HTTP ${answer.status}`)
      }),
    )
  }

  it.live("cuts a long server message", () =>
    Effect.gen(function* () {
      const { client } = yield* serverAndClient([Answer.error(400, "x".repeat(10_000))])
      const error = yield* failure(client.complete(hello))
      assert.strictEqual(error.serverMessage!.length, SvirError.serverMessageLimit + 1)
      assert.isBelow(error.message.length, 500)
    }),
  )

  it.live("reports a 401 without waiting for a stalled body, and drops the connection", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([
        Answer.error(401, "bad key", { stallBody: true }),
      ])
      const error = yield* failure(client.complete(hello))
      assert.strictEqual(error.reason._tag, "Authentication")
      assert.isUndefined(error.serverMessage)
      yield* Effect.promise(() => server.whenAbandoned(0))
    }),
  )

  it.live("a stalled error body is not taken for a timeout shorter than its wait", () =>
    Effect.gen(function* () {
      const stalled = Answer.error(401, "bad key", { stallBody: true })
      const { server, client } = yield* serverAndClient([stalled, stalled, stalled, stalled], {
        timeouts: { connect: "100 millis", firstToken: "100 millis" },
        errorBodyTimeout: "300 millis",
      })
      const streamed = yield* failure(Stream.runCollect(client.stream(hello)))
      assert.strictEqual(streamed.reason._tag, "Authentication")
      assert.strictEqual(server.requests.length, 1, "an Authentication error is not retried")
      const whole = yield* failure(client.complete(hello))
      assert.strictEqual(whole.reason._tag, "Authentication")
      assert.strictEqual(server.requests.length, 2)
    }),
  )

  it.live("never shows the API key, even when the server echoes it", () =>
    Effect.gen(function* () {
      const { client } = yield* serverAndClient([
        Answer.error(401, `Incorrect API key provided: ${apiKey}`),
      ])
      const error = yield* failure(client.complete(hello))
      assert.include(error.serverMessage ?? "", "[redacted]")
      const shown = [
        error.message,
        error.serverMessage,
        String(error),
        JSON.stringify(error),
        Cause.pretty(Cause.fail(error)),
      ].join("\n")
      assert.notInclude(shown, apiKey)
    }),
  )
})

describe("faults", () => {
  it.live("a connection reset mid-stream is a TruncatedStream, after the events before it", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([
        Answer.text("a long answer that breaks", {
          quirks: { resetAfterEvents: 3, eventDelayMillis: 20 },
        }),
        Answer.text("never asked for"),
      ])
      const seen: Array<string> = []
      const error = yield* failure(
        client
          .stream(hello)
          .pipe(Stream.runForEach((event) => Effect.sync(() => seen.push(event._tag)))),
      )
      assert.strictEqual(error.reason._tag, "TruncatedStream")
      assert.isAbove(seen.length, 0)
      assert.notInclude(seen, "Completed")
      assert.strictEqual(server.requests.length, 1, "an answer that has started is never retried")
    }),
  )

  it.live("a connection reset while a whole answer is read is retried", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([
        Answer.text("broken", { quirks: { resetAfterEvents: 0 } }),
        Answer.text("whole"),
      ])
      const done = yield* client.complete(hello)
      assert.strictEqual(done.text, "whole")
      assert.strictEqual(server.requests.length, 2)
    }),
  )

  it.live(
    "a 200 that is not an event stream, on a streamed request, is an error that says so",
    () =>
      Effect.gen(function* () {
        const { client } = yield* serverAndClient([
          Answer.text("Hi", { quirks: { notEventStream: true } }),
        ])
        const error = yield* failure(Stream.runCollect(client.stream(hello)))
        assert.strictEqual(error.reason._tag, "Unsupported")
        assert.strictEqual(error.status, 200)
        assert.include(error.message, "not an event stream")
        assert.include(error.message, "application/json")
      }),
  )

  it.live("a slow first token within the limit is fine; beyond it, a Timeout", () =>
    Effect.gen(function* () {
      const { client } = yield* serverAndClient(
        [
          Answer.text("late", { quirks: { firstTokenDelayMillis: 30 } }),
          Answer.text("too late", { quirks: { firstTokenDelayMillis: 5_000 } }),
        ],
        { timeouts: { firstToken: "1 second" }, retry: false },
      )
      const events = yield* Stream.runCollect(client.stream(hello))
      assert.strictEqual(events.at(-1)!._tag, "Completed")
      const { client: impatient } = yield* serverAndClient(
        [Answer.text("too late", { quirks: { firstTokenDelayMillis: 5_000 } })],
        { timeouts: { firstToken: "100 millis" } },
      )
      const error = yield* failure(Stream.runCollect(impatient.stream(hello)))
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.include(error.message, "first token")
    }),
  )

  it.live("a stream that goes quiet between events is an idle Timeout", () =>
    Effect.gen(function* () {
      const { client } = yield* serverAndClient(
        [Answer.text("slow and steady", { chunkSize: 4, quirks: { stallAfterEvents: 2 } })],
        { timeouts: { idle: "100 millis" } },
      )
      const error = yield* failure(Stream.runCollect(client.stream(hello)))
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.include(error.message, "idle")
    }),
  )

  it.effect(
    "a consumer that waits between reads is not idle: the limit runs only while it reads",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { client } = yield* serverAndClient(
            [Answer.text("read slowly", { chunkSize: 4 })],
            {
              timeouts: {
                idle: "100 millis",
                firstToken: "1 day",
                connect: "1 day",
                total: "1 day",
              },
            },
          )
          const pull = yield* Stream.toPull(client.stream(hello))
          const tags: Array<string> = [...(yield* pull)].map((event) => event._tag)
          // An hour passes while the caller does something else: the server is not to blame.
          yield* TestClock.adjust("1 hour")
          while (!tags.includes("Completed")) {
            for (const event of yield* pull) tags.push(event._tag)
          }
          assert.strictEqual(tags.at(-1), "Completed")
        }),
      ),
  )

  it.live("no answer at all is a connect Timeout, retried, each attempt abandoned", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([Answer.hang, Answer.hang], {
        timeouts: { connect: "100 millis" },
        retry: { times: 1, baseDelay: "1 millis" },
      })
      const error = yield* failure(Stream.runCollect(client.stream(hello)))
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.include(error.message, "connect")
      assert.strictEqual(server.requests.length, 2)
      yield* Effect.promise(() => Promise.all([server.whenAbandoned(0), server.whenAbandoned(1)]))
    }),
  )

  it.live("a whole answer that does not come in time is a first token Timeout", () =>
    Effect.gen(function* () {
      const { client } = yield* serverAndClient([Answer.hang], {
        timeouts: { firstToken: "100 millis", connect: "10 millis" },
        retry: false,
      })
      const error = yield* failure(client.complete(hello))
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.include(error.message, "first token")
    }),
  )

  it.live("the total timeout bounds the whole call", () =>
    Effect.gen(function* () {
      const { client } = yield* serverAndClient([Answer.hang, Answer.hang], {
        timeouts: { total: "150 millis" },
      })
      const error = yield* failure(client.complete(hello))
      assert.strictEqual(error.reason._tag, "Timeout")
      assert.include(error.message, "total")
      const streamed = yield* failure(Stream.runCollect(client.stream(hello)))
      assert.include(streamed.message, "total")
    }),
  )

  it.live("a server that cannot be reached is a Transport error", () =>
    Effect.gen(function* () {
      const { server } = yield* serverAndClient([])
      const { client } = yield* serverAndClient([], {
        baseUrl: server.url.replace(/:\d+/, ":1"),
        retry: false,
      })
      const error = yield* failure(client.complete(hello))
      assert.strictEqual(error.reason._tag, "Transport")
      assert.include(error.message, "could not reach")
    }),
  )
})

describe("retries", () => {
  it.live("retries a 503 and a 429 with Retry-After, then succeeds", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([
        Answer.error(503, "loading"),
        Answer.error(429, "slow down", { headers: { "retry-after": "0" } }),
        Answer.text("ok"),
      ])
      assert.strictEqual((yield* client.complete(hello)).text, "ok")
      assert.strictEqual(server.requests.length, 3)
    }),
  )

  it.live("gives up after the retries, with the last error", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([
        Answer.error(500, "one"),
        Answer.error(500, "two"),
        Answer.error(502, "three"),
      ])
      const error = yield* failure(client.complete(hello))
      assert.strictEqual(error.status, 502)
      assert.strictEqual(server.requests.length, 3)
    }),
  )

  it.live("does not retry what cannot get better", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([
        Answer.error(401, "bad key"),
        Answer.error(400, "no such tool"),
        Answer.text("unused"),
      ])
      assert.strictEqual((yield* failure(client.complete(hello))).reason._tag, "Authentication")
      assert.strictEqual((yield* failure(client.complete(hello))).reason._tag, "Unsupported")
      assert.strictEqual(server.requests.length, 2)
    }),
  )

  it.effect("waits what Retry-After asks, no less, before retrying", () =>
    Effect.gen(function* () {
      // Every time limit is a day away, so the one shorter sleep is the wait before the retry.
      const day = "1 day"
      const { server, client } = yield* serverAndClient(
        [
          Answer.error(429, "wait", { headers: { "retry-after": "2" } }),
          Answer.text("after the wait"),
        ],
        {
          timeouts: { connect: day, firstToken: day, idle: day, total: day },
          errorBodyTimeout: day,
        },
      )
      const sleeps = yield* recordingSleeps
      const fiber = yield* Effect.forkChild(sleeps.use(client.complete(hello)))
      assert.strictEqual(yield* sleeps.nextSleepUnder(86_400_000), 2_000)
      yield* TestClock.adjust("1999 millis")
      assert.strictEqual(yield* sleeps.ended, 0, "not retried before the wait is over")
      assert.strictEqual(server.requests.length, 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* Fiber.join(fiber)).text, "after the wait")
      assert.strictEqual(server.requests.length, 2)
    }),
  )

  it.live("reads Retry-After as seconds or a date, capped", () =>
    Effect.gen(function* () {
      const { client } = yield* serverAndClient(
        [
          Answer.error(429, "wait", { headers: { "retry-after": "2" } }),
          Answer.error(429, "wait long", { headers: { "retry-after": "3600" } }),
        ],
        { retry: false, maxRetryAfter: "10 seconds" },
      )
      assert.strictEqual((yield* failure(client.complete(hello))).retryAfterMillis, 2_000)
      assert.strictEqual((yield* failure(client.complete(hello))).retryAfterMillis, 10_000)
    }),
  )

  it.live("retries a stream that was refused before it started", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([
        Answer.error(503, "busy"),
        Answer.text("streamed"),
      ])
      const events = yield* Stream.runCollect(client.stream(hello))
      const last = events.at(-1)!
      assert.strictEqual(last._tag === "Completed" && last.completion.text, "streamed")
      assert.strictEqual(server.requests.length, 2)
    }),
  )
})

describe("the lean retry", () => {
  const fancy = hello.pipe(
    Request.temperature(0.3),
    Request.maxTokens(200),
    Request.reasoningEffort("low"),
  )

  it.live("sends a refused request again without optional fields, and remembers", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([
        Answer.error(400, "Unrecognized request argument supplied: reasoning_effort"),
        Answer.text("lean"),
        Answer.text("still lean"),
      ])
      assert.isFalse(yield* client.isStrict)
      assert.strictEqual((yield* client.complete(fancy)).text, "lean")
      assert.isTrue(yield* client.isStrict)
      const events = yield* Stream.runCollect(client.stream(fancy))
      assert.strictEqual(events.at(-1)!._tag, "Completed")
      const [first, second, third] = server.bodies as ReadonlyArray<Record<string, unknown>>
      assert.strictEqual(first!.temperature, 0.3)
      assert.strictEqual(first!.reasoning_effort, "low")
      for (const lean of [second!, third!]) {
        // The codec says which fields are optional; what the answer must meet stays.
        for (const field of OpenAiCodec.optionalFields) assert.notProperty(lean, field)
        assert.strictEqual(lean.temperature, 0.3)
        assert.deepStrictEqual(lean.messages, first!.messages)
      }
      assert.strictEqual(server.requests.length, 3)
    }),
  )

  it.live(
    "does not strip fields for a context overflow, nor remember a lean request that fails too",
    () =>
      Effect.gen(function* () {
        const { server, client } = yield* serverAndClient([
          Answer.error(400, "maximum context length exceeded", { code: "context_length_exceeded" }),
          Answer.error(422, "bad messages"),
          Answer.error(422, "bad messages"),
        ])
        assert.strictEqual((yield* failure(client.complete(fancy))).reason._tag, "ContextOverflow")
        assert.strictEqual(server.requests.length, 1)
        assert.strictEqual((yield* failure(client.complete(fancy))).status, 422)
        assert.strictEqual(server.requests.length, 3)
        assert.isFalse(yield* client.isStrict)
      }),
  )

  it.live("can be turned off", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient(
        [Answer.error(400, "unknown field temperature"), Answer.text("unused")],
        { leanRetry: false },
      )
      assert.strictEqual((yield* failure(client.complete(fancy))).reason._tag, "Unsupported")
      assert.strictEqual(server.requests.length, 1)
    }),
  )
})

describe("interruption", () => {
  it.live("interrupting complete aborts the HTTP request", () =>
    Effect.gen(function* () {
      const server = yield* Hostile.start(() => Hostile.silent)
      const client = yield* clientOf(server)
      const fiber = yield* Effect.forkChild(client.complete(hello))
      yield* Effect.promise(() => server.whenRequests(1))
      yield* Fiber.interrupt(fiber)
      yield* allClosed(server)
    }),
  )

  it.live("interrupting a stream, or taking only part of it, aborts the HTTP request", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([
        Answer.text("one two three four", { chunkSize: 4, quirks: { stallAfterEvents: 3 } }),
        Answer.text("one two three four", { chunkSize: 4, quirks: { stallAfterEvents: 3 } }),
      ])
      const streaming = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(
        Stream.runForEach(client.stream(hello), () => Deferred.succeed(streaming, undefined)),
      )
      yield* Deferred.await(streaming)
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.whenAbandoned(0))
      const firstTwo = yield* Stream.runCollect(client.stream(hello).pipe(Stream.take(2)))
      assert.strictEqual(firstTwo.length, 2)
      yield* Effect.promise(() => server.whenAbandoned(1))
    }),
  )
})
