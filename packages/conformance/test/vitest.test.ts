import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Runner } from "../src/index.js"
import { CaseFiles } from "../src/node.js"
import { describeCases } from "../src/vitest.js"
import * as ToyCodec from "./toy/ToyCodec.js"

const pass = fileURLToPath(new URL("./cases/pass", import.meta.url))

// The helper used as a codec author would: every check of the passing cases is one test here.
describeCases("toy codec", ToyCodec.make, [pass])

interface JsonReport {
  readonly testResults: ReadonlyArray<{
    readonly assertionResults: ReadonlyArray<{
      readonly fullName: string
      readonly status: string
      readonly failureMessages: ReadonlyArray<string>
    }>
  }>
}

describe("describeCases", () => {
  it.effect("registers one test per check, named by case, mode, line ending and chunking", () =>
    Effect.gen(function* () {
      const report = yield* CaseFiles.run(ToyCodec.make, [pass])
      const names = new Set(report.results.map((r) => `${r.case} [${Runner.label(r)}]`))
      assert.strictEqual(names.size, report.results.length)
    }),
  )

  it("fails a test per failed check with the diff, a malformed file with its path, and skips what cannot run", () => {
    const out = mkdtempSync(join(tmpdir(), "svir-vitest-"))
    try {
      const vitest = join(
        createRequire(import.meta.url).resolve("vitest/package.json"),
        "../vitest.mjs",
      )
      const file = join(out, "report.json")
      spawnSync(process.execPath, [vitest, "run", "--reporter=json", `--outputFile=${file}`], {
        cwd: fileURLToPath(new URL("./vitest-fixture", import.meta.url)),
        encoding: "utf8",
      })
      const report: JsonReport = JSON.parse(readFileSync(file, "utf8"))
      const tests = report.testResults.flatMap((suite) => suite.assertionResults)
      const byName = new Map(tests.map((test) => [test.fullName, test]))
      const wrong = byName.get("failing wrong-text [strict, 3-byte]")
      assert.strictEqual(wrong?.status, "failed")
      assert.include(wrong?.failureMessages[0], 'text: expected "Hallo", actual "Hello"')
      assert.strictEqual(byName.get("failing chunk-dependent [strict, whole]")?.status, "passed")
      assert.strictEqual(
        byName.get("failing chunk-dependent [strict, agreement]")?.status,
        "failed",
      )
      const malformed = tests.find((test) =>
        test.fullName.startsWith("malformed malformed case file"),
      )
      assert.strictEqual(malformed?.status, "failed")
      assert.include(malformed?.fullName, "unknown-key.json")
      assert.include(malformed?.failureMessages[0], '["finsh"]')
      const onDisk = byName.get("on disk encode-declared-size [strict, encode]")
      assert.strictEqual(onDisk?.status, "skipped")
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  })
})
