import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { ToolResult } from "../src/index.js"

describe("ToolResult", () => {
  it("keeps a failed result's message exactly as given", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (id, message) => {
        const result = ToolResult.error(id, message)
        assert.deepStrictEqual(result, { callId: id, content: message, isError: true })
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
})
