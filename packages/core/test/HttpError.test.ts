import { assert, describe, it } from "@effect/vitest"
import { it as fc } from "@fast-check/vitest"
import fastCheck from "fast-check"
import { Codec, HttpError, SvirError, Text } from "../src/index.js"

const response = (status: number, body: string | undefined, headers = {}) => ({
  status,
  headers,
  body,
})

describe("HttpError", () => {
  fc.prop([fastCheck.integer({ min: 100, max: 599 })], { seed: 3 })(
    "maps every status to one kind, by the table",
    (status) => {
      const kind = HttpError.defaultKind(status)
      if (status === 401 || status === 403) assert.strictEqual(kind, "Authentication")
      else if (status === 408 || status === 504) assert.strictEqual(kind, "Timeout")
      else if (status === 429) assert.strictEqual(kind, "RateLimited")
      else if ([500, 502, 503].includes(status)) assert.strictEqual(kind, "Transport")
      else assert.strictEqual(kind, "Unsupported")
    },
  )

  fc.prop(
    [fastCheck.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim() === s && s !== "")],
    {
      seed: 1,
    },
  )("reads the words of the common error shapes, and plain text as it is", (message) => {
    for (const body of [
      JSON.stringify({ error: { message, type: "x" } }),
      JSON.stringify({ error: message }),
      JSON.stringify({ message }),
      JSON.stringify({ detail: message }),
    ]) {
      assert.strictEqual(HttpError.read(response(400, body)).words, message)
    }
    const text = HttpError.read(response(502, `<html>${message}</html>\n`)).words
    assert.strictEqual(text, `<html>${message}</html>`)
  })

  it("reads no words from no body, a body that is not an object, or one too deep to read", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`
    for (const body of [undefined, "", "[1,2]", "42", `{"error":{"message":"x","data":${deep}}}`]) {
      assert.isUndefined(HttpError.read(response(400, body)).words, String(body).slice(0, 20))
    }
  })

  it("is the reading of a codec that gives none, beside the bearer key", () => {
    const codec = { name: "plain" } as unknown as Codec.Codec
    const http = Codec.http(codec)
    assert.strictEqual(http.provider, "plain")
    assert.isUndefined(http.baseUrl)
    assert.isUndefined(http.models)
    assert.deepStrictEqual(http.environment, {})
    assert.deepStrictEqual(http.headers("sk-1"), { authorization: "Bearer sk-1" })
    assert.deepStrictEqual(http.headers(undefined), {})
    assert.strictEqual(http.readError, HttpError.read)
    const own = Codec.http({ ...codec, http: { headers: (key) => ({ "x-api-key": key ?? "" }) } })
    assert.deepStrictEqual(own.headers("k"), { "x-api-key": "k" })
  })

  fc.prop(
    [fastCheck.integer({ min: 0, max: 100_000 }), fastCheck.integer({ min: 1, max: 120_000 })],
    { seed: 4 },
  )("reads Retry-After seconds and retry-after-ms, capped", (seconds, cap) => {
    assert.strictEqual(
      HttpError.retryAfterMillis({ "retry-after": String(seconds) }, cap),
      Math.min(seconds * 1000, cap),
    )
    assert.strictEqual(
      HttpError.retryAfterMillis({ "retry-after-ms": String(seconds), "retry-after": "99" }, cap),
      Math.min(seconds, cap),
    )
  })

  it("reads Retry-After as an HTTP date, and ignores what it cannot read", () => {
    const now = Date.parse("2026-11-30T05:00:00Z")
    const later = new Date(now + 7_000).toUTCString()
    assert.strictEqual(HttpError.retryAfterMillis({ "retry-after": later }, 60_000, now), 7_000)
    assert.isUndefined(HttpError.retryAfterMillis({ "retry-after": "soon" }, 60_000, now))
    assert.isUndefined(HttpError.retryAfterMillis({}, 60_000, now))
  })

  it("reads Retry-After as an HTTP date, and ignores what it cannot read", () => {
    const now = Date.parse("2026-11-30T05:00:00Z")
    const later = new Date(now + 7_000).toUTCString()
    assert.strictEqual(HttpError.retryAfterMillis({ "retry-after": later }, 60_000, now), 7_000)
    assert.isUndefined(HttpError.retryAfterMillis({ "retry-after": "soon" }, 60_000, now))
    assert.isUndefined(HttpError.retryAfterMillis({}, 60_000, now))
  })

  fc.prop([fastCheck.integer({ min: 300, max: 599 }), fastCheck.string({ maxLength: 200 })], {
    seed: 2026,
    numRuns: 500,
  })("keeps the server's words in serverMessage, never in the message", (status, text) => {
    // What the server says can quote the prompt, and messages get logged.
    const words = `prompt-quote-7731 ${text}`
    const answer = response(status, JSON.stringify({ error: { message: words } }))
    const error = HttpError.toError(answer, HttpError.read(answer))
    assert.strictEqual(error.serverMessage, Text.shorten(words, SvirError.serverMessageLimit))
    assert.notInclude(error.message, "prompt-quote-7731")
    assert.include(error.message, `HTTP ${status}`)
    assert.strictEqual(error.status, status)
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
        HttpError.retryAfterMillis({ "retry-after": value }, 60_000, now),
        JSON.stringify(value),
      )
      assert.isUndefined(
        HttpError.retryAfterMillis({ "retry-after-ms": value }, 60_000, now),
        JSON.stringify(value),
      )
    }
    // A garbled retry-after-ms leaves Retry-After to say.
    assert.strictEqual(
      HttpError.retryAfterMillis({ "retry-after-ms": "-5", "retry-after": "2" }, 60_000, now),
      2_000,
    )
    // A huge number of seconds is a long wait: capped, as any wait.
    assert.strictEqual(
      HttpError.retryAfterMillis({ "retry-after": "9".repeat(400) }, 60_000, now),
      60_000,
    )
    assert.strictEqual(HttpError.retryAfterMillis({ "retry-after": "0" }, 60_000, now), 0)
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
    const wait = HttpError.retryAfterMillis({ "retry-after": value }, cap, now)
    const trimmed = value.trim()
    if (/^\d+(\.\d+)?$/.test(trimmed)) {
      assert.strictEqual(wait, Math.min(Math.ceil(Number(trimmed) * 1000), cap))
    } else if (/GMT$/.test(trimmed) && Date.parse(trimmed) > now) {
      assert.strictEqual(wait, Math.min(Date.parse(trimmed) - now, cap))
    } else {
      assert.isUndefined(wait)
    }
  })

  it("keeps the wait only where waiting helps, capped", () => {
    const headers = { "retry-after": "3" }
    const wait = (status: number, kind: SvirError.Kind, max?: number) =>
      HttpError.toError(
        response(status, "", headers),
        { kind, words: undefined },
        {
          maxRetryAfterMillis: max,
        },
      ).retryAfterMillis
    assert.strictEqual(wait(429, "RateLimited"), 3_000)
    assert.strictEqual(wait(503, "Transport"), 3_000)
    // A codec may call a status of its own wire retryable (Anthropic's 529).
    assert.strictEqual(wait(529, "Transport"), 3_000)
    assert.strictEqual(wait(429, "RateLimited", 1_000), 1_000)
    assert.isUndefined(wait(400, "Unsupported"))
    assert.isUndefined(wait(400, "ContextOverflow"))
  })
})
