import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { ToolCall } from "@svir/core"
import { Effect } from "effect"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, referenceServer } from "./servers.js"

const v2Server = fileURLToPath(new URL("./fixtures/v2-stdio.mjs", import.meta.url))
const progressServer = fileURLToPath(new URL("./fixtures/progress-stdio.mjs", import.meta.url))

/** The text of a call of `echo`, and whether it failed. */
const echo = (toolbox: McpToolbox.McpToolbox) =>
  Effect.map(toolbox.call(ToolCall.make("e1", "echo", '{"text":"hi"}')), (result) => [
    result.isError,
    result.content,
  ])

describe("McpToolbox speaking each server's protocol era (D48)", () => {
  afterEach(assertNoChildLeft)

  it.live("speaks 2026-07-28 to a server of the v2 SDK that serves it", () =>
    Effect.gen(function* () {
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [v2Server, "modern"],
      })
      assert.strictEqual(toolbox.protocolVersion, "2026-07-28")
      const names = Effect.map(toolbox.tools, (tools) => tools.map((tool) => tool.name))
      assert.deepStrictEqual(yield* names, ["echo", "grow"])
      assert.deepStrictEqual(yield* echo(toolbox), [false, "echo: hi"])
      // The change comes on the subscriptions/listen stream of 2026-07-28, written before the
      // answer to "grow"; the answer to the next call comes after it has been read.
      yield* toolbox.call(ToolCall.make("g1", "grow"))
      yield* echo(toolbox)
      assert.deepStrictEqual(yield* names, ["echo", "grow", "grown"])
    }),
  )

  it.live("speaks a 2025 revision to a server of the v2 SDK that serves only those", () =>
    Effect.gen(function* () {
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [v2Server, "legacy"],
      })
      assert.strictEqual(toolbox.protocolVersion, "2025-11-25")
      assert.deepStrictEqual(yield* echo(toolbox), [false, "echo: hi"])
    }),
  )

  it.live("speaks 2025-11-25 to a server of SDK 1.x, which refuses server/discover", () =>
    Effect.gen(function* () {
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [referenceServer("everything"), "stdio"],
      })
      assert.strictEqual(toolbox.protocolVersion, "2025-11-25")
      const result = yield* toolbox.call(ToolCall.make("e1", "echo", '{"message":"hi"}'))
      assert.deepStrictEqual([result.isError, result.content], [false, "Echo: hi"])
    }),
  )

  it.live("takes a stdio server silent on server/discover for an older one", () =>
    Effect.gen(function* () {
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [progressServer, "silent"],
      })
      assert.strictEqual(toolbox.protocolVersion, "2025-11-25")
      const result = yield* toolbox.call(ToolCall.make("r1", "report_with_answer"))
      assert.deepStrictEqual([result.isError, result.content], [false, "done"])
    }),
  )
})
