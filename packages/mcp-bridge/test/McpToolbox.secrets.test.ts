import { inspect } from "node:util"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Redaction, type SvirError, ToolCall } from "@svir/core"
import { Cause, Effect, Schedule } from "effect"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, captureLogs, serveHostileHttp } from "./servers.js"

const token = "sk-live-4f9a/72+Qz"
const apiKey = "key-7c1e0b93"
const headers = { Authorization: `Bearer ${token}`, "X-Api-Key": apiKey }
// The checker knows the token alone too: a server may echo it without its scheme.
const secrets = Redaction.make([token, apiKey, headers.Authorization])

/** Fails when the text holds a secret in any form a server may echo it in. */
const assertClean = (text: string, where: string) => {
  assert.notInclude(text, token, where)
  assert.notInclude(text, apiKey, where)
  assert.isFalse(secrets.reveals(text), `${where}: ${text}`)
}

/** Every way an error is shown: its fields, String, JSON, util.inspect and Cause.pretty. */
const assertErrorClean = (error: SvirError.SvirError) => {
  assertClean(error.message, "message")
  assertClean(error.serverMessage ?? "", "serverMessage")
  assertClean(String(error.cause), "cause")
  assertClean(inspect(error.cause, { depth: 10 }), "inspect(cause)")
  assertClean(String(error), "String")
  assertClean(JSON.stringify(error), "JSON.stringify")
  assertClean(inspect(error, { depth: 10 }), "util.inspect")
  assertClean(Cause.pretty(Cause.fail(error)), "Cause.pretty")
}

describe("McpToolbox.http keeps the configured headers out of errors, results and logs", () => {
  afterEach(assertNoChildLeft)

  it.live("when the server refuses to connect and echoes the request", () =>
    Effect.gen(function* () {
      const { url, control } = yield* serveHostileHttp()
      for (const status of [401, 500]) {
        control.status = status
        const error = yield* Effect.flip(McpToolbox.http({ url, headers }))
        assert.strictEqual(error.status, status)
        assert.include(error.serverMessage, Redaction.placeholder)
        assertErrorClean(error)
      }
    }),
  )

  it.live("when listing the tools fails with an error that echoes the request", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHostileHttp({ leakList: true })
      const error = yield* Effect.flip(McpToolbox.http({ url, headers }))
      assert.strictEqual(error.reason._tag, "Server")
      assert.include(error.serverMessage, "no list for")
      assert.include(error.serverMessage, `authorization: ${Redaction.placeholder}`)
      assertErrorClean(error)
    }),
  )

  it.live("when calls fail with texts, errors and HTTP answers that echo the request", () =>
    Effect.gen(function* () {
      const { url, control } = yield* serveHostileHttp()
      const toolbox = yield* McpToolbox.http({ url, headers })
      const leak = yield* toolbox.call(ToolCall.make("c1", "leak"))
      assert.isTrue(leak.isError)
      assert.include(leak.content, `authorization: ${Redaction.placeholder}`)
      assertClean(leak.content, "isError result")
      const thrown = yield* toolbox.call(ToolCall.make("c2", "leak_throw"))
      assert.isTrue(thrown.isError)
      assert.include(thrown.content, "refused")
      assertClean(thrown.content, "JSON-RPC error")
      control.status = 500
      const refused = yield* toolbox.call(ToolCall.make("c3", "echo"))
      assert.isTrue(refused.isError)
      assert.include(refused.content, "rejected")
      assertClean(refused.content, "HTTP 500")
      const refresh = yield* Effect.flip(toolbox.refresh)
      assert.strictEqual(refresh.status, 500)
      assertErrorClean(refresh)
    }),
  )

  it.live("when listing the tools again after a change fails, in the warning logged", () =>
    Effect.gen(function* () {
      const logs = captureLogs()
      const { url, control, server } = yield* serveHostileHttp()
      const toolbox = yield* McpToolbox.http({ url, headers })
      control.status = 500
      yield* Effect.promise(() => server.sendToolListChanged())
      // The notification comes on the server's event stream: list until it has landed.
      yield* toolbox.tools.pipe(
        Effect.provide(logs.layer),
        Effect.repeat({
          until: () => logs.logged.length > 0,
          schedule: Schedule.spaced("20 millis"),
          times: 250,
        }),
      )
      assert.strictEqual(logs.logged.length, 1)
      assert.include(logs.logged[0], "could not be listed again")
      assert.include(logs.logged[0], "the server answered HTTP 500")
      assertClean(logs.logged[0]!, "log")
    }),
  )
})
