import { assert, describe, it } from "@effect/vitest"
import type { Codec, SvirError } from "@svir/core"
import { Effect } from "effect"
import { OpenAiCodec, ServerError } from "../src/index.js"

const streamError = (body: unknown): SvirError.SvirError | undefined => {
  const decoder = OpenAiCodec.decoder()
  const sse = `data: ${JSON.stringify(body)}\n\n`
  const steps: Array<Codec.DecodeStep> = [decoder.push(new TextEncoder().encode(sse))]
  if (!decoder.done()) steps.push(decoder.finish())
  return steps.find((step) => step.error !== undefined)?.error
}

const responseError = (body: unknown) =>
  Effect.flip(OpenAiCodec.decodeResponse(JSON.stringify(body)))

// D29: every overflow the reader knows, by code, by type and by words.
const overflows: ReadonlyArray<{ readonly [key: string]: unknown }> = [
  { error: { message: "x", code: "context_length_exceeded" } },
  { error: { message: "x", code: "context_window_exceeded" } },
  { error: { message: "x", code: "exceed_context_size_error" } },
  { error: { code: 400, message: "try increasing it", type: "exceed_context_size_error" } },
  { error: { message: "x", type: "context_window_exceeded" } },
  { error: "This model's maximum context length is 8192 tokens" },
  { detail: "the request exceeds the available context size" },
  { detail: [{ msg: "Input exceeds the model's CONTEXT WINDOW" }] },
  { error: { message: "the request exceeds the context budget" } },
  { error: { message: "the compacted context is still too large" } },
]

describe("ServerError", () => {
  it("reads the words from every known shape", () => {
    const shapes = [
      { error: { message: "w", type: "x", code: null } },
      { error: "w" },
      { detail: "w" },
      { detail: [{ loc: ["body"], msg: "w", type: "value_error" }] },
      { detail: { message: "w" } },
      { message: "w" },
    ]
    for (const body of shapes) assert.strictEqual(ServerError.read(body).words, "w")
    assert.isUndefined(ServerError.read({ error: { code: "x" } }).words)
  })

  it("reads the code and the type", () => {
    assert.deepStrictEqual(ServerError.read({ error: { message: "m", code: 400, type: "t" } }), {
      words: "m",
      code: 400,
      type: "t",
    })
    assert.strictEqual(ServerError.read({ error: "m", code: "c" }).code, "c")
    assert.isUndefined(ServerError.read({ error: { code: { nested: 1 } } }).code)
  })

  it("gives llama.cpp's type as the code when its code is the HTTP status", () => {
    const body = {
      error: { code: 400, message: "try increasing it", type: "exceed_context_size_error" },
    }
    const error = streamError(body)
    assert.strictEqual(error?.reason._tag, "ContextOverflow")
    const reason = error?.reason
    assert.strictEqual(
      reason?._tag === "ContextOverflow" ? reason.code : undefined,
      "exceed_context_size_error",
    )
  })

  for (const body of overflows) {
    it.effect(`tells an overflow in ${JSON.stringify(body)}, in a stream and in a response`, () =>
      Effect.gen(function* () {
        assert.isTrue(ServerError.isContextOverflow(ServerError.read(body)))
        assert.strictEqual(streamError(body)?.reason._tag, "ContextOverflow")
        assert.strictEqual((yield* responseError(body)).reason._tag, "ContextOverflow")
      }),
    )
  }

  it("tells a content filter by its code, or its type when there is no code", () => {
    assert.isTrue(
      ServerError.isContentFilter(ServerError.read({ error: { code: "content_filter" } })),
    )
    assert.isTrue(
      ServerError.isContentFilter(ServerError.read({ error: { type: "content_filter" } })),
    )
    assert.isFalse(
      ServerError.isContentFilter(
        ServerError.read({ error: { code: 400, type: "content_filter" } }),
      ),
    )
    assert.strictEqual(
      streamError({ error: { code: "content_filter" } })?.reason._tag,
      "ContentFilter",
    )
  })

  it("does not take other errors for an overflow or a filter", () => {
    for (const body of [
      { error: { message: "Invalid API key", code: "invalid_api_key" } },
      { error: "model not found" },
      { detail: [{ msg: "field required" }] },
    ]) {
      const reading = ServerError.read(body)
      assert.isFalse(ServerError.isContextOverflow(reading), JSON.stringify(body))
      assert.isFalse(ServerError.isContentFilter(reading), JSON.stringify(body))
      assert.isFalse(ServerError.isRateLimit(reading), JSON.stringify(body))
      assert.strictEqual(streamError(body)?.reason._tag, "Server")
    }
  })

  it("reads a rate limit told in the body: code 429 or the providers' own code and type", () => {
    for (const body of [
      { error: { message: "too many requests", type: "rate_limit_error" } },
      { error: { message: "Rate limit reached", code: "rate_limit_exceeded", type: "requests" } },
      { error: { message: "Provider returned error", code: 429 } },
      { error: { message: "slow down", type: "rate_limit_exceeded" } },
    ]) {
      assert.isTrue(ServerError.isRateLimit(ServerError.read(body)), JSON.stringify(body))
      assert.strictEqual(streamError(body)?.reason._tag, "RateLimited")
    }
    assert.isFalse(ServerError.isRateLimit(ServerError.read({ error: { code: 500 } })))
  })
})
