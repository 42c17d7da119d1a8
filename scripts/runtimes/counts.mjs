// A vitest reporter that writes the run's counts to the file named by SVIR_COUNTS_FILE: tests
// passed, failed and skipped, a test file that could not load counted as one failure. suites.mjs
// reads it; the json reporter cannot be pointed elsewhere while the shared config names its file.
import { writeFileSync } from "node:fs"

export default class Counts {
  onTestRunEnd(testModules, unhandledErrors) {
    const counts = { passed: 0, failed: unhandledErrors.length, skipped: 0 }
    for (const testModule of testModules) {
      if (testModule.errors().length > 0) counts.failed += 1
      for (const test of testModule.children.allTests()) {
        const state = test.result().state
        if (state === "passed") counts.passed += 1
        else if (state === "failed") counts.failed += 1
        else counts.skipped += 1
      }
    }
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: set by suites.mjs for one run, not a turbo task
    writeFileSync(process.env.SVIR_COUNTS_FILE, JSON.stringify(counts))
  }
}
