import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { ToolCall } from "@svir/core"
import { Effect } from "effect"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft } from "./servers.js"

const edges = fileURLToPath(new URL("./fixtures/edges-stdio.mjs", import.meta.url))

/** What the fixture wrote, as the error quotes it: its words, no control, in a JSON string. */
const quoted =
  'the end of the server\'s own output on stderr: "fatal: config not found\\n\\nsee the help page\\ncursor moved\\n8-bit CSI and a bell"'

const assertNoControl = (text: string): void => {
  for (const control of ["\x1b", "\x07", "\x9b", "\r"]) {
    assert.notInclude(text, control, JSON.stringify(text))
  }
}

describe("McpToolbox quotes a server's stderr as its own, with no terminal controls", () => {
  afterEach(assertNoChildLeft)

  it.live("in the error of a start that fails", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        McpToolbox.stdio({ command: process.execPath, args: [edges, "stderr"] }),
      )
      assert.strictEqual(error.reason._tag, "Transport")
      assertNoControl(error.message)
      assert.include(error.message, `; ${quoted}`)
    }),
  )

  it.live("in the failed result of a call during which the server exits", () =>
    Effect.gen(function* () {
      const toolbox = yield* McpToolbox.stdio({ command: process.execPath, args: [edges] })
      const result = yield* toolbox.call(ToolCall.make("c1", "die"))
      assert.isTrue(result.isError)
      assertNoControl(result.content)
      assert.match(result.content, /got no answer: the server process exited; /)
      assert.isTrue(result.content.endsWith(quoted), result.content)
    }),
  )
})
