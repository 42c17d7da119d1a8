import { assert, describe, it } from "@effect/vitest"
import { SpanKind } from "@opentelemetry/api"
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { GenAi, Request } from "@svir/core"
import { Answer } from "@svir/testing"
import { Effect, Stream } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { otel } from "../../../test/otel.js"
import { Client } from "../src/index.js"
import { apiKey, failure, serverAndClient } from "./helpers.js"

const hello = Request.make("qwen3").pipe(
  Request.user("Where is order 42?"),
  Request.temperature(0.2),
  Request.maxTokens(100),
  Request.seed(7),
)

const chatSpans = (spans: ReadonlyArray<ReadableSpan>) =>
  spans.filter((span) => span.name.startsWith("chat "))

/** Every attribute and event of every span, as text. */
const everything = (spans: ReadonlyArray<ReadableSpan>) =>
  JSON.stringify(
    spans.map((span) => ({
      name: span.name,
      attributes: span.attributes,
      events: span.events,
      status: span.status,
    })),
  )

/** SpanStatusCode of @opentelemetry/api: 1 OK, 2 ERROR. */
const ERROR = 2

describe("chat spans", () => {
  it.live("one per whole answer, with the models, tokens, finish reasons and server", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      const { server, client } = yield* serverAndClient(
        [Answer.text("It shipped.", { usage: { input: 12, output: 3 } })],
        {},
        { model: "qwen3-8b-q4" },
      )
      yield* client.complete(hello).pipe(Effect.withSpan("agent"))
      const spans = exporter.getFinishedSpans()
      const [chat] = chatSpans(spans)
      assert.strictEqual(chat!.name, "chat qwen3")
      assert.strictEqual(chat!.kind, SpanKind.CLIENT)
      const port = Number(new URL(server.url).port)
      const { "gen_ai.response.id": id, ...rest } = chat!.attributes
      assert.isString(id)
      assert.deepStrictEqual(rest, {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "qwen3",
        "gen_ai.request.temperature": 0.2,
        "gen_ai.request.max_tokens": 100,
        "gen_ai.request.seed": 7,
        "server.address": "127.0.0.1",
        "server.port": port,
        "gen_ai.response.model": "qwen3-8b-q4",
        "gen_ai.response.finish_reasons": ["stop"],
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 3,
      })
      // The user's span is the parent; Effect's HTTP span is a child.
      const agent = spans.find((span) => span.name === "agent")!
      assert.strictEqual(chat!.parentSpanContext?.spanId, agent.spanContext().spanId)
      const http = spans.find((span) => span.name === "POST")
      assert.strictEqual(http?.parentSpanContext?.spanId, chat!.spanContext().spanId)
    }).pipe(Effect.provide(layer))
  })

  it.live("one per stream, ended by the stream's end, with the end's usage and finish", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      const { client } = yield* serverAndClient([
        Answer.reply(
          { text: "Let me look.", calls: [{ name: "lookup", arguments: { id: 42 } }] },
          { usage: { input: 20, output: 9 } },
        ),
      ])
      const events = yield* client.stream(hello).pipe(Stream.runCollect)
      assert.strictEqual(events.at(-1)?._tag, "Completed")
      const [chat] = chatSpans(exporter.getFinishedSpans())
      assert.strictEqual(chat!.name, "chat qwen3")
      assert.deepStrictEqual(chat!.attributes["gen_ai.response.finish_reasons"], ["tool_calls"])
      assert.strictEqual(chat!.attributes["gen_ai.usage.input_tokens"], 20)
      assert.strictEqual(chat!.attributes["gen_ai.usage.output_tokens"], 9)
      assert.notProperty(chat!.attributes, "error.type")
    }).pipe(Effect.provide(layer))
  })

  it.live("a refused request sets error.type to the error's kind and an error status", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      const { client } = yield* serverAndClient(
        [Answer.error(429, "slow down"), Answer.error(500, "it broke")],
        { retry: false },
      )
      const refused = yield* failure(client.complete(hello))
      assert.strictEqual(refused.reason._tag, "RateLimited")
      const broken = yield* failure(client.stream(hello).pipe(Stream.runDrain))
      assert.strictEqual(broken.status, 500)
      const [complete, stream] = chatSpans(exporter.getFinishedSpans())
      assert.strictEqual(complete!.attributes["error.type"], "RateLimited")
      assert.strictEqual(complete!.status.code, ERROR)
      assert.strictEqual(stream!.attributes["error.type"], broken.reason._tag)
      assert.strictEqual(stream!.status.code, ERROR)
    }).pipe(Effect.provide(layer))
  })

  it.live("carry no content by default, and the messages with RecordContent", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      const { client } = yield* serverAndClient([
        Answer.text("It shipped on Monday."),
        Answer.text("It shipped on Monday."),
      ])
      yield* client.complete(hello)
      const [plain] = chatSpans(exporter.getFinishedSpans())
      assert.notInclude(everything([plain!]), "order 42")
      assert.notInclude(everything([plain!]), "Monday")
      exporter.reset()
      yield* client
        .stream(hello)
        .pipe(Stream.runDrain, Effect.provideService(GenAi.RecordContent, true))
      const [recorded] = chatSpans(exporter.getFinishedSpans())
      assert.deepStrictEqual(JSON.parse(String(recorded!.attributes["gen_ai.input.messages"])), [
        { role: "user", parts: [{ type: "text", content: "Where is order 42?" }] },
      ])
      assert.deepStrictEqual(JSON.parse(String(recorded!.attributes["gen_ai.output.messages"])), [
        {
          role: "assistant",
          parts: [{ type: "text", content: "It shipped on Monday." }],
          finish_reason: "stop",
        },
      ])
    }).pipe(Effect.provide(layer))
  })

  it.live("never show the key or a configured header or query value, content recorded", () => {
    const { exporter, layer } = otel()
    const header = "hdr-secret-7777"
    const query = "qry-secret-8888"
    return Effect.gen(function* () {
      const { client } = yield* serverAndClient(
        [
          Answer.text(`echo: Bearer ${apiKey} ${header} ${query}`),
          Answer.error(401, `bad key ${apiKey}, header ${header}, query ${query}`),
        ],
        { headers: { "x-gateway-key": header }, query: { key: query }, retry: false },
      )
      yield* client.complete(hello.pipe(Request.user(`my key is ${apiKey}`)))
      yield* failure(client.stream(hello).pipe(Stream.runDrain))
      const shown = everything(exporter.getFinishedSpans())
      assert.include(shown, "chat qwen3")
      for (const secret of [apiKey, header, query]) assert.notInclude(shown, secret)
    }).pipe(
      Effect.provideService(GenAi.RecordContent, true),
      // A span that records every request header.
      Effect.provideService(HttpClient.TracerHeaderFilter, () => true),
      Effect.provide(layer),
    )
  })
})

describe("Effect's HTTP span", () => {
  /** An HttpClient that answers at once and notes the span each request is sent in. */
  const noting = (spans: Array<string>) =>
    HttpClient.make((request) =>
      Effect.currentSpan.pipe(
        Effect.match({ onFailure: () => "none", onSuccess: (span) => span.name }),
        Effect.map((span) => {
          spans.push(span)
          const body = JSON.stringify({
            choices: [
              { index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" },
            ],
          })
          return HttpClientResponse.fromWeb(
            request,
            new Response(body, { headers: { "content-type": "application/json" } }),
          )
        }),
      ),
    )

  it.effect("is not made with Effect's own tracer, which keeps spans nowhere (D26)", () =>
    Effect.gen(function* () {
      const spans: Array<string> = []
      const client = yield* Client.make({ baseUrl: "https://llm.internal", apiKey }).pipe(
        Effect.provideService(HttpClient.HttpClient, noting(spans)),
      )
      yield* client.complete(hello).pipe(Effect.withSpan("agent"))
      assert.deepStrictEqual(spans, ["agent"])
    }),
  )

  it.effect("is made under a tracer that exports spans", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      const spans: Array<string> = []
      const client = yield* Client.make({ baseUrl: "https://llm.internal", apiKey }).pipe(
        Effect.provideService(HttpClient.HttpClient, noting(spans)),
      )
      yield* client.complete(hello)
      assert.deepStrictEqual(spans, ["POST"])
      assert.isTrue(exporter.getFinishedSpans().some((span) => span.name === "POST"))
    }).pipe(Effect.provide(layer))
  })
})

describe("trace context", () => {
  it.live("is not sent by default", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([Answer.text("Hi")])
      yield* client.complete(hello).pipe(Effect.withSpan("agent"))
      assert.notProperty(server.requests[0]!.headers, "traceparent")
    }).pipe(Effect.provide(otel().layer)),
  )

  it.live("is sent with propagateTraceContext, in the chat span's trace", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([Answer.text("Hi")], {
        telemetry: { propagateTraceContext: true },
      })
      yield* client.complete(hello)
      const traceparent = server.requests[0]!.headers.traceparent
      const [chat] = chatSpans(exporter.getFinishedSpans())
      assert.match(
        traceparent ?? "",
        new RegExp(`^00-${chat!.spanContext().traceId}-[0-9a-f]{16}-0[01]$`),
      )
    }).pipe(Effect.provide(layer))
  })
})
