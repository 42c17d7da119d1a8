import { assert, describe, it } from "@effect/vitest"
import { describeCases } from "@svir/conformance/vitest"
import { OpenAiCodec } from "../src/index.js"
import { casesFolder, loadCases } from "./support/cases.js"

// The kit feeds every streamed case at 1-byte, 3-byte and whole-input chunks (and the case's own
// chunks), in the case's mode and, with `expect_lenient`, in lenient mode; the options of our
// case files are this codec's options by name.
describeCases(
  "conformance (@svir/conformance runner)",
  (options) => OpenAiCodec.make(options as OpenAiCodec.Options),
  [casesFolder],
)

describe("conformance case files", () => {
  it("are at least 120, each saying why it matters", () => {
    const cases = loadCases()
    assert.isAtLeast(cases.length, 120)
    for (const c of cases) assert.isTrue((c.why ?? "").length > 0, c.name)
  })
})
