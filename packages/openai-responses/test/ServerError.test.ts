import { assert, describe, it } from "@effect/vitest"
import { fc, it as prop } from "@fast-check/vitest"
import type { SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { feed } from "../../../test/decoding.js"
import { ResponsesCodec, ServerError } from "../src/index.js"
import { sse } from "./support/events.js"
import { read } from "./support/recordings.js"

/** D22: each code (or type) with the kind it stands for. */
const table: ReadonlyArray<readonly [string, SvirError.Kind]> = [
  ["context_length_exceeded", "ContextOverflow"],
  ["context_window_exceeded", "ContextOverflow"],
  ["content_filter", "ContentFilter"],
  ["image_content_policy_violation", "ContentFilter"],
  ["rate_limit_exceeded", "RateLimited"],
  ["server_error", "Transport"],
  ["server_is_overloaded", "Transport"],
  ["vector_store_timeout", "Timeout"],
  ["invalid_api_key", "Authentication"],
  ["insufficient_quota", "Authentication"],
  ["invalid_prompt", "Unsupported"],
  ["invalid_image_url", "Unsupported"],
  ["image_too_large", "Unsupported"],
]

const retryable: ReadonlySet<SvirError.Kind> = new Set(["RateLimited", "Transport", "Timeout"])

const errorOf = <A>(effect: Effect.Effect<A, SvirError.SvirError>) => {
  const exit = Effect.runSyncExit(effect)
  if (Exit.isSuccess(exit)) return undefined
  const reason = exit.cause.reasons[0]
  return reason?._tag === "Fail" ? reason.error : undefined
}

/** The same error read in the four places it can come. */
const readEveryWay = (code: string, message: string) => {
  const body = { error: { message, type: "invalid_request_error", param: null, code } }
  const http = ServerError.readError({ status: 400, headers: {}, body: JSON.stringify(body) })
  const whole = errorOf(ResponsesCodec.decodeResponse(JSON.stringify(body)))
  const stream = (event: object) =>
    feed(ResponsesCodec.decoder(), [new TextEncoder().encode(sse(event))]).error
  const event = stream({ type: "error", code, message, param: null, sequence_number: 1 })
  const failed = stream({
    type: "response.failed",
    response: {
      id: "resp_1",
      object: "response",
      status: "failed",
      output: [],
      error: { code, message },
    },
  })
  return { http, whole, event, failed }
}

describe("the codes of the Responses API (D22)", () => {
  for (const [code, kind] of table) {
    it(`${code} is ${kind}, over HTTP, as a whole answer, as an error event and as a failed response`, () => {
      const read = readEveryWay(code, `words for ${code}`)
      assert.deepStrictEqual(read.http, { kind, words: `words for ${code}` })
      for (const error of [read.whole, read.event, read.failed]) {
        assert.strictEqual(error?.reason._tag, kind)
        assert.strictEqual(error?.serverMessage, `words for ${code}`)
        assert.strictEqual(error?.isRetryable, retryable.has(kind))
      }
    })
  }

  it("words naming the context window are a ContextOverflow when no code says otherwise", () => {
    const words =
      "Your input exceeds the context window of this model. Please adjust your input and try again."
    assert.strictEqual(
      ServerError.kindOf({ code: undefined, type: "invalid_request_error", words, param: "input" }),
      "ContextOverflow",
    )
    assert.strictEqual(
      ServerError.kindOf({ code: "rate_limit_exceeded", type: undefined, words, param: undefined }),
      "RateLimited",
      "the code decides first",
    )
  })

  it("a gateway's numeric 429 and the types of other wires", () => {
    const reading = ServerError.read({ error: { code: 429, message: "Provider returned error" } })
    assert.strictEqual(reading.code, 429)
    assert.strictEqual(ServerError.kindOf(reading), "RateLimited")
    assert.strictEqual(
      ServerError.kindOf({
        code: undefined,
        type: "overloaded_error",
        words: "Overloaded",
        param: undefined,
      }),
      "Transport",
    )
  })

  it("the error event's own type is not the error's", () => {
    assert.deepStrictEqual(
      ServerError.read({
        type: "error",
        code: "ERR_SOMETHING",
        message: "Something went wrong",
        param: null,
      }),
      { code: "ERR_SOMETHING", type: undefined, words: "Something went wrong", param: undefined },
    )
  })
})

describe("one reading wherever the error comes", () => {
  const code = fc.oneof(
    fc.constantFrom(...table.map(([known]) => known)),
    fc.stringMatching(/^[a-z_]{1,20}$/),
  )
  prop.prop([code, fc.string({ minLength: 1, maxLength: 60 })], { numRuns: 200 })(
    "over HTTP the code's kind or the status's; in the stream the code's kind or a Server error",
    (given, words) => {
      const reading = { code: given, type: undefined, words, param: undefined }
      const known = ServerError.kindOf(reading)
      const read = readEveryWay(given, words)
      assert.deepStrictEqual(read.http, { kind: known ?? "Unsupported", words })
      for (const error of [read.whole, read.event, read.failed]) {
        assert.strictEqual(error?.reason._tag, known ?? "Server")
        assert.strictEqual(error?.serverMessage, words)
      }
    },
  )
})

describe("readError", () => {
  it("a code this codec does not know, or only the generic type, falls back to the status", () => {
    const body = (code: string | null) =>
      JSON.stringify({
        error: {
          message: "You didn't provide an API key.",
          type: "invalid_request_error",
          param: null,
          code,
        },
      })
    assert.strictEqual(
      ServerError.readError({ status: 401, headers: {}, body: body(null) }).kind,
      "Authentication",
    )
    assert.strictEqual(
      ServerError.readError({ status: 404, headers: {}, body: body("unknown_code") }).kind,
      "Unsupported",
    )
    assert.strictEqual(
      ServerError.readError({ status: 503, headers: {}, body: body(null) }).kind,
      "Transport",
    )
  })

  it("a 429 for the quota is not worth a retry; one for the rate is", () => {
    const quota = ServerError.readError({
      status: 429,
      headers: {},
      body: JSON.stringify({
        error: {
          message: "You exceeded your current quota",
          type: "insufficient_quota",
          code: "insufficient_quota",
          param: null,
        },
      }),
    })
    assert.strictEqual(quota.kind, "Authentication")
    const rate = ServerError.readError({
      status: 429,
      headers: {},
      body: JSON.stringify({
        error: {
          message: "Rate limit reached",
          type: "requests",
          code: "rate_limit_exceeded",
          param: null,
        },
      }),
    })
    assert.strictEqual(rate.kind, "RateLimited")
  })

  it("a body that is not JSON gives its text as the words; none gives the status alone", () => {
    assert.deepStrictEqual(
      ServerError.readError({ status: 502, headers: {}, body: "Bad Gateway\n" }),
      {
        kind: "Transport",
        words: "Bad Gateway",
      },
    )
    assert.deepStrictEqual(ServerError.readError({ status: 500, headers: {}, body: undefined }), {
      kind: "Transport",
      words: undefined,
    })
  })

  it("is the codec's readError", () => {
    assert.strictEqual(ResponsesCodec.http.readError, ServerError.readError)
  })
})

describe("recorded error bodies", () => {
  // Over HTTP the status decides what no code says; in place of an answer there is no status,
  // and a code this codec does not know is a Server error with that code.
  const recorded: ReadonlyArray<readonly [string, number, SvirError.Kind, SvirError.Kind]> = [
    ["openai-error.1.json", 429, "Authentication", "Authentication"],
    ["issue-12754-strict-compatible-error.json", 400, "Unsupported", "Server"],
    ["openai-issue-17402-error.1.json", 400, "Unsupported", "Server"],
    ["reasoning-model-temperature-error.json", 400, "Unsupported", "Server"],
  ]
  for (const [file, status, kind, inPlace] of recorded) {
    it(`${file} over HTTP ${status} is ${kind}, and ${inPlace} in place of an answer`, () => {
      const body = read(`vercel/${file}`)
      const reading = ServerError.readError({ status, headers: {}, body })
      assert.strictEqual(reading.kind, kind)
      assert.strictEqual(
        reading.words,
        (JSON.parse(body) as { error: { message: string } }).error.message,
      )
      const whole = errorOf(ResponsesCodec.decodeResponse(body))
      assert.strictEqual(whole?.reason._tag, inPlace)
      assert.strictEqual(whole?.serverMessage, reading.words)
    })
  }
})
