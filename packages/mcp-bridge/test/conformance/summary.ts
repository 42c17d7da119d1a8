/**
 * What a run of the MCP conformance suite's client scenarios comes to: checks passed, failed and
 * warned per scenario, a total, and whether the run fails (DECISIONS.md D31). Pure, so the rules
 * are tested apart from the suite.
 */

/** One check of a scenario, as the suite writes it to `checks.json`. */
export interface Check {
  readonly id: string
  readonly status: string
  readonly description: string
  readonly errorMessage?: string | undefined
}

/** A scenario the suite ran; `checks` is undefined when it left no `checks.json`. */
export interface ScenarioRun {
  readonly scenario: string
  readonly checks: ReadonlyArray<Check> | undefined
}

export interface Summary {
  readonly lines: ReadonlyArray<string>
  /** A check failed in a scenario that applies, or a scenario left no checks. */
  readonly failed: boolean
}

const count = (checks: ReadonlyArray<Check>, status: string) =>
  checks.filter((check) => check.status === status).length

/**
 * One line per scenario with its counts, each failed check under it, then the total. A scenario
 * listed in `notApplicable` is counted and shown with its reason, and its failures do not fail
 * the run; warnings (the suite's SHOULDs) are shown and never fail it.
 */
export const summarize = (
  runs: ReadonlyArray<ScenarioRun>,
  notApplicable: ReadonlyMap<string, string>,
): Summary => {
  const lines: Array<string> = []
  // The checks of scenarios that apply, and apart from them those that do not, so that the total
  // says what the run is judged on.
  const total = { scenarios: 0, passed: 0, failed: 0, warnings: 0 }
  const aside = { scenarios: 0, failed: 0 }
  let failed = false
  const width = Math.max(0, ...runs.map((run) => run.scenario.length))
  for (const { scenario, checks } of runs) {
    const reason = notApplicable.get(scenario)
    if (reason === undefined) total.scenarios += 1
    else aside.scenarios += 1
    const name = scenario.padEnd(width)
    if (checks === undefined) {
      lines.push(`${name}  no checks: the suite could not run the scenario`)
      failed ||= reason === undefined
      continue
    }
    const passed = count(checks, "SUCCESS")
    const failures = checks.filter((check) => check.status === "FAILURE")
    const warnings = count(checks, "WARNING")
    if (reason === undefined) {
      total.passed += passed
      total.failed += failures.length
      total.warnings += warnings
    } else {
      aside.failed += failures.length
    }
    const note = reason === undefined ? "" : `  (not applicable: ${reason})`
    lines.push(`${name}  ${passed} passed, ${failures.length} failed, ${warnings} warnings${note}`)
    for (const check of failures) {
      lines.push(`    ${check.id}: ${check.errorMessage ?? check.description}`)
    }
    failed ||= failures.length > 0 && reason === undefined
  }
  lines.push(
    `total: ${total.passed} checks passed, ${total.failed} failed and ${total.warnings} warnings in the ${total.scenarios} scenarios that apply; ${aside.scenarios} not applicable, with ${aside.failed} failed checks`,
  )
  return { lines, failed }
}

const resultDirSuffix = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/

/**
 * The scenario of a result folder the suite wrote, given relative to its output folder:
 * `auth/metadata-default-2026-12-01T08-14-36-899Z` is `auth/metadata-default`.
 */
export const scenarioOfResultDir = (relativeDir: string): string =>
  relativeDir.replace(resultDirSuffix, "")

const summaryLine = /^[✓✗] (\S+): \d+ passed, \d+ failed/u

/** The scenarios the suite says it ran, from the lines of its `=== SUITE SUMMARY ===`. */
export const scenariosOfSuiteOutput = (stdout: string): ReadonlyArray<string> =>
  stdout.split("\n").flatMap((line) => {
    const scenario = summaryLine.exec(line.trim())?.[1]
    return scenario === undefined ? [] : [scenario]
  })

const listLine = /^- (\S+) \[/u

/** The scenarios of the suite's `list --client`, from its lines `  - <name> [<revisions>]`. */
export const scenariosOfList = (stdout: string): ReadonlyArray<string> =>
  stdout.split("\n").flatMap((line) => {
    const scenario = listLine.exec(line.trim())?.[1]
    return scenario === undefined ? [] : [scenario]
  })
