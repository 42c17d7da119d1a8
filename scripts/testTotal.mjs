// Totals the counts that every suite of `npm test` wrote to `.vitest/results.json`.
import { existsSync, readdirSync, readFileSync } from "node:fs"

const suites = [...readdirSync("packages").map((name) => `packages/${name}`), "examples"]
let passed = 0
let failed = 0
const missing = []
for (const suite of suites) {
  const file = `${suite}/.vitest/results.json`
  if (!existsSync(`${suite}/package.json`)) continue
  if (!existsSync(file)) {
    missing.push(suite)
    continue
  }
  const results = JSON.parse(readFileSync(file, "utf8"))
  passed += results.numPassedTests
  failed += results.numFailedTests
}
const notRun = missing.length === 0 ? "" : ` (no results from ${missing.join(", ")})`
console.log(`${passed} passed, ${failed} failed${notRun}`)
