import { assert, describe, it } from "@effect/vitest"
import { it as fc } from "@fast-check/vitest"
import { SvirError } from "@svir/core"
import fastCheck from "fast-check"
import { StatusError } from "../src/index.js"

const bodyShapes = (message: string) => [
  JSON.stringify({ error: { message, type: "x", code: null } }),
  JSON.stringify({ error: message }),
  JSON.stringify({ detail: message }),
  JSON.stringify({ detail: [{ loc: ["body"], msg: message, type: "value_error" }] }),
  JSON.stringify({ message }),
]

describe("StatusError", () => {
  fc.prop([fastCheck.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim() !== "")], {
    seed: 1,
  })("finds the server's message in every known error shape", (message) => {
    for (const body of bodyShapes(message)) {
      assert.strictEqual(StatusError.serverMessage(body), message)
    }
  })

  fc.prop([fastCheck.string({ maxLength: 20_000 })], { seed: 2 })(
    "never keeps more than the limit of a server's words",
    (body) => {
      const words = StatusError.serverMessage(body)
      if (words !== undefined) assert.isAtMost(words.length, SvirError.serverMessageLimit + 1)
    },
  )

  fc.prop([fastCheck.integer({ min: 100, max: 599 }), fastCheck.string({ maxLength: 100 })], {
    seed: 3,
  })("maps every status to one kind, by the table", (status, body) => {
    const kind = StatusError.kindOf(status, body)
    if (status === 401 || status === 403) assert.strictEqual(kind, "Authentication")
    else if (status === 408 || status === 504) assert.strictEqual(kind, "Timeout")
    else if (status === 429) assert.strictEqual(kind, "RateLimited")
    else if ([500, 502, 503].includes(status)) assert.strictEqual(kind, "Transport")
    else if (![400, 413, 422].includes(status)) assert.strictEqual(kind, "Unsupported")
    else assert.include(["ContextOverflow", "ContentFilter", "Unsupported"], kind)
  })

  it("names a context overflow by code or by words, and a content filter by code", () => {
    const overflow = JSON.stringify({ error: { message: "x", code: "exceed_context_size_error" } })
    assert.strictEqual(StatusError.kindOf(400, overflow), "ContextOverflow")
    assert.strictEqual(
      StatusError.kindOf(422, '{"detail":"input exceeds the context window of 4096"}'),
      "ContextOverflow",
    )
    const filtered = JSON.stringify({ error: { message: "no", code: "content_filter" } })
    assert.strictEqual(StatusError.kindOf(400, filtered), "ContentFilter")
    // D11: the codes count on the statuses that carry them, 400, 413 and 422, as in the Rust crate.
    assert.strictEqual(StatusError.kindOf(413, filtered), "ContentFilter")
    assert.strictEqual(StatusError.kindOf(404, filtered), "Unsupported")
  })

  it("reads llama.cpp's overflow by its type when its code is the status", () => {
    // llama.cpp's 400 body: the code is the number 400, the kind is in `type`.
    const body = JSON.stringify({
      error: { code: 400, message: "try increasing it", type: "exceed_context_size_error" },
    })
    assert.strictEqual(StatusError.kindOf(400, body), "ContextOverflow")
    assert.isUndefined(StatusError.serverCode(body))
  })

  it("tells an overflow by the same words as a stream's error", () => {
    for (const words of [
      "This model's maximum context length is 8192 tokens",
      "the request exceeds the available context size",
      "Input exceeds the model's context window",
      "request exceeds the context budget",
      "the compacted context is still too large",
    ]) {
      const body = JSON.stringify({ error: { message: words } })
      assert.strictEqual(StatusError.kindOf(400, body), "ContextOverflow", words)
      assert.strictEqual(StatusError.kindOf(413, body), "ContextOverflow", words)
    }
    assert.strictEqual(
      StatusError.kindOf(400, '{"error":{"message":"bad tool schema"}}'),
      "Unsupported",
    )
  })

  fc.prop(
    [fastCheck.integer({ min: 0, max: 100_000 }), fastCheck.integer({ min: 1, max: 120_000 })],
    { seed: 4 },
  )("reads Retry-After seconds and retry-after-ms, capped", (seconds, cap) => {
    assert.strictEqual(
      StatusError.retryAfterMillis({ "retry-after": String(seconds) }, cap),
      Math.min(seconds * 1000, cap),
    )
    assert.strictEqual(
      StatusError.retryAfterMillis({ "retry-after-ms": String(seconds), "retry-after": "99" }, cap),
      Math.min(seconds, cap),
    )
  })

  it("reads Retry-After as an HTTP date, and ignores what it cannot read", () => {
    const now = Date.parse("2026-11-30T05:00:00Z")
    const later = new Date(now + 7_000).toUTCString()
    assert.strictEqual(StatusError.retryAfterMillis({ "retry-after": later }, 60_000, now), 7_000)
    assert.isUndefined(StatusError.retryAfterMillis({ "retry-after": "soon" }, 60_000, now))
    assert.isUndefined(StatusError.retryAfterMillis({}, 60_000, now))
  })

  fc.prop(
    [
      fastCheck.integer({ min: 300, max: 599 }),
      fastCheck.string({ maxLength: 200 }),
      fastCheck.integer({ min: 0, max: 4 }),
    ],
    { seed: 2026, numRuns: 500 },
  )("keeps the server's words in serverMessage, never in the message", (status, text, shape) => {
    // What the server says can quote the prompt, and messages get logged (D2).
    const words = `prompt-quote-7731 ${text}`
    const error = StatusError.fromResponse({ status, headers: {}, body: bodyShapes(words)[shape]! })
    assert.strictEqual(error.serverMessage, words)
    assert.notInclude(error.message, "prompt-quote-7731")
    assert.include(error.message, `HTTP ${status}`)
  })

  it("gives the status error, without the server's words, for a body nested 100,000 deep", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`
    for (const body of [
      `{"error":{"message":"too deep to read","code":"content_filter","data":${deep}}}`,
      `{"detail":${deep}}`,
      `{"detail":[{"msg":"too deep to read","ctx":${deep}}]}`,
    ]) {
      const error = StatusError.fromResponse({ status: 400, headers: {}, body })
      assert.strictEqual(error.reason._tag, "Unsupported")
      assert.strictEqual(error.status, 400)
      assert.isUndefined(error.serverMessage)
    }
  })

  it("ignores a Retry-After it cannot read, or that is in the past, rather than wait 0 ms", () => {
    const now = Date.parse("2026-11-30T05:00:00Z")
    for (const value of [
      "-5",
      "+5",
      "1e3",
      "NaN",
      "Infinity",
      "-Infinity",
      "0x10",
      "2, 3",
      "5s",
      "",
      "Thu, 01 Jan 1970 00:00:00 GMT",
      new Date(now - 1_000).toUTCString(),
      new Date(now).toUTCString(),
      "2026-11-30T05:00:07Z",
    ]) {
      assert.isUndefined(
        StatusError.retryAfterMillis({ "retry-after": value }, 60_000, now),
        JSON.stringify(value),
      )
      assert.isUndefined(
        StatusError.retryAfterMillis({ "retry-after-ms": value }, 60_000, now),
        JSON.stringify(value),
      )
    }
    // A garbled retry-after-ms leaves Retry-After to say.
    assert.strictEqual(
      StatusError.retryAfterMillis({ "retry-after-ms": "-5", "retry-after": "2" }, 60_000, now),
      2_000,
    )
    // A huge number of seconds is a long wait: capped, as any wait.
    assert.strictEqual(
      StatusError.retryAfterMillis({ "retry-after": "9".repeat(400) }, 60_000, now),
      60_000,
    )
    assert.strictEqual(StatusError.retryAfterMillis({ "retry-after": "0" }, 60_000, now), 0)
  })

  fc.prop(
    [
      fastCheck.oneof(
        fastCheck.string({ maxLength: 40 }),
        fastCheck.double().map(String),
        fastCheck.integer().map(String),
        fastCheck
          .date({ min: new Date(0), max: new Date(Date.UTC(2100, 0)), noInvalidDate: true })
          .map((date) => date.toUTCString()),
      ),
      fastCheck.integer({ min: 1, max: 120_000 }),
    ],
    { seed: 424_242, numRuns: 2_000 },
  )("reads only digits or a later HTTP date, as a wait within the cap", (value, cap) => {
    const now = Date.parse("2026-11-30T05:00:00Z")
    const wait = StatusError.retryAfterMillis({ "retry-after": value }, cap, now)
    const trimmed = value.trim()
    if (/^\d+(\.\d+)?$/.test(trimmed)) {
      assert.strictEqual(wait, Math.min(Math.ceil(Number(trimmed) * 1000), cap))
    } else if (/GMT$/.test(trimmed) && Date.parse(trimmed) > now) {
      assert.strictEqual(wait, Math.min(Date.parse(trimmed) - now, cap))
    } else {
      assert.isUndefined(wait)
    }
  })

  it("keeps the wait only where waiting helps", () => {
    const headers = { "retry-after": "3" }
    assert.strictEqual(
      StatusError.fromResponse({ status: 429, headers, body: "" }).retryAfterMillis,
      3_000,
    )
    assert.strictEqual(
      StatusError.fromResponse({ status: 503, headers, body: "" }).retryAfterMillis,
      3_000,
    )
    assert.isUndefined(
      StatusError.fromResponse({ status: 400, headers, body: "" }).retryAfterMillis,
    )
  })
})
