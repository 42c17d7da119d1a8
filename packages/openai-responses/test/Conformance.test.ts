import { assert, describe, it } from "@effect/vitest"
import { Cli, Suites } from "@svir/conformance/node"
import { describeCases } from "@svir/conformance/vitest"
import { Console, Effect } from "effect"
import { ResponsesCodec } from "../src/index.js"

// The kit feeds every streamed case in strides of 1, 3 and 8192 bytes and whole, with LF and
// CRLF line ends, in the case's mode and in lenient mode. The cases of this wire ship with the
// kit, with the recordings they read (`cases/openai-responses/recordings`, see its README).
const suite = Suites.of("openai-responses")
describeCases(
  "conformance (@svir/conformance runner)",
  (options) => ResponsesCodec.make(options as ResponsesCodec.Options),
  suite.paths,
  { root: suite.root },
)

describe("svir-conformance --codec openai-responses", () => {
  it.effect("knows this codec by name and runs the shipped cases of its wire", () =>
    Effect.gen(function* () {
      const make = yield* Cli.loadCodec("openai-responses")
      assert.strictEqual(make({ mode: "strict" }).name, ResponsesCodec.make().name)
      const lines: Array<string> = []
      const quiet: Console.Console = {
        ...globalThis.console,
        log: (...parts) => lines.push(parts.join(" ")),
        error: (...parts) => lines.push(parts.join(" ")),
      }
      const status = yield* Cli.main(["--codec", "openai-responses"]).pipe(
        Effect.provideService(Console.Console, quiet),
      )
      assert.strictEqual(status, 0)
      assert.match(lines.at(-1) ?? "", /^[1-9]\d* passed, 0 failed$/)
    }),
  )
})
