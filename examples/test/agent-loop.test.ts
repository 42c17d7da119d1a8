import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { vi } from "vitest"
import * as AgentLoop from "../src/agent-loop.js"
import type * as StreamedLoop from "../src/streamed-loop.js"

/** What was printed, piece by piece: `text` of the answer, or a `call` being written. */
const printed: Array<readonly ["text" | "call", string]> = []
const print: StreamedLoop.Printer = {
  text: (piece) => printed.push(["text", piece]),
  call: (piece) => printed.push(["call", piece]),
}
const joined = (kind: "text" | "call") =>
  printed.flatMap(([what, piece]) => (what === kind ? [piece] : [])).join("")

describe("the seeds' streamed loop with @svir/loop", () => {
  it.live("plays the scripted conversation: the calls answered, the answer printed", () =>
    Effect.gen(function* () {
      const notices = vi.spyOn(console, "error").mockImplementation(() => {})
      yield* Effect.addFinalizer(() => Effect.sync(() => notices.mockRestore()))
      const result = yield* AgentLoop.ask({ baseUrl: undefined, model: "scripted" }, print)
      assert.strictEqual(result.text, "Order 42 is shipped (checked at 2026-01-01T00:00:00Z).")
      assert.deepStrictEqual(result.stop, { _tag: "Answered" })
      assert.deepStrictEqual(
        result.steps[0]!.results.map((r) => r.content),
        ["order 42 is shipped", "2026-01-01T00:00:00Z"],
      )
      assert.strictEqual(joined("text"), result.text)
      assert.strictEqual(joined("call"), '\ncalling lookup {"id":42}\ncalling now {}')
      assert.strictEqual(notices.mock.calls.length, 1)
    }).pipe(Effect.scoped),
  )
})
