/**
 * The README's examples, compiled and run: a request encoded, a stream decoded, and the codec
 * wrapped with plain fetch (here a fetch that answers from memory).
 */
import { assert, describe, it } from "@effect/vitest"
import { type Codec, type Completion, Request, SvirError, Tool } from "@svir/core"
import { Effect, Stream } from "effect"
import { OpenAiCodec } from "../src/index.js"

// --- README: encoding a request
const weather = Tool.make("weather", "The weather in a city.", {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
})
const request = Request.make("gpt-4o-mini").pipe(
  Request.system("Be brief."),
  Request.tool(weather),
  Request.user("Weather in Paris?"),
)
const body = OpenAiCodec.encode(request, { stream: true })
// Effect<RequestBody, SvirError>: { model, messages, tools, stream: true, stream_options }

// --- README: decoding a stream, synchronously
const decodeAll = (
  chunks: Iterable<Uint8Array>,
  onText: (text: string) => void,
): Completion.Completion | SvirError.SvirError => {
  const decoder = OpenAiCodec.decoder({ mode: "strict" })
  const read = (step: Codec.DecodeStep) => {
    for (const event of step.events) {
      if (event._tag === "TextDelta") onText(event.text)
      if (event._tag === "Completed") return event.completion
    }
    return step.error
  }
  for (const chunk of chunks) {
    const outcome = read(decoder.push(chunk))
    if (outcome !== undefined) return outcome
  }
  return read(decoder.finish())!
}

// --- README: any transport, here plain fetch
const codec = OpenAiCodec.make()

const transportError = (cause: unknown) =>
  SvirError.make("Transport", "the request to the model server failed", { cause })

const streamWithFetch = (
  fetchFn: typeof fetch,
  baseUrl: string,
  apiKey: string,
  request: Request.Request,
) =>
  Stream.unwrap(
    Effect.gen(function* () {
      const body = yield* codec.encode(request, { stream: true })
      const response = yield* Effect.tryPromise({
        try: () =>
          fetchFn(`${baseUrl}${codec.path}`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
            body: JSON.stringify(body),
          }),
        catch: transportError,
      })
      if (!response.ok || response.body === null) {
        const text = yield* Effect.promise(() => response.text())
        return yield* SvirError.make("Server", `status ${response.status}`, {
          status: response.status,
          serverMessage: text,
        })
      }
      const bytes = Stream.fromReadableStream({
        evaluate: () => response.body!,
        onError: transportError,
      })
      return OpenAiCodec.decodeStream(bytes)
    }),
  )

const sse = [
  'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Sunny"},"finish_reason":null}]}\n\n',
  'data: {"choices":[{"index":0,"delta":{"content":" in Paris."},"finish_reason":"stop"}]}\n\n',
  "data: [DONE]\n\n",
]

describe("README examples", () => {
  it.effect("encodes a request", () =>
    Effect.gen(function* () {
      const encoded = yield* body
      assert.strictEqual(encoded.stream, true)
      assert.strictEqual(encoded.tools?.[0]?.function.name, "weather")
    }),
  )

  it("decodes a stream synchronously", () => {
    let shown = ""
    const done = decodeAll(
      sse.map((chunk) => new TextEncoder().encode(chunk)),
      (text) => {
        shown += text
      },
    )
    assert.isFalse(SvirError.isSvirError(done))
    assert.strictEqual(SvirError.isSvirError(done) ? undefined : done.text, "Sunny in Paris.")
    assert.strictEqual(shown, "Sunny in Paris.")
  })

  it.effect("runs over plain fetch", () =>
    Effect.gen(function* () {
      let sent: unknown
      const fakeFetch: typeof fetch = async (_url, init) => {
        sent = JSON.parse(String(init?.body))
        return new Response(new Blob(sse).stream(), {
          headers: { "content-type": "text/event-stream" },
        })
      }
      const events = yield* Stream.runCollect(
        streamWithFetch(fakeFetch, "http://127.0.0.1:9/v1", "key", request),
      )
      const last = events.at(-1)
      assert.strictEqual(
        last?._tag === "Completed" ? last.completion.text : undefined,
        "Sunny in Paris.",
      )
      assert.strictEqual((sent as { model: string }).model, "gpt-4o-mini")
    }),
  )
})
