/**
 * The HTTP facts of Chat Completions: error answers read by `ServerError` (a context overflow or a
 * content filter told by the body of a 400, 413 or 422, DECISIONS.md D65) and the list of models.
 */
import { assert, describe, it } from "@effect/vitest"
import { it as fc } from "@fast-check/vitest"
import { Codec, HttpError, SvirError } from "@svir/core"
import { Effect } from "effect"
import fastCheck from "fast-check"
import { OpenAiCodec } from "../src/index.js"

const http = Codec.http(OpenAiCodec.make())

/** The reading of a refused request, as a client makes it. */
const Refused = {
  kindOf: (status: number, body: string | undefined) =>
    http.readError({ status, headers: {}, body }).kind,
  serverMessage: (body: string | undefined) =>
    http.readError({ status: 400, headers: {}, body }).words,
  fromResponse: (response: HttpError.Response) =>
    HttpError.toError(response, http.readError(response)),
}

const bodyShapes = (message: string) => [
  JSON.stringify({ error: { message, type: "x", code: null } }),
  JSON.stringify({ error: message }),
  JSON.stringify({ detail: message }),
  JSON.stringify({ detail: [{ loc: ["body"], msg: message, type: "value_error" }] }),
  JSON.stringify({ message }),
]

describe("the HTTP facts of Chat Completions", () => {
  it("are OpenAI's: the bearer key, the base URL, the variables, the provider", () => {
    assert.deepStrictEqual(http.headers("sk-1"), { authorization: "Bearer sk-1" })
    assert.strictEqual(http.baseUrl, "https://api.openai.com/v1")
    assert.deepStrictEqual(http.environment, {
      apiKey: "OPENAI_API_KEY",
      baseUrl: "OPENAI_BASE_URL",
    })
    assert.strictEqual(http.provider, "openai")
  })

  fc.prop([fastCheck.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim() !== "")], {
    seed: 1,
  })("finds the server's message in every known error shape", (message) => {
    for (const body of bodyShapes(message)) {
      assert.strictEqual(Refused.serverMessage(body), message)
    }
  })

  fc.prop([fastCheck.string({ maxLength: 20_000 })], { seed: 2 })(
    "never keeps more than the limit of a server's words",
    (body) => {
      const words = Refused.serverMessage(body)
      if (words !== undefined) assert.isAtMost(words.length, SvirError.serverMessageLimit + 1)
    },
  )

  fc.prop([fastCheck.integer({ min: 100, max: 599 }), fastCheck.string({ maxLength: 100 })], {
    seed: 3,
  })(
    "maps every status by core's table, except what a refused request's body says",
    (status, body) => {
      const kind = Refused.kindOf(status, body)
      if (![400, 413, 422].includes(status)) assert.strictEqual(kind, HttpError.defaultKind(status))
      else assert.include(["ContextOverflow", "ContentFilter", "Unsupported"], kind)
    },
  )

  it("names a context overflow by code or by words, and a content filter by code", () => {
    const overflow = JSON.stringify({ error: { message: "x", code: "exceed_context_size_error" } })
    assert.strictEqual(Refused.kindOf(400, overflow), "ContextOverflow")
    assert.strictEqual(
      Refused.kindOf(422, '{"detail":"input exceeds the context window of 4096"}'),
      "ContextOverflow",
    )
    const filtered = JSON.stringify({ error: { message: "no", code: "content_filter" } })
    assert.strictEqual(Refused.kindOf(400, filtered), "ContentFilter")
    // D11: the codes count on the statuses that carry them, 400, 413 and 422, as in the Rust crate.
    assert.strictEqual(Refused.kindOf(413, filtered), "ContentFilter")
    assert.strictEqual(Refused.kindOf(404, filtered), "Unsupported")
  })

  it("reads llama.cpp's overflow by its type when its code is the status", () => {
    // llama.cpp's 400 body: the code is the number 400, the kind is in `type`.
    const body = JSON.stringify({
      error: { code: 400, message: "try increasing it", type: "exceed_context_size_error" },
    })
    assert.strictEqual(Refused.kindOf(400, body), "ContextOverflow")
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
      assert.strictEqual(Refused.kindOf(400, body), "ContextOverflow", words)
      assert.strictEqual(Refused.kindOf(413, body), "ContextOverflow", words)
    }
    assert.strictEqual(
      Refused.kindOf(400, '{"error":{"message":"bad tool schema"}}'),
      "Unsupported",
    )
  })

  it("gives the status error, without the server's words, for a body nested 100,000 deep", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`
    for (const body of [
      `{"error":{"message":"too deep to read","code":"content_filter","data":${deep}}}`,
      `{"detail":${deep}}`,
      `{"detail":[{"msg":"too deep to read","ctx":${deep}}]}`,
    ]) {
      const error = Refused.fromResponse({ status: 400, headers: {}, body })
      assert.strictEqual(error.reason._tag, "Unsupported")
      assert.strictEqual(error.status, 400)
      assert.isUndefined(error.serverMessage)
    }
  })

  it.effect("reads the list of models", () =>
    Effect.gen(function* () {
      const models = yield* http.models!.decode(
        '{"object":"list","data":[{"id":"qwen3","owned_by":"me","name":"Qwen 3"},{"id":"m2"}]}',
      )
      assert.deepStrictEqual(models, [
        { id: "qwen3", name: "Qwen 3", ownedBy: "me" },
        { id: "m2", name: undefined, ownedBy: undefined },
      ])
      for (const body of ["nope", '{"models":[]}', '{"data":[{"name":"x"}]}']) {
        const error = yield* Effect.flip(http.models!.decode(body))
        assert.strictEqual(error.reason._tag, "Protocol")
      }
    }),
  )
})
