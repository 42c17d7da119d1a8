/**
 * Runs the official MCP conformance suite's client scenarios against `client.ts` and prints, per
 * scenario, the checks passed and failed, and a total; exits 1 when a scenario that applies has a
 * failed check (DECISIONS.md D30, D31). `npm run conformance:mcp` at the root runs it, and CI too.
 */
import { spawn } from "node:child_process"
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import {
  type Check,
  type ScenarioRun,
  scenarioOfResultDir,
  scenariosOfList,
  scenariosOfSuiteOutput,
  summarize,
} from "./summary.js"

/** The suite, pinned; it runs on Node 24 through npx, not from the lockfile (D30, D51). */
const suitePackage = "@modelcontextprotocol/conformance@0.2.0-alpha.12"
/** Run together, in parallel: every scenario of the suite's auth suite. */
const parallelSuite = "auth"
const clientTimeoutMillis = 20_000

/**
 * Scenarios of extensions svir does not offer, with the reason (D31, D51). Their checks are
 * shown, and their failures do not fail the run.
 */
const notApplicable: ReadonlyMap<string, string> = new Map([
  [
    "auth/enterprise-managed-authorization",
    "the enterprise identity provider's token exchange, an extension svir does not offer",
  ],
  ["auth/wif-jwt-bearer", "workload identity federation, an extension svir does not offer"],
  ["sep-2640-client-no-prefetch", "skills (SEP-2640), an extension svir does not offer"],
  ["sep-2640-client-verify-digest", "skills (SEP-2640), an extension svir does not offer"],
  ["sep-2640-client-verify-size", "skills (SEP-2640), an extension svir does not offer"],
  ["sep-2640-client-verify-frontmatter", "skills (SEP-2640), an extension svir does not offer"],
])

const shellQuoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

// The suite splits the command at spaces and hands it to a shell, which undoes the quoting.
const clientCommand = [
  "node",
  shellQuoted(fileURLToPath(import.meta.resolve("tsx/cli"))),
  "--conditions=@svir/source",
  shellQuoted(fileURLToPath(new URL("./client.ts", import.meta.url))),
].join(" ")

/** Runs the suite's CLI with `args`: `client ...` or `list --client`. */
const runCli = (args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly log: string }>(
    (resolve, reject) => {
      const child = spawn(
        "npx",
        ["-y", "-p", "node@24", "-p", suitePackage, "conformance", ...args],
        { stdio: ["ignore", "pipe", "pipe"] },
      )
      let stdout = ""
      let log = ""
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk
        log += chunk
      })
      child.stderr.on("data", (chunk: Buffer) => {
        log += chunk
      })
      child.on("error", reject)
      child.on("close", (code) => resolve({ code, stdout, log }))
    },
  )

/** The checks of each scenario, from the `checks.json` of each result folder. */
const readChecks = async (
  outputDir: string,
): Promise<ReadonlyMap<string, ReadonlyArray<Check>>> => {
  const entries = await readdir(outputDir, { recursive: true })
  const files = entries.filter((entry) => entry.endsWith("checks.json"))
  const checks = await Promise.all(
    files.map(
      async (file): Promise<readonly [string, ReadonlyArray<Check>]> => [
        scenarioOfResultDir(relative(outputDir, dirname(join(outputDir, file)))),
        JSON.parse(await readFile(join(outputDir, file), "utf8")),
      ],
    ),
  )
  return new Map(checks)
}

/** Runs the client on `which` (`--suite <name>` or `--scenario <name>`). */
const runClient = (outputDir: string, which: ReadonlyArray<string>) =>
  runCli([
    "client",
    "--command",
    clientCommand,
    ...which,
    "--timeout",
    String(clientTimeoutMillis),
    "--output-dir",
    outputDir,
  ])

const outputDir = await mkdtemp(join(tmpdir(), "svir-mcp-conformance-"))
const listed = scenariosOfList((await runCli(["list", "--client"])).stdout)
const suiteRun = await runClient(outputDir, ["--suite", parallelSuite])
let log = suiteRun.log
const suiteScenarios = scenariosOfSuiteOutput(suiteRun.stdout)
if (suiteScenarios.length === 0 || listed.length === 0) {
  console.error(`the conformance suite did not run (exit ${suiteRun.code}); its output:\n${log}`)
  process.exit(1)
}
// Every other client scenario, one at a time, so that the reconnection sse-retry times is the
// client's, not that of a machine busy with other clients starting (D31).
const singleScenarios = listed.filter((scenario) => !suiteScenarios.includes(scenario))
for (const scenario of singleScenarios) {
  log += (await runClient(outputDir, ["--scenario", scenario])).log
}
await writeFile(join(outputDir, "suite.log"), log)
const checks = await readChecks(outputDir)
const runs = [...singleScenarios, ...suiteScenarios].map(
  (scenario): ScenarioRun => ({ scenario, checks: checks.get(scenario) }),
)
const summary = summarize(runs, notApplicable)
console.log(`MCP conformance suite ${suitePackage} on Node 24, against test/conformance/client.ts`)
for (const line of summary.lines) console.log(line)
if (summary.failed) {
  console.log(`the suite's results and output are kept in ${outputDir}`)
  process.exitCode = 1
} else {
  await rm(outputDir, { recursive: true, force: true })
}
