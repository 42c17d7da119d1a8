import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { ToolResult } from "../src/index.js"

describe("ToolResult", () => {
  it("keeps a failed result's message exactly as given", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (id, message) => {
        const result = ToolResult.error(id, message)
        assert.deepStrictEqual(result, {
          callId: id,
          content: message,
          isError: true,
          failure: "handler_failed",
        })
      }),
    )
  })

  it("marks a successful result as not failed", () => {
    assert.deepStrictEqual(ToolResult.make("c1", "done"), {
      callId: "c1",
      content: "done",
      isError: false,
    })
  })

  it("names the tools that exist when a name is unknown", () => {
    const result = ToolResult.unknownTool("c1", "weathr", ["weather", "now"])
    assert.isTrue(result.isError)
    assert.strictEqual(result.content, "no tool named weathr; the tools are: weather, now")
    assert.strictEqual(
      ToolResult.unknownTool("c2", "x", []).content,
      "no tool named x; there are no tools",
    )
  })

  it("says why a call failed, and failedFor reads it", () => {
    const kinds: ReadonlyArray<ToolResult.Failure> = [
      "unknown_tool",
      "invalid_arguments",
      "denied",
      "timed_out",
      "interrupted",
      "handler_failed",
      "server_refused",
    ]
    for (const kind of kinds) {
      const result = ToolResult.error("c", "no", kind)
      assert.strictEqual(result.failure, kind)
      assert.isTrue(ToolResult.failedFor(result, [kind]))
      assert.isFalse(
        ToolResult.failedFor(
          result,
          kinds.filter((other) => other !== kind),
        ),
      )
    }
    assert.strictEqual(ToolResult.unknownTool("c", "x", []).failure, "unknown_tool")
    // A result written by hand without a kind, as 0.1 wrote them, failed in its handler.
    assert.isTrue(
      ToolResult.failedFor({ callId: "c", content: "no", isError: true }, ["handler_failed"]),
    )
    assert.isFalse(ToolResult.failedFor(ToolResult.make("c", "yes"), kinds))
  })
})
