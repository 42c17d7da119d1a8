import { assert, describe, it } from "@effect/vitest"
import { Json } from "@svir/core"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { Client } from "../src/index.js"
import { serve } from "./httpServer.js"

/** The list of models a server answers with `body`, read by a client of it. */
const listFrom = (body: string) =>
  Effect.gen(function* () {
    const server = yield* serve(() => ({
      status: 200,
      headers: { "content-type": "application/json" },
      body,
    }))
    const client = yield* Client.make({ baseUrl: `${server.origin}/v1`, retry: false })
    return yield* Effect.flip(client.listModels())
  }).pipe(Effect.provide(FetchHttpClient.layer))

describe("the list of models", () => {
  it.live("nested past the bound on nesting is a Protocol error, not a crash", () =>
    Effect.gen(function* () {
      const deep = `{"data": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`
      const error = yield* listFrom(deep)
      assert.strictEqual(error.reason._tag, "Protocol")
      assert.include(error.message, `deeper than ${Json.maxDepth} levels`)
    }),
  )

  it.live("that is not JSON, or has no string ids, is a Protocol error", () =>
    Effect.gen(function* () {
      for (const body of ["<html>", '{"data": [null]}', '{"data": [{"id": 7}]}', "[]"]) {
        const error = yield* listFrom(body)
        assert.strictEqual(error.reason._tag, "Protocol", body)
      }
    }),
  )
})
