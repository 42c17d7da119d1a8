import { inspect } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Cause } from "effect"
import * as fc from "fast-check"
import { Redaction, SvirError } from "../src/index.js"

const key = "sk-test-4f9a/Zq+2=xyz"
const redaction = Redaction.make([key, "cookie-value-77", "no"])

/** Every form a server may echo the key in. */
const echoes = (secret: string): ReadonlyArray<string> => [
  secret,
  JSON.stringify(secret).slice(1, -1).replaceAll("/", "\\/"),
  [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
  [...secret]
    .map((c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`)
    .join(""),
  JSON.stringify(JSON.stringify({ echo: secret })),
  encodeURIComponent(secret),
  [...secret].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join(""),
]

/** A reason's data but the server's own words, which redaction may change. */
const notServerWords = (reason: object): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(reason).filter(([key]) => key !== "serverMessage" && key !== "code"),
  )

describe("Redaction", () => {
  it("takes the secret out in every echoed form", () => {
    for (const echo of echoes(key)) {
      const out = redaction.text(`the server said: Bearer ${echo} was wrong`)
      assert.isFalse(out.includes(key), out)
      assert.isTrue(out.includes(Redaction.placeholder), out)
      assert.isFalse(redaction.reveals(out), out)
      assert.isTrue(redaction.reveals(echo), echo)
    }
  })

  it("takes out a prefix of the secret left at the end of a cut text", () => {
    for (let cut = Redaction.minSecretLength; cut < key.length; cut++) {
      const out = redaction.text(`token ${key.slice(0, cut)}…`)
      assert.strictEqual(out, `token ${Redaction.placeholder}…`)
    }
  })

  it("leaves short values and plain text alone", () => {
    assert.strictEqual(redaction.text("no, not now"), "no, not now")
    assert.strictEqual(Redaction.none.text(key), key)
  })

  it("redacts an error's message, server message and cause, in every way it is shown", () => {
    const inner = new Error(`connect failed for ${key}`)
    const error = SvirError.make("Server", `failed: ${key}`, {
      status: 500,
      serverMessage: `{"echo":"${key}"}`,
      cause: new Error("outer cookie-value-77", { cause: inner }),
    })
    const clean = redaction.error(error)
    const shown = [
      clean.message,
      clean.serverMessage ?? "",
      String(clean),
      JSON.stringify(clean),
      inspect(clean, { depth: 10 }),
      Cause.pretty(Cause.fail(clean)),
    ]
    for (const text of shown) {
      assert.isFalse(text.includes(key), text)
      assert.isFalse(text.includes("cookie-value-77"), text)
    }
    assert.strictEqual(clean.reason._tag, "Server")
    assert.strictEqual(clean.status, 500)
  })

  it("keeps the reason's data of every kind when it redacts an error", () => {
    const errors = [
      SvirError.make("RateLimited", `slow down, ${key}`, {
        status: 429,
        serverMessage: `no more for ${key}`,
        retryAfterMillis: 2000,
      }),
      SvirError.make("Transport", `failed: ${key}`, { status: 503, retryAfterMillis: 10 }),
      SvirError.make("Timeout", `late: ${key}`, { limit: "idle", limitMillis: 5000 }),
      SvirError.make("ResponseLimit", `large: ${key}`, { limit: "maxCalls", max: 8 }),
      SvirError.make("Unsupported", `no part: ${key}`, { status: 400, attachment: "a.pdf" }),
      SvirError.make("Server", "the server failed", { status: 500, code: `bad key ${key}` }),
      SvirError.make("ContextOverflow", `too long: ${key}`, { code: "context_length_exceeded" }),
      SvirError.make("Config", `redirected: ${key}`, { status: 302 }),
      SvirError.make("TruncatedStream", `cut: ${key}`),
    ]
    for (const error of errors) {
      const clean = redaction.error(error)
      assert.notStrictEqual(clean, error)
      assert.isFalse(JSON.stringify(clean).includes(key), JSON.stringify(clean))
      assert.strictEqual(clean.reason._tag, error.reason._tag)
      assert.deepStrictEqual(notServerWords(clean.reason), notServerWords(error.reason))
    }
    const server = redaction.error(errors[5]!)
    assert.strictEqual(
      server.reason._tag === "Server" && server.reason.code,
      `bad key ${Redaction.placeholder}`,
    )
    const limited = redaction.error(errors[0]!)
    assert.strictEqual(limited.serverMessage, `no more for ${Redaction.placeholder}`)
    assert.strictEqual(limited.retryAfterMillis, 2000)
    assert.strictEqual(limited.status, 429)
  })

  it("redacts a cause whose own data holds a secret, as Bun's fetch errors hold the URL", () => {
    // Bun's fetch error: a message without the URL, and the whole URL in an own `path`.
    const fetchError = Object.assign(
      new Error("Unable to connect. Is the computer able to access the url?"),
      {
        code: "ConnectionRefused",
        path: `http://127.0.0.1:9/v1/chat/completions?api-key=${key}`,
        errno: 0,
      },
    )
    const inner = Object.assign(new Error("inner"), { headers: { cookie: "cookie-value-77" } })
    const error = SvirError.make("Transport", "could not reach the server", {
      cause: new Error("outer", { cause: inner }),
    })
    for (const shownError of [
      redaction.error(SvirError.make("Transport", "could not reach it", { cause: fetchError })),
      redaction.error(error),
    ]) {
      for (const text of [JSON.stringify(shownError), inspect(shownError, { depth: 10 })]) {
        assert.isFalse(text.includes(key), text)
        assert.isFalse(text.includes("cookie-value-77"), text)
      }
    }
    const clean = redaction.error(SvirError.make("Transport", "x", { cause: fetchError }))
    const cause = clean.cause as Error & { readonly code?: unknown }
    assert.strictEqual(cause.message, fetchError.message)
    assert.strictEqual(cause.code, "ConnectionRefused")
  })

  it("keeps an error whose own data reveals nothing as it is", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), {
      code: "ECONNREFUSED",
      port: 9,
    })
    const error = SvirError.make("Transport", "could not reach the server", { cause: refused })
    assert.strictEqual(redaction.error(error), error)
  })

  it("keeps an error that reveals nothing as it is", () => {
    const error = SvirError.make("Transport", "could not reach the server", {
      cause: new Error("ECONNREFUSED"),
    })
    assert.strictEqual(redaction.error(error), error)
  })

  it("never shows a secret in any text with the secret placed anywhere", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 8, maxLength: 40, unit: fc.constantFrom(..."abcXYZ0189-_./+=:") }),
        fc.string(),
        fc.string(),
        fc.nat(6),
        (secret, before, after, form) => {
          const echo = echoes(secret)[form]!
          const out = Redaction.make([secret]).text(`${before}${echo}${after}`)
          assert.isFalse(out.includes(secret))
        },
      ),
      { seed: 18, numRuns: 500 },
    )
  })
})
