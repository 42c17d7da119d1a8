import { assert, describe, it } from "@effect/vitest"
import { Codec, HttpError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { feed } from "../../../test/decoding.js"
import { AnthropicCodec, ServerError } from "../src/index.js"
import { read } from "./support/recordings.js"

/** The errors page (https://docs.claude.com/en/api/errors): each status with its error type. */
const errorsPage = [
  [400, "invalid_request_error", "Unsupported"],
  [401, "authentication_error", "Authentication"],
  [402, "billing_error", "Authentication"],
  [403, "permission_error", "Authentication"],
  [404, "not_found_error", "Unsupported"],
  [413, "request_too_large", "Unsupported"],
  [429, "rate_limit_error", "RateLimited"],
  [500, "api_error", "Transport"],
  [504, "timeout_error", "Timeout"],
  [529, "overloaded_error", "Transport"],
] as const

const bodyOf = (type: string, message: string) =>
  JSON.stringify({
    type: "error",
    error: { type, message },
    request_id: "req_011CSHoEeqs5C35K2UUqR7Fy",
  })

describe("readError: the errors page", () => {
  for (const [status, type, kind] of errorsPage) {
    it(`${status} ${type} is ${kind}`, () => {
      const reading = AnthropicCodec.http.readError!({
        status,
        headers: {},
        body: bodyOf(type, `a ${type}`),
      })
      assert.deepStrictEqual(reading, { kind, words: `a ${type}` })
    })
  }

  it("the page's example body", () => {
    const body =
      '{"type":"error","error":{"type":"not_found_error","message":"The requested resource could not be found."},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}'
    assert.deepStrictEqual(ServerError.read(JSON.parse(body)), {
      type: "not_found_error",
      words: "The requested resource could not be found.",
      requestId: "req_011CSHoEeqs5C35K2UUqR7Fy",
    })
  })

  it("a prompt too long is a ContextOverflow, in both of Anthropic's wordings", () => {
    for (const words of [
      "prompt is too long: 208656 tokens > 200000 maximum",
      "input length and `max_tokens` exceed context limit: 188059 + 20000 > 200000, decrease input length or `max_tokens` and try again",
    ]) {
      const reading = ServerError.readError({
        status: 400,
        headers: {},
        body: bodyOf("invalid_request_error", words),
      })
      assert.strictEqual(reading.kind, "ContextOverflow")
    }
    const other = ServerError.readError({
      status: 400,
      headers: {},
      body: bodyOf(
        "invalid_request_error",
        "max_tokens: 100000 > 64000, which is the maximum allowed",
      ),
    })
    assert.strictEqual(other.kind, "Unsupported")
  })

  it("without a body, the status: 529 is retryable, the others core's table", () => {
    assert.strictEqual(
      ServerError.readError({ status: 529, headers: {}, body: undefined }).kind,
      "Transport",
    )
    assert.strictEqual(
      ServerError.readError({ status: 502, headers: {}, body: "Bad Gateway" }).kind,
      "Transport",
    )
    assert.deepStrictEqual(
      ServerError.readError({ status: 502, headers: {}, body: "Bad Gateway\n" }).words,
      "Bad Gateway",
    )
    assert.strictEqual(
      ServerError.readError({ status: 418, headers: {}, body: bodyOf("teapot_error", "no") }).kind,
      "Unsupported",
    )
  })

  it("a 529 becomes a retryable error with the wait the server asks for; the words stay out of the message", () => {
    const response = {
      status: 529,
      headers: { "retry-after": "3" },
      body: bodyOf("overloaded_error", "Overloaded"),
    }
    const error = HttpError.toError(response, Codec.http(AnthropicCodec.make()).readError(response))
    assert.isTrue(error.isRetryable)
    assert.strictEqual(error.retryAfterMillis, 3000)
    assert.strictEqual(error.serverMessage, "Overloaded")
    assert.notInclude(error.message, "Overloaded")
  })
})

describe("errors in an answer", () => {
  const utf8 = new TextEncoder()
  const streamed = (sse: string) => feed(AnthropicCodec.decoder(), [utf8.encode(sse)])

  it("each error type as an error event gives its kind, with the words and the request id", () => {
    for (const [, type, kind] of errorsPage) {
      const outcome = streamed(`event: error\ndata: ${bodyOf(type, "words")}\n\n`)
      assert.strictEqual(outcome.error?.reason._tag, kind, type)
      assert.strictEqual(outcome.error?.serverMessage, "words")
      assert.include(outcome.error?.message, "req_011CSHoEeqs5C35K2UUqR7Fy")
      assert.notInclude(outcome.error?.message, "words")
    }
  })

  it("an error type this codec does not know is a Server error with the type as its code", () => {
    const outcome = streamed(
      `event: error\ndata: ${bodyOf("memory_path_conflict_error", "conflict")}\n\n`,
    )
    assert.strictEqual(outcome.error?.reason._tag, "Server")
    assert.strictEqual(
      outcome.error?.reason._tag === "Server" ? outcome.error.reason.code : undefined,
      "memory_path_conflict_error",
    )
  })

  it("an overloaded_error after text: the text came, the error ends the answer, nothing is released", () => {
    const sse = read("docs/streaming-tool-use.sse")
    const prefix = sse.slice(
      0,
      sse.indexOf('event: content_block_stop\ndata: {"type":"content_block_stop","index":1}'),
    )
    const outcome = streamed(
      `${prefix}event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n`,
    )
    assert.strictEqual(outcome.error?.reason._tag, "Transport")
    assert.isTrue(outcome.error?.isRetryable)
    assert.isUndefined(outcome.completion)
    assert.strictEqual(outcome.events.filter((event) => event._tag === "TextDelta").length, 13)
  })

  it("an error event whose data is not JSON: its text is the server's words", () => {
    const outcome = streamed("event: error\ndata: upstream connect error\n\n")
    assert.strictEqual(outcome.error?.reason._tag, "Server")
    assert.strictEqual(outcome.error?.serverMessage, "upstream connect error")
  })

  it("an error body instead of a whole answer", () => {
    const exit = Effect.runSyncExit(
      AnthropicCodec.decodeResponse(bodyOf("rate_limit_error", "slow down")),
    )
    assert.isTrue(Exit.isFailure(exit))
    if (Exit.isFailure(exit)) {
      const reason = exit.cause.reasons[0]
      assert.strictEqual(
        reason?._tag === "Fail" ? reason.error.reason._tag : undefined,
        "RateLimited",
      )
    }
  })
})
