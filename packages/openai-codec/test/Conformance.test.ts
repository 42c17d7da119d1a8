import { assert, describe, it } from "@effect/vitest"
import { Cli } from "@svir/conformance/node"
import { describeCases } from "@svir/conformance/vitest"
import { Console, Effect } from "effect"
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

describe("svir-conformance", () => {
  it.effect("runs the shipped Chat Completions cases against this codec by default", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const quiet: Console.Console = {
        ...globalThis.console,
        log: (...parts) => lines.push(parts.join(" ")),
        error: (...parts) => lines.push(parts.join(" ")),
      }
      const status = yield* Cli.main([]).pipe(Effect.provideService(Console.Console, quiet))
      assert.strictEqual(status, 0, lines.join("\n"))
      // The encoder cases whose attachment is a file on disk are run by @svir/client's tests.
      assert.match(lines.at(-1) ?? "", /^[1-9]\d{3,} passed, 0 failed, \d+ not run$/)
    }),
  )
})
