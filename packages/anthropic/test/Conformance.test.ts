import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Cli } from "@svir/conformance/node"
import { describeCases } from "@svir/conformance/vitest"
import { Console, Effect } from "effect"
import { AnthropicCodec } from "../src/index.js"

// The kit feeds every streamed case in strides of 1, 3 and 8192 bytes and whole, with LF and
// CRLF line ends, in the case's mode and in lenient mode; the recordings it reads are those of
// `test/recordings` (see its README).
describeCases(
  "conformance (@svir/conformance runner)",
  (options) => AnthropicCodec.make(options as AnthropicCodec.Options),
  [new URL("./cases", import.meta.url)],
  { root: new URL(".", import.meta.url).pathname },
)

describe("svir-conformance --codec anthropic", () => {
  it.effect("knows this codec by name and runs its cases", () =>
    Effect.gen(function* () {
      const make = yield* Cli.loadCodec("anthropic")
      assert.strictEqual(make({ mode: "strict" }).name, AnthropicCodec.make().name)
      const lines: Array<string> = []
      const quiet: Console.Console = {
        ...globalThis.console,
        log: (...parts) => lines.push(parts.join(" ")),
        error: (...parts) => lines.push(parts.join(" ")),
      }
      const cases = fileURLToPath(new URL("./cases", import.meta.url))
      const status = yield* Cli.main(["--codec", "anthropic", "--allow-outside", cases]).pipe(
        Effect.provideService(Console.Console, quiet),
      )
      assert.strictEqual(status, 0)
      assert.match(lines.at(-1) ?? "", /^[1-9]\d* passed, 0 failed$/)
    }),
  )
})
