import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { Json, Received } from "../src/index.js"

const runs = Number(process.env.SVIR_FUZZ_RUNS ?? 10_000)
const options = { maxBytes: 1_000, wire: "Toy Wire" }

const failureOf = (text: string, given = options) => {
  const read = Received.responseObject(text, given)
  if (Result.isSuccess(read)) throw new Error(`read ${text}`)
  return read.failure
}

describe("Received.responseObject", () => {
  it("reads any JSON object as JSON.parse does, with or without a byte order mark", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.boolean(), (value, mark) => {
        const text = JSON.stringify(value)
        const read = Received.responseObject(mark ? `\uFEFF${text}` : text, {
          maxBytes: 1_000_000,
          wire: "Toy Wire",
        })
        assert.isTrue(Result.isSuccess(read))
        if (Result.isSuccess(read)) assert.deepStrictEqual(read.success, JSON.parse(text))
      }),
      { numRuns: Math.min(runs, 300), seed: 3701 },
    )
  })

  it("refuses a body past maxBytes, before reading it", () => {
    const error = failureOf(`{"a":"${"x".repeat(2_000)}"}`)
    assert.strictEqual(error.reason._tag, "ResponseLimit")
    assert.strictEqual(
      error.message,
      "the response is longer than 1000 bytes (the maxBytes option)",
    )
  })

  it("says why a body is not an answer: too deep, not JSON (with the server's words), not an object", () => {
    const deep = failureOf(`${"[".repeat(200)}${"]".repeat(200)}`)
    assert.strictEqual(deep.reason._tag, "Protocol")
    assert.include(deep.message, `nests deeper than ${Json.maxDepth} levels`)
    const page = failureOf("<html>Bad gateway</html>")
    assert.strictEqual(page.message, "the response is not JSON")
    assert.strictEqual(page.serverMessage, "<html>Bad gateway</html>")
    for (const text of ["[]", "1", '"x"', "null"]) {
      assert.strictEqual(
        failureOf(text).message,
        "the server sent a response that is not a JSON object, which is not Toy Wire",
      )
    }
  })
})

describe("Received.unreadableEvent", () => {
  it("ends the answer for JSON too deep in either mode, and skips other data only in lenient mode", () => {
    const deepText = `${"[".repeat(200)}${"]".repeat(200)}`
    const deep = Json.parseValue(deepText)
    const broken = Json.parseValue("{nope")
    assert.instanceOf(deep, Json.JsonError)
    assert.instanceOf(broken, Json.JsonError)
    if (!(deep instanceof Json.JsonError) || !(broken instanceof Json.JsonError)) return
    for (const lenient of [false, true]) {
      const error = Received.unreadableEvent(deep, deepText, { lenient })
      assert.strictEqual(error?.message, Received.tooDeep("an event").message)
    }
    assert.isUndefined(Received.unreadableEvent(broken, "{nope", { lenient: true }))
    const strict = Received.unreadableEvent(broken, "{nope", { lenient: false })
    assert.strictEqual(strict?.reason._tag, "Protocol")
    assert.strictEqual(strict?.serverMessage, "{nope")
  })
})
