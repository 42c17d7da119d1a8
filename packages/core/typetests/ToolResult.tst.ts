import { ToolResult } from "@svir/core"
import { describe, expect, test } from "tstyche"

describe("ToolResult.Failure", () => {
  test("is exactly the seven kinds of failure", () => {
    expect<ToolResult.Failure>().type.toBe<
      | "unknown_tool"
      | "invalid_arguments"
      | "denied"
      | "timed_out"
      | "interrupted"
      | "handler_failed"
      | "server_refused"
    >()
  })

  test("a result's failure may be missing", () => {
    expect<ToolResult.ToolResult["failure"]>().type.toBe<ToolResult.Failure | undefined>()
  })

  test("a failed result is made with one of the kinds, and no other", () => {
    expect(
      ToolResult.error("call_1", "no such file", "handler_failed"),
    ).type.toBe<ToolResult.ToolResult>()
    expect(ToolResult.error("call_1", "no such file", "not_found")).type.toRaiseError(
      `Argument of type '"not_found"' is not assignable to parameter of type 'Failure`,
    )
  })

  test("failedFor takes the kinds, and no other", () => {
    expect(ToolResult.failedFor).type.toBeCallableWith(ToolResult.make("call_1", "ok"), [
      "invalid_arguments",
      "unknown_tool",
    ])
    expect(ToolResult.failedFor).type.not.toBeCallableWith(ToolResult.make("call_1", "ok"), [
      "invalid_argument",
    ])
  })
})
