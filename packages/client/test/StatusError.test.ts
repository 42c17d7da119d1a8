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
  fc.prop([fastCheck.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim() !== "")])(
    "finds the server's message in every known error shape",
    (message) => {
      for (const body of bodyShapes(message)) {
        assert.strictEqual(StatusError.serverMessage(body), message)
      }
    },
  )

  fc.prop([fastCheck.string({ maxLength: 20_000 })])(
    "never keeps more than the limit of a server's words",
    (body) => {
      const words = StatusError.serverMessage(body)
      if (words !== undefined) assert.isAtMost(words.length, SvirError.serverMessageLimit + 1)
    },
  )

  fc.prop([fastCheck.integer({ min: 100, max: 599 }), fastCheck.string({ maxLength: 100 })])(
    "maps every status to one kind, by the table",
    (status, body) => {
      const kind = StatusError.kindOf(status, body)
      if (status === 401 || status === 403) assert.strictEqual(kind, "Authentication")
      else if (status === 408 || status === 504) assert.strictEqual(kind, "Timeout")
      else if (status === 429) assert.strictEqual(kind, "RateLimited")
      else if ([500, 502, 503].includes(status)) assert.strictEqual(kind, "Transport")
      else if (![400, 413, 422].includes(status)) assert.strictEqual(kind, "Unsupported")
      else assert.include(["ContextOverflow", "ContentFilter", "Unsupported"], kind)
    },
  )

  it("names a context overflow by code or by words, and a content filter by code", () => {
    const overflow = JSON.stringify({ error: { message: "x", code: "exceed_context_size_error" } })
    assert.strictEqual(StatusError.kindOf(400, overflow), "ContextOverflow")
    assert.strictEqual(
      StatusError.kindOf(422, '{"detail":"input exceeds the context window of 4096"}'),
      "ContextOverflow",
    )
    const filtered = JSON.stringify({ error: { message: "no", code: "content_filter" } })
    assert.strictEqual(StatusError.kindOf(400, filtered), "ContentFilter")
    assert.strictEqual(StatusError.kindOf(413, filtered), "Unsupported")
  })

  fc.prop([
    fastCheck.integer({ min: 0, max: 100_000 }),
    fastCheck.integer({ min: 1, max: 120_000 }),
  ])("reads Retry-After seconds and retry-after-ms, capped", (seconds, cap) => {
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

  it("keeps the wait only where waiting helps", () => {
    const headers = { "retry-after": "3" }
    assert.strictEqual(
      StatusError.fromAnswer({ status: 429, headers, body: "" }).retryAfterMillis,
      3_000,
    )
    assert.strictEqual(
      StatusError.fromAnswer({ status: 503, headers, body: "" }).retryAfterMillis,
      3_000,
    )
    assert.isUndefined(StatusError.fromAnswer({ status: 400, headers, body: "" }).retryAfterMillis)
  })
})
