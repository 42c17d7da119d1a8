/**
 * Conformance cases as vitest tests: one `it` per check (a decoder case's mode, line ending and
 * chunking; an encoder case's one check), each failing with the diff of expected and actual.
 * Needs `vitest` (an optional peer dependency of this package).
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { describe, it } from "vitest"
import * as CaseFiles from "./CaseFiles.js"
import * as Runner from "./Runner.js"

/**
 * Registers a `describe` block named `name` holding one test per check of every case. The cases
 * are read when the test file is collected; a missing or malformed case file becomes a failing
 * test that names the file and what is wrong. `options` are the runner's and where recordings
 * may be read from (`CaseFiles.ReadOptions`). A check that is not run (an encoder case whose
 * attachment is a file on disk, without `options.attachments`) is a skipped test that says why.
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
 * @since 0.2.0
 * @category testing
 */
export const describeCases = (
  name: string,
  makeCodec: Runner.MakeCodec,
  sources: ReadonlyArray<CaseFiles.Source>,
  options: Runner.RunOptions & CaseFiles.ReadOptions = {},
): void => {
  describe(name, () => {
    const loaded = Effect.runSync(Effect.result(CaseFiles.load(sources, options)))
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
        it(`${one.case.name} [${Runner.label(check)}]`, async (context) => {
          const result = (await resultsOfCase())[i]
          // A check that could not run here (an attachment on disk, no resolver) is skipped, saying why.
          if (result?.notRun !== undefined) return context.skip(result.notRun)
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
