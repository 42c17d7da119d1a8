/**
 * Conformance cases as vitest tests: one `it` per case, mode and chunking, each failing with the
 * diff of expected and actual. Needs `vitest` (an optional peer dependency of this package).
 *
 * @since 0.1.0
 */
import { Effect, Result } from "effect"
import { describe, it } from "vitest"
import * as Case from "./Case.js"
import * as Runner from "./Runner.js"

/**
 * Registers a `describe` block named `name` holding one test per case, mode and chunking. The
 * cases are read when the test file is collected; a missing or malformed case file becomes a
 * failing test that names the file and what is wrong.
 *
 * @example
 * ```ts
 * // test/conformance.test.ts
 * import { describeCases } from "@svir/conformance/vitest"
 * import { OpenAiCodec } from "@svir/openai-codec"
 *
 * describeCases("chat completions", OpenAiCodec.make, [new URL("./cases", import.meta.url)])
 * ```
 *
 * @since 0.1.0
 * @category testing
 */
export const describeCases = (
  name: string,
  makeCodec: Runner.MakeCodec,
  sources: ReadonlyArray<Case.Source>,
  options: Runner.RunOptions = {},
): void => {
  describe(name, () => {
    const loaded = Effect.runSync(Effect.result(Case.load(sources)))
    if (Result.isFailure(loaded)) {
      const error = loaded.failure
      it(`malformed case file ${error.source}`, () => {
        throw new Error(`${error.source}: ${error.message}`)
      })
      return
    }
    for (const one of loaded.success) {
      const checks = Runner.checks(one.case, options)
      // Every check of a case comes from one run, made the first time one of its tests asks.
      let results: Promise<ReadonlyArray<Runner.Result>> | undefined
      const resultsOfCase = () => {
        results ??= Effect.runPromise(Runner.runCase(makeCodec, one, options))
        return results
      }
      checks.forEach((check, i) => {
        it(`${one.case.name} [${check.mode}, ${check.chunking}]`, async () => {
          const result = (await resultsOfCase())[i]
          if (result === undefined || !result.passed) {
            throw new Error(
              result === undefined ? "no result for this check" : Runner.formatFailure(result),
            )
          }
        })
      })
    }
  })
}
