import { assert, describe, it } from "@effect/vitest"
import { Codec } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { AnthropicCodec } from "../src/index.js"

const http = Codec.http(AnthropicCodec.make())

describe("the HTTP facts", () => {
  it("the provider, base URL and variables", () => {
    assert.strictEqual(http.provider, "anthropic")
    assert.strictEqual(http.baseUrl, "https://api.anthropic.com/v1")
    assert.deepStrictEqual(http.environment, {
      apiKey: "ANTHROPIC_API_KEY",
      baseUrl: "ANTHROPIC_BASE_URL",
    })
    const codec = AnthropicCodec.make()
    assert.strictEqual(codec.name, "anthropic-messages")
    assert.strictEqual(codec.path, "/messages")
  })

  it("the key as x-api-key, the API version always, no Authorization", () => {
    assert.deepStrictEqual(http.headers("sk-ant-1"), {
      "x-api-key": "sk-ant-1",
      "anthropic-version": "2023-06-01",
    })
    assert.deepStrictEqual(http.headers(undefined), { "anthropic-version": "2023-06-01" })
  })

  it("the models: the largest page, ids and display names", () => {
    const models = http.models!
    assert.strictEqual(models.path, "/models")
    assert.deepStrictEqual(models.query, { limit: "1000" })
    const body = JSON.stringify({
      data: [
        {
          type: "model",
          id: "claude-sonnet-4-5-20250929",
          display_name: "Claude Sonnet 4.5",
          created_at: "2025-09-29T00:00:00Z",
        },
        {
          type: "model",
          id: "claude-haiku-4-5-20251001",
          display_name: "Claude Haiku 4.5",
          created_at: "2025-10-01T00:00:00Z",
        },
      ],
      has_more: false,
      first_id: "claude-sonnet-4-5-20250929",
      last_id: "claude-haiku-4-5-20251001",
    })
    assert.deepStrictEqual(Effect.runSync(models.decode(body)), [
      { id: "claude-sonnet-4-5-20250929", name: "Claude Sonnet 4.5", ownedBy: undefined },
      { id: "claude-haiku-4-5-20251001", name: "Claude Haiku 4.5", ownedBy: undefined },
    ])
  })

  it("a list with more pages is a ResponseLimit error, never a part given as the whole", () => {
    const exit = Effect.runSyncExit(
      http.models!.decode(JSON.stringify({ data: [{ id: "a" }], has_more: true })),
    )
    assert.isTrue(Exit.isFailure(exit))
    if (Exit.isFailure(exit)) {
      const reason = exit.cause.reasons[0]
      assert.strictEqual(
        reason?._tag === "Fail" ? reason.error.reason._tag : undefined,
        "ResponseLimit",
      )
    }
  })

  it("a list that cannot be read is a Protocol error", () => {
    for (const body of ["not json", "{}", '{"data":[{"name":"x"}]}']) {
      const exit = Effect.runSyncExit(http.models!.decode(body))
      assert.isTrue(Exit.isFailure(exit), body)
    }
  })

  it("the codec claims the fields it handles", () => {
    const codec = AnthropicCodec.make()
    assert.deepStrictEqual(codec.fields, AnthropicCodec.fields)
    const claimed: ReadonlyArray<string> = codec.fields ?? []
    assert.notInclude(claimed, "seed")
    assert.include(claimed, "parallelToolCalls")
  })
})
