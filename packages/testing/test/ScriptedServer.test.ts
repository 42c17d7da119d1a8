import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Answer, ScriptedServer } from "../src/index.js"
import { chat, fetchText, joinChunks, sseData } from "./sse.js"

describe("ScriptedServer", () => {
  it.live("answers a whole JSON completion and records the request", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([Answer.text("Hi there")])
      const { response, body } = yield* fetchText(chat(server.url, { temperature: 0.2 }))
      assert.strictEqual(response.status, 200)
      assert.include(response.headers.get("content-type") ?? "", "application/json")
      const json = JSON.parse(body)
      assert.strictEqual(json.choices[0].message.content, "Hi there")
      assert.strictEqual(json.choices[0].finish_reason, "stop")
      assert.isAbove(json.usage.total_tokens, 0)
      assert.strictEqual(server.requests.length, 1)
      assert.strictEqual(server.requests[0]!.headers.authorization, "Bearer sk-test")
      assert.deepStrictEqual((server.bodies[0] as { temperature: number }).temperature, 0.2)
      assert.strictEqual(server.remaining, 0)
    }),
  )

  it.live("streams text, reasoning and calls as Chat Completions chunks", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start(
        [
          Answer.reply({
            reasoning: "The user wants an order.",
            text: "Looking it up.",
            calls: [
              { name: "lookup", arguments: { id: 42 } },
              { name: "now", id: "call_fixed" },
            ],
          }),
        ],
        { chunkSize: 3 },
      )
      const { response, body } = yield* fetchText(
        chat(server.url, { stream: true, stream_options: { include_usage: true } }),
      )
      assert.strictEqual(response.headers.get("content-type"), "text/event-stream")
      const joined = joinChunks(sseData(body))
      assert.strictEqual(joined.text, "Looking it up.")
      assert.strictEqual(joined.reasoning, "The user wants an order.")
      assert.strictEqual(joined.finish, "tool_calls")
      assert.isTrue(joined.done)
      assert.isDefined(joined.usage)
      assert.deepStrictEqual(joined.calls, [
        { id: "call_1", name: "lookup", arguments: '{"id":42}' },
        { id: "call_fixed", name: "now", arguments: "{}" },
      ])
      const argumentPieces = sseData(body).filter((data) => data.includes('"arguments":"{\\"'))
      assert.isAbove(argumentPieces.length, 0, "arguments arrive in fragments")
    }),
  )

  it.live("answers whole JSON to a request without stream, even for calls", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.toolCalls([{ name: "lookup", arguments: '{"id":1}' }]),
      ])
      const { body } = yield* fetchText(chat(server.url, {}))
      const message = JSON.parse(body).choices[0].message
      assert.isNull(message.content)
      assert.deepStrictEqual(message.tool_calls, [
        { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"id":1}' } },
      ])
    }),
  )

  it.live("plays Ollama's parallel calls at index 0, missing ids and arguments as objects", () =>
    Effect.gen(function* () {
      const calls = [
        { name: "a", arguments: { x: 1 } },
        { name: "b", arguments: { y: 2 } },
      ]
      const server = yield* ScriptedServer.start([
        Answer.toolCalls(calls, { quirks: { parallelAtIndexZero: true } }),
        Answer.toolCalls(calls, { quirks: { missingIds: true, argumentsAsObject: true } }),
      ])
      const ollama = sseData((yield* fetchText(chat(server.url, { stream: true }))).body)
      const pieces = ollama.flatMap((data) =>
        data === "[DONE]" ? [] : (JSON.parse(data).choices[0]?.delta.tool_calls ?? []),
      )
      assert.deepStrictEqual(
        pieces.map((piece: { index: number; id: string }) => [piece.index, piece.id]),
        [
          [0, "call_1"],
          [0, "call_2"],
        ],
      )
      const objects = sseData((yield* fetchText(chat(server.url, { stream: true }))).body)
      const wholeCalls = objects.flatMap((data) =>
        data === "[DONE]" ? [] : (JSON.parse(data).choices[0]?.delta.tool_calls ?? []),
      )
      assert.deepStrictEqual(wholeCalls, [
        { index: 0, type: "function", function: { name: "a", arguments: { x: 1 } } },
        { index: 1, type: "function", function: { name: "b", arguments: { y: 2 } } },
      ])
    }),
  )

  it.live("ends without [DONE], with keep-alive comments and CRLF on request", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.text("Hi", { quirks: { noDone: true, keepAliveComments: true, crlf: true } }),
      ])
      const { body } = yield* fetchText(chat(server.url, { stream: true }))
      assert.include(body, ": keep-alive\r\n\r\n")
      assert.notInclude(body.replaceAll("\r\n", ""), "\n")
      const joined = joinChunks(sseData(body))
      assert.isFalse(joined.done)
      assert.strictEqual(joined.text, "Hi")
    }),
  )

  it.live("answers a streamed request with JSON when told the answer is not an event stream", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.text("Hi", { quirks: { notEventStream: true } }),
      ])
      const { response, body } = yield* fetchText(chat(server.url, { stream: true }))
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.headers.get("content-type"), "application/json")
      assert.strictEqual(JSON.parse(body).choices[0].message.content, "Hi")
    }),
  )

  it.live("sends statuses with their bodies and headers", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.error(429, "slow down", { headers: { "Retry-After": "2" }, code: "rate_limit" }),
        Answer.status(503, "overloaded"),
      ])
      const limited = yield* fetchText(chat(server.url, {}))
      assert.strictEqual(limited.response.status, 429)
      assert.strictEqual(limited.response.headers.get("retry-after"), "2")
      assert.deepStrictEqual(JSON.parse(limited.body).error.message, "slow down")
      const overloaded = yield* fetchText(chat(server.url, {}))
      assert.strictEqual(overloaded.response.status, 503)
      assert.strictEqual(overloaded.body, "overloaded")
    }),
  )

  it.live("stalls an error body, and sees the client leave", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.error(401, "bad key", { stallBody: true }),
      ])
      const controller = new AbortController()
      const response = yield* Effect.promise(() =>
        chat(server.url, {}, { signal: controller.signal }),
      )
      assert.strictEqual(response.status, 401)
      controller.abort()
      yield* Effect.promise(() => server.whenAbandoned(0))
      assert.isTrue(server.requests[0]!.abandoned)
    }),
  )

  it.live("resets the connection mid-stream, after the headers and the events before it", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.text("a long answer that is cut", { quirks: { resetAfterEvents: 2 } }),
        Answer.text("cut right after the headers", { quirks: { resetAfterEvents: 0 } }),
      ])
      // Whatever the runtime, the client sees a 200, reads what came before the fault, then the
      // body breaks: a reset that beat the headers would reject `fetch` itself (#17).
      const read = (response: Response) =>
        Effect.promise(async () => {
          const reader = response.body!.getReader()
          const decoder = new TextDecoder()
          let received = ""
          try {
            for (;;) {
              const { done, value } = await reader.read()
              if (done) return { received, broken: false }
              received += decoder.decode(value, { stream: true })
            }
          } catch {
            return { received, broken: true }
          }
        })
      const cut = yield* Effect.promise(() => chat(server.url, { stream: true }))
      assert.strictEqual(cut.status, 200)
      const afterTwo = yield* read(cut)
      assert.isTrue(afterTwo.broken)
      assert.strictEqual(sseData(afterTwo.received).length, 2)
      const atOnce = yield* Effect.promise(() => chat(server.url, { stream: true }))
      assert.strictEqual(atOnce.status, 200)
      const afterNone = yield* read(atOnce)
      assert.isTrue(afterNone.broken)
      assert.strictEqual(afterNone.received, "")
      assert.isFalse(
        server.requests[0]!.abandoned,
        "a reset by the script is not the client leaving",
      )
    }),
  )

  it.live("answers CORS preflights and lets a page read every answer", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([Answer.text("Hi")])
      const preflight = yield* Effect.promise(() =>
        fetch(`${server.url}/chat/completions`, {
          method: "OPTIONS",
          headers: {
            origin: "http://localhost:5173",
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization,content-type",
          },
        }),
      )
      assert.strictEqual(preflight.status, 204)
      assert.strictEqual(preflight.headers.get("access-control-allow-origin"), "*")
      assert.include(preflight.headers.get("access-control-allow-methods") ?? "", "POST")
      assert.strictEqual(
        preflight.headers.get("access-control-allow-headers"),
        "authorization,content-type",
      )
      const { response } = yield* fetchText(chat(server.url, {}))
      assert.strictEqual(response.headers.get("access-control-allow-origin"), "*")
      assert.strictEqual(response.headers.get("access-control-expose-headers"), "*")
      assert.deepStrictEqual(
        server.requests.map((request) => request.method),
        ["POST"],
        "a preflight is not recorded and takes no answer",
      )
    }),
  )

  it.live("sends the origin it is given, or no CORS header at all", () =>
    Effect.gen(function* () {
      const preflight = (url: string) =>
        Effect.promise(() =>
          fetch(`${url}/chat/completions`, {
            method: "OPTIONS",
            headers: { origin: "http://app.test", "access-control-request-method": "POST" },
          }),
        )
      const one = yield* ScriptedServer.start([], { allowOrigin: "http://app.test" })
      const allowed = yield* preflight(one.url)
      assert.strictEqual(allowed.headers.get("access-control-allow-origin"), "http://app.test")
      assert.strictEqual(allowed.headers.get("vary"), "origin")
      const none = yield* ScriptedServer.start([], { allowOrigin: false })
      const refused = yield* preflight(none.url)
      assert.strictEqual(refused.status, 404)
      assert.isNull(refused.headers.get("access-control-allow-origin"))
    }),
  )

  it.live("delays the first token and still answers whole", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.text("late", { quirks: { firstTokenDelayMillis: 30, eventDelayMillis: 5 } }),
      ])
      const { body } = yield* fetchText(chat(server.url, { stream: true }))
      assert.strictEqual(joinChunks(sseData(body)).text, "late")
    }),
  )

  it.live("replays raw pieces and holds a hanging request until the client leaves", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.raw(['data: {"choices":[]}\n', "\n", "data: [DONE]\n\n"], { delayMillis: 1 }),
        Answer.hang,
      ])
      const { body } = yield* fetchText(chat(server.url, { stream: true }))
      assert.deepStrictEqual(sseData(body), ['{"choices":[]}', "[DONE]"])
      const controller = new AbortController()
      const pending = chat(server.url, {}, { signal: controller.signal }).catch(() => "aborted")
      yield* Effect.promise(async () => {
        while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))
      })
      controller.abort()
      assert.strictEqual(yield* Effect.promise(() => pending), "aborted")
      yield* Effect.promise(() => server.whenAbandoned(1))
    }),
  )

  it.live("ends a body by closing the connection, or holds it open after the body", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.raw("data: [DONE]\n\n", { closeDelimited: true }),
        Answer.raw("data: one\n\n", { closeDelimited: true, holdOpen: true }),
      ])
      const { response, body } = yield* fetchText(chat(server.url, { stream: true }))
      assert.strictEqual(body, "data: [DONE]\n\n")
      assert.isNull(response.headers.get("content-length"))
      assert.isNull(response.headers.get("transfer-encoding"))
      assert.strictEqual(response.headers.get("connection"), "close")
      const controller = new AbortController()
      const first = yield* Effect.promise(async () => {
        const held = await chat(server.url, { stream: true }, { signal: controller.signal })
        const reader = held.body!.getReader()
        return new TextDecoder().decode((await reader.read()).value)
      })
      assert.strictEqual(first, "data: one\n\n")
      controller.abort()
      yield* Effect.promise(() => server.whenAbandoned(1))
    }),
  )

  it.live("scripts every request, whatever its path, when asked", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start(
        [Answer.raw('{"data":[{"id":"a"}]}', { headers: { "content-type": "application/json" } })],
        { scriptEveryRequest: true },
      )
      const models = yield* fetchText(fetch(`${server.url}/models`))
      assert.strictEqual(models.body, '{"data":[{"id":"a"}]}')
      const beyond = yield* fetchText(fetch(`${server.url}/elsewhere`, { method: "POST" }))
      assert.strictEqual(beyond.response.status, 500)
    }),
  )

  it.live("answers 500 with a clear message when the script runs out", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([Answer.text("only one")])
      yield* fetchText(chat(server.url, {}))
      const { response, body } = yield* fetchText(chat(server.url, {}))
      assert.strictEqual(response.status, 500)
      assert.strictEqual(JSON.parse(body).error.message, ScriptedServer.exhaustedMessage(2, 1))
      server.push(Answer.text("more"))
      const more = yield* fetchText(chat(server.url, {}))
      assert.strictEqual(JSON.parse(more.body).choices[0].message.content, "more")
    }),
  )

  it.live("lists models and serves /chat/completions without /v1", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([Answer.text("Hi")], {
        model: "qwen3",
        models: ["llama3"],
      })
      const models = yield* fetchText(fetch(`${server.url}/models`))
      assert.deepStrictEqual(
        JSON.parse(models.body).data.map((model: { id: string }) => model.id),
        ["qwen3", "llama3"],
      )
      const origin = server.url.replace(/\/v1$/, "")
      const { body } = yield* fetchText(chat(origin, {}))
      assert.strictEqual(JSON.parse(body).model, "qwen3")
      const missing = yield* fetchText(fetch(`${server.url}/embeddings`, { method: "POST" }))
      assert.strictEqual(missing.response.status, 404)
    }),
  )

  it("works from plain Promise code and stops on close", async () => {
    const server = await ScriptedServer.listen([Answer.text("Hi")])
    const response = await chat(server.url, {})
    assert.strictEqual((await response.json()).choices[0].message.content, "Hi")
    await server.close()
    const after = await chat(server.url, {}).then(
      () => "answered",
      () => "refused",
    )
    assert.strictEqual(after, "refused")
  })
})
