import { assert, describe, it } from "@effect/vitest"
import { SvirError } from "@svir/core"
import { failedOutcome } from "../src/internal/outcome.js"

/** The marker another installed copy of `@svir/core` puts on its errors. */
const marker: unique symbol = Symbol.for("@svir/core/SvirError")

/** An error as another copy of `@svir/core` makes it: another class, the same marker. */
class ForeignSvirError extends Error {
  readonly [marker] = marker
  readonly _tag = "SvirError"
  constructor(
    readonly reason: { readonly _tag: string },
    message: string,
  ) {
    super(message)
  }
}

describe("failedOutcome", () => {
  it("reads an error of this copy and of another copy of @svir/core by its marker", () => {
    const own = failedOutcome(SvirError.make("TruncatedStream", "cut\nshort"), true)
    assert.deepStrictEqual(own, {
      _tag: "Failed",
      kind: "truncated_stream",
      message: "cut short",
      serverMessage: undefined,
      released: true,
      partial: { text: "", reasoning: "" },
    })
    const foreign = failedOutcome(new ForeignSvirError({ _tag: "Protocol" }, "bad"), false)
    assert.deepStrictEqual(foreign, {
      _tag: "Failed",
      kind: "protocol",
      message: "bad",
      serverMessage: undefined,
      released: false,
      partial: { text: "", reasoning: "" },
    })
  })

  it("does not take a look-alike, or a kind this copy does not know, for a SvirError", () => {
    const lookalike = { _tag: "SvirError", reason: { _tag: "Protocol" }, message: "bad" }
    assert.strictEqual(failedOutcome(lookalike, false)._tag, "Broken")
    const newer = new ForeignSvirError({ _tag: "Teapot" }, "short and stout")
    assert.strictEqual(failedOutcome(newer, false)._tag, "Broken")
  })
})
