// Runs every package's build, types, lint and tests with turbo (whose output shows only what
// failed), prints a line as each suite finishes, from the `.vitest/results.json` it writes, and
// ends with the total. Exits with turbo's status.
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"

const suites = [...readdirSync("packages").map((name) => `packages/${name}`), "examples"].filter(
  (suite) => existsSync(`${suite}/package.json`),
)
const started = Date.now()
const finished = new Map()

const elapsed = () => {
  const seconds = Math.round((Date.now() - started) / 1000)
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}

const look = () => {
  for (const suite of suites) {
    const file = `${suite}/.vitest/results.json`
    if (finished.has(suite) || !existsSync(file)) continue
    let results
    try {
      results = JSON.parse(readFileSync(file, "utf8"))
    } catch {
      continue // still being written
    }
    finished.set(suite, results)
    const failed = results.numFailedTests === 0 ? "" : `, ${results.numFailedTests} failed`
    console.log(`  ${suite}: ${results.numPassedTests} passed${failed} (at ${elapsed()})`)
  }
}

const turbo = spawn(
  "npx",
  [
    "turbo",
    "run",
    "build",
    "typecheck",
    "lint",
    "test",
    "--concurrency=2",
    "--output-logs=errors-only",
  ],
  { stdio: "inherit" },
)
const timer = setInterval(look, 1000)
turbo.on("exit", (code) => {
  clearInterval(timer)
  look()
  const all = [...finished.values()]
  const passed = all.reduce((sum, results) => sum + results.numPassedTests, 0)
  const failed = all.reduce((sum, results) => sum + results.numFailedTests, 0)
  const missing = suites.filter((suite) => !finished.has(suite))
  const notRun = missing.length === 0 ? "" : ` (no results from ${missing.join(", ")})`
  console.log(`${passed} passed, ${failed} failed${notRun}, in ${elapsed()}`)
  process.exit(code ?? 1)
})
