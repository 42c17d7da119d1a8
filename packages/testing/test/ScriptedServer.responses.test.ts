/**
 * The scripted server on OpenAI's Responses API. The oracle is OpenAI's own SDK (from peers/): its
 * `responses.create` and `responses.stream` check every event against the response they build,
 * and must read back the text, the calls and the usage the script gave.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import OpenAI from "openai"
import { Answer, ScriptedServer } from "../src/index.js"
import { fetchText, sseData } from "./sse.js"

const clientOf = (url: string) =>
  new OpenAI({ apiKey: "sk-test", baseURL: url, maxRetries: 0, logLevel: "off" })

const request = { model: "scripted", input: "Where is order 42?" } as const

const script = () =>
  Answer.reply(
    {
      reasoning: "The user wants an order; I will look it up.",
      text: "Looking it up.",
      calls: [
        { name: "lookup", arguments: { id: 42 } },
        { name: "now", id: "call_fixed" },
      ],
    },
    { usage: { input: 12, output: 34 } },
  )

/** The function calls of a response's output, as the SDK read them. */
const callsOf = (response: OpenAI.Responses.Response) =>
  response.output.flatMap((item) =>
    item.type === "function_call"
      ? [{ call_id: item.call_id, name: item.name, arguments: item.arguments }]
      : [],
  )

const summaryOf = (response: OpenAI.Responses.Response) =>
  response.output.flatMap((item) =>
    item.type === "reasoning" ? item.summary.map((part) => part.text) : [],
  )

const expectedCalls = [
  { call_id: "call_1", name: "lookup", arguments: '{"id":42}' },
  { call_id: "call_fixed", name: "now", arguments: "{}" },
]

/** POSTs to `/responses` with fetch, for what the SDK does not show: bytes and headers. */
const post = (url: string, body: Record<string, unknown>, init: RequestInit = {}) =>
  fetch(`${url}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
    body: JSON.stringify({ ...request, ...body }),
    ...init,
  })

describe("ScriptedServer on Responses", () => {
  it.live("streams events the SDK reads into the text, calls and usage scripted", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([script()], { chunkSize: 3 })
      const events = yield* Effect.promise(async () => {
        const stream = await clientOf(server.url).responses.create({ ...request, stream: true })
        const out: Array<OpenAI.Responses.ResponseStreamEvent> = []
        for await (const event of stream) out.push(event)
        return out
      })
      assert.deepStrictEqual(
        events.map((event) => event.sequence_number),
        events.map((_, i) => i),
      )
      const text = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : []))
      assert.strictEqual(text.join(""), "Looking it up.")
      assert.isAbove(text.length, 1, "the text arrives in pieces")
      const summary = events.flatMap((e) =>
        e.type === "response.reasoning_summary_text.delta" ? [e.delta] : [],
      )
      assert.strictEqual(summary.join(""), "The user wants an order; I will look it up.")
      const last = events.at(-1)!
      assert.strictEqual(last.type, "response.completed")
      if (last.type !== "response.completed") return
      assert.strictEqual(last.response.status, "completed")
      assert.deepStrictEqual(callsOf(last.response), expectedCalls)
      assert.strictEqual(last.response.usage?.input_tokens, 12)
      assert.strictEqual(last.response.usage?.output_tokens, 34)
      assert.strictEqual(last.response.usage?.total_tokens, 46)
      assert.strictEqual(last.response.usage?.input_tokens_details.cached_tokens, 0)
      assert.isAbove(last.response.usage?.output_tokens_details.reasoning_tokens ?? 0, 0)
    }),
  )

  it.live("sends the events in the order OpenAI's recorded streams do", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.reply(
          { reasoning: "Think.", text: "Hi.", calls: [{ name: "f" }] },
          { chunkSize: 100 },
        ),
      ])
      const { response, body } = yield* fetchText(post(server.url, { stream: true }))
      assert.strictEqual(response.headers.get("content-type"), "text/event-stream")
      const frames = body.split("\n\n").filter((frame) => frame !== "")
      const types = frames.map((frame) => frame.split("\n")[0])
      assert.deepStrictEqual(
        types,
        [
          "response.created",
          "response.in_progress",
          "response.output_item.added",
          "response.reasoning_summary_part.added",
          "response.reasoning_summary_text.delta",
          "response.reasoning_summary_text.done",
          "response.reasoning_summary_part.done",
          "response.output_item.done",
          "response.output_item.added",
          "response.content_part.added",
          "response.output_text.delta",
          "response.output_text.done",
          "response.content_part.done",
          "response.output_item.done",
          "response.output_item.added",
          "response.function_call_arguments.delta",
          "response.function_call_arguments.done",
          "response.output_item.done",
          "response.completed",
        ].map((type) => `event: ${type}`),
      )
      const data = sseData(body).map((item) => JSON.parse(item))
      assert.deepStrictEqual(
        data.map((item) => `event: ${item.type}`),
        types,
        "each frame's event names its data's type",
      )
    }),
  )

  it.live("feeds the SDK's responses.stream, which builds the final response", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([script()], { chunkSize: 2 })
      const { final, deltas } = yield* Effect.promise(async () => {
        const stream = clientOf(server.url).responses.stream({
          ...request,
          include: ["reasoning.encrypted_content"],
          store: false,
        })
        const deltas: Array<string> = []
        stream.on("response.output_text.delta", (event) => deltas.push(event.delta))
        return { final: await stream.finalResponse(), deltas }
      })
      assert.strictEqual(final.output_text, "Looking it up.")
      assert.strictEqual(deltas.join(""), "Looking it up.")
      assert.deepStrictEqual(callsOf(final), expectedCalls)
      assert.deepStrictEqual(summaryOf(final), ["The user wants an order; I will look it up."])
      const reasoning = final.output.find((item) => item.type === "reasoning")
      assert.strictEqual(
        reasoning?.type === "reasoning" ? reasoning.encrypted_content : undefined,
        "scripted-encrypted-reasoning",
        "asked for, the reasoning carries its encrypted content",
      )
      assert.strictEqual(final.usage?.input_tokens, 12)
      assert.strictEqual(final.usage?.output_tokens, 34)
      assert.deepStrictEqual(
        server.requests.map((recorded) => [recorded.method, recorded.path]),
        [["POST", "/v1/responses"]],
      )
      assert.strictEqual(server.requests[0]!.headers.authorization, "Bearer sk-test")
      assert.deepStrictEqual(server.bodies, [
        { ...request, include: ["reasoning.encrypted_content"], store: false, stream: true },
      ])
    }),
  )

  it.live("answers a whole response body to a request without stream", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([script()])
      const response = yield* Effect.promise(() =>
        clientOf(server.url).responses.create({ ...request, instructions: "Be brief." }),
      )
      assert.strictEqual(response.object, "response")
      assert.strictEqual(response.status, "completed")
      assert.match(response.id, /^resp_/)
      assert.strictEqual(response.instructions, "Be brief.")
      assert.strictEqual(response.output_text, "Looking it up.")
      assert.deepStrictEqual(callsOf(response), expectedCalls)
      assert.deepStrictEqual(summaryOf(response), ["The user wants an order; I will look it up."])
      const reasoning = response.output.find((item) => item.type === "reasoning")
      assert.isTrue(
        reasoning !== undefined && !("encrypted_content" in reasoning),
        "the encrypted reasoning comes only when asked for",
      )
      assert.deepStrictEqual(response.usage, {
        input_tokens: 12,
        input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
        output_tokens: 34,
        output_tokens_details: { reasoning_tokens: 11 },
        total_tokens: 46,
      })
    }),
  )

  it.live("ends a reply cut by length as an incomplete response, whole or streamed", () =>
    Effect.gen(function* () {
      const cut = () => Answer.text("It was the best of", { finish: "length" })
      const server = yield* ScriptedServer.start([cut(), cut()])
      const client = clientOf(server.url)
      const whole = yield* Effect.promise(() => client.responses.create(request))
      assert.strictEqual(whole.status, "incomplete")
      assert.deepStrictEqual(whole.incomplete_details, { reason: "max_output_tokens" })
      assert.strictEqual(whole.output_text, "It was the best of")
      const message = whole.output[0]
      assert.strictEqual(message?.type === "message" ? message.status : undefined, "incomplete")
      const streamed = yield* Effect.promise(async () => {
        const types: Array<string> = []
        const stream = client.responses.stream(request)
        stream.on("event", (event) => types.push(event.type))
        return { final: await stream.finalResponse(), types }
      })
      assert.strictEqual(streamed.types.at(-1), "response.incomplete")
      assert.notInclude(streamed.types, "response.completed")
      assert.strictEqual(streamed.final.status, "incomplete")
      assert.strictEqual(streamed.final.output_text, "It was the best of")
    }),
  )

  it.live("serves one script to every wire, in the order the requests come", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.toolCalls([{ name: "lookup" }]),
        Answer.toolCalls([{ name: "lookup" }]),
        Answer.text("Done."),
      ])
      const chat = yield* fetchText(
        fetch(`${server.url}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "scripted", messages: [] }),
        }),
      )
      assert.strictEqual(JSON.parse(chat.body).choices[0].message.tool_calls[0].id, "call_1")
      const client = clientOf(server.url)
      const calls = yield* Effect.promise(() => client.responses.create(request))
      assert.deepStrictEqual(callsOf(calls), [
        { call_id: "call_2", name: "lookup", arguments: "{}" },
      ])
      const text = yield* Effect.promise(() =>
        client.responses.create({ ...request, text: { format: { type: "json_object" } } }),
      )
      assert.strictEqual(text.output_text, "Done.")
      assert.deepStrictEqual(text.text?.format, { type: "json_object" }, "the request is echoed")
      assert.deepStrictEqual(
        server.requests.map((recorded) => recorded.path),
        ["/v1/chat/completions", "/v1/responses", "/v1/responses"],
      )
      assert.strictEqual(server.bodies.length, 3)
    }),
  )

  it.live("answers errors in OpenAI's error body, which the SDK reads", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.error(429, "Rate limit reached", {
          code: "rate_limit_exceeded",
          type: "requests",
          headers: { "retry-after": "2" },
        }),
        Answer.error(400, "Invalid type for 'input'", { param: "input" }),
      ])
      const client = clientOf(server.url)
      const failure = (run: () => Promise<unknown>) =>
        Effect.promise(() =>
          run().then(
            () => undefined,
            (error: unknown) => error,
          ),
        )
      const limited = yield* failure(() => client.responses.create(request))
      assert.instanceOf(limited, OpenAI.RateLimitError)
      if (!(limited instanceof OpenAI.RateLimitError)) return
      assert.strictEqual(limited.status, 429)
      assert.strictEqual(limited.code, "rate_limit_exceeded")
      assert.strictEqual(limited.type, "requests")
      assert.include(limited.message, "Rate limit reached")
      assert.strictEqual(limited.headers.get("retry-after"), "2")
      const refused = yield* failure(() => client.responses.stream(request).finalResponse())
      assert.instanceOf(refused, OpenAI.BadRequestError)
      assert.strictEqual((refused as InstanceType<typeof OpenAI.BadRequestError>).param, "input")
    }),
  )

  it.live("resets the connection mid-stream, after the events before it", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.text("a long answer that is cut", { quirks: { resetAfterEvents: 3 } }),
      ])
      const { types, failed } = yield* Effect.promise(async () => {
        const types: Array<string> = []
        try {
          const stream = await clientOf(server.url).responses.create({ ...request, stream: true })
          for await (const event of stream) types.push(event.type)
          return { types, failed: false }
        } catch {
          return { types, failed: true }
        }
      })
      assert.isTrue(failed)
      assert.deepStrictEqual(types, [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
      ])
      assert.isFalse(
        server.requests[0]!.abandoned,
        "a reset by the script is not the client leaving",
      )
    }),
  )

  it.live("stalls after some events and sees the client leave", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.text("never finished", { quirks: { stallAfterEvents: 2 } }),
      ])
      const controller = new AbortController()
      // The stream sends two events and then nothing: the client gives up once it has them.
      const types = yield* Effect.promise(async () => {
        const types: Array<string> = []
        const stream = await clientOf(server.url).responses.create(
          { ...request, stream: true },
          { signal: controller.signal },
        )
        try {
          for await (const event of stream) {
            types.push(event.type)
            if (types.length === 2) controller.abort()
          }
        } catch {
          // an abort may end the iteration with an error or without one
        }
        return types
      })
      assert.deepStrictEqual(types, ["response.created", "response.in_progress"])
      yield* Effect.promise(() => server.whenAbandoned(0))
      assert.isTrue(server.requests[0]!.abandoned)
    }),
  )

  it.live("keeps its events whole through CRLF, keep-alives and delays", () =>
    Effect.gen(function* () {
      const quirks = {
        crlf: true,
        keepAliveComments: true,
        firstTokenDelayMillis: 20,
        eventDelayMillis: 1,
      }
      const server = yield* ScriptedServer.start([
        Answer.reply({ text: "late", calls: [{ name: "f", arguments: '{"a":1}' }] }, { quirks }),
        Answer.text("late", { quirks }),
      ])
      const final = yield* Effect.promise(() =>
        clientOf(server.url).responses.stream(request).finalResponse(),
      )
      assert.strictEqual(final.output_text, "late")
      assert.deepStrictEqual(callsOf(final), [
        { call_id: "call_1", name: "f", arguments: '{"a":1}' },
      ])
      const { body } = yield* fetchText(post(server.url, { stream: true }))
      assert.include(body, ": keep-alive\r\n\r\nevent: response.created\r\ndata: ")
      assert.notInclude(body.replaceAll("\r\n", ""), "\n")
    }),
  )

  it.live("answers a streamed request with JSON when told the answer is not an event stream", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.text("Hi", { quirks: { notEventStream: true } }),
      ])
      const { response, body } = yield* fetchText(post(server.url, { stream: true }))
      assert.strictEqual(response.headers.get("content-type"), "application/json")
      const json = JSON.parse(body)
      assert.strictEqual(json.object, "response")
      assert.strictEqual(json.output[0].content[0].text, "Hi")
    }),
  )

  it.live("replays raw bytes, hangs, and runs out on /responses like the other wires", () =>
    Effect.gen(function* () {
      const recorded = [
        'event: response.created\ndata: {"type":"response.created"}\n\n',
        "event: response.completed\n",
      ]
      const server = yield* ScriptedServer.start([Answer.raw(recorded), Answer.hang])
      const raw = yield* fetchText(post(server.url, { stream: true }))
      assert.strictEqual(raw.body, recorded.join(""))
      const controller = new AbortController()
      const pending = post(server.url, {}, { signal: controller.signal }).catch(() => "aborted")
      yield* Effect.promise(async () => {
        while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))
      })
      controller.abort()
      assert.strictEqual(yield* Effect.promise(() => pending), "aborted")
      yield* Effect.promise(() => server.whenAbandoned(1))
      const origin = server.url.replace(/\/v1$/, "")
      const beyond = yield* fetchText(post(origin, {}))
      assert.strictEqual(beyond.response.status, 500)
      assert.strictEqual(
        JSON.parse(beyond.body).error.message,
        ScriptedServer.exhaustedMessage(3, 2),
      )
      assert.strictEqual(server.remaining, 0)
      assert.strictEqual(server.bodies.length, 3)
    }),
  )
})
