import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  type Check,
  type ScenarioRun,
  scenarioOfResultDir,
  scenariosOfList,
  scenariosOfSuiteOutput,
  summarize,
} from "./summary.js"

const check = (id: string, status: string, errorMessage?: string): Check => ({
  id,
  status,
  description: `the check ${id}`,
  errorMessage,
})

const runs: ReadonlyArray<ScenarioRun> = [
  {
    scenario: "tools_call",
    checks: [check("incoming-request", "INFO"), check("tool-add-numbers", "SUCCESS")],
  },
  {
    scenario: "auth/scope-step-up",
    checks: [
      check("scope-step-up-initial", "WARNING"),
      check("scope-step-up-escalation", "FAILURE", "no second authorization request"),
    ],
  },
]

describe("summarize", () => {
  it("counts each scenario's checks, names each failure and fails the run on it", () => {
    const summary = summarize(runs, new Map())
    assert.deepStrictEqual(summary.lines, [
      "tools_call          1 passed, 0 failed, 0 warnings",
      "auth/scope-step-up  0 passed, 1 failed, 1 warnings",
      "    scope-step-up-escalation: no second authorization request",
      "total: 1 checks passed, 1 failed and 1 warnings in the 2 scenarios that apply; 0 not applicable, with 0 failed checks",
    ])
    assert.isTrue(summary.failed)
  })

  it("shows a scenario that does not apply with its reason, and its failures pass the run", () => {
    const summary = summarize(runs, new Map([["auth/scope-step-up", "no reason at all"]]))
    assert.strictEqual(
      summary.lines[1],
      "auth/scope-step-up  0 passed, 1 failed, 1 warnings  (not applicable: no reason at all)",
    )
    assert.strictEqual(
      summary.lines.at(-1),
      "total: 1 checks passed, 0 failed and 0 warnings in the 1 scenarios that apply; 1 not applicable, with 1 failed checks",
    )
    assert.isFalse(summary.failed)
  })

  it("passes a run whose only findings are warnings", () => {
    const warned = [
      { scenario: "sse-retry", checks: [check("client-sse-retry-timing", "WARNING")] },
    ]
    assert.isFalse(summarize(warned, new Map()).failed)
  })

  it("fails the run when a scenario left no checks", () => {
    const summary = summarize([{ scenario: "initialize", checks: undefined }], new Map())
    assert.strictEqual(
      summary.lines[0],
      "initialize  no checks: the suite could not run the scenario",
    )
    assert.isTrue(summary.failed)
  })
})

describe("scenarioOfResultDir", () => {
  it("takes off the time the suite adds to a scenario's folder", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9_-]+(\/[a-z0-9_-]+)?$/),
        fc.date({ min: new Date(0), max: new Date(253_402_300_799_000), noInvalidDate: true }),
        (scenario, date) => {
          // How the suite names the folder (createResultDir in src/runner/utils.ts of 0.1.16).
          const folder = `${scenario}-${date.toISOString().replace(/[:.]/g, "-")}`
          assert.strictEqual(scenarioOfResultDir(folder), scenario)
        },
      ),
    )
  })
})

describe("scenariosOfSuiteOutput", () => {
  it("reads the scenarios from the suite's summary", () => {
    // The end of a run of `conformance client --suite core` (0.1.16).
    const stdout = [
      "Running core suite (18 scenarios) in parallel...",
      "",
      "=== SUITE SUMMARY ===",
      "",
      "✓ initialize: 1 passed, 0 failed",
      "✗ elicitation-sep1034-client-defaults: 0 passed, 6 failed",
      "✗ auth/scope-step-up: 0 passed, 2 failed, 1 warnings",
      "",
      "Total: 1 passed, 8 failed, 1 warnings",
    ].join("\n")
    assert.deepStrictEqual(scenariosOfSuiteOutput(stdout), [
      "initialize",
      "elicitation-sep1034-client-defaults",
      "auth/scope-step-up",
    ])
  })
})

describe("scenariosOfList", () => {
  it("reads the scenarios from the suite's list of client scenarios", () => {
    // The start of `conformance list --client` (0.2.0-alpha.12).
    const stdout = [
      "Client scenarios (test against a client):",
      "  - initialize [2025-06-18,2025-11-25]",
      "  - auth/metadata-default [2025-11-25,2026-07-28]",
      "  - auth/dpop [extension]",
      "",
    ].join("\n")
    assert.deepStrictEqual(scenariosOfList(stdout), [
      "initialize",
      "auth/metadata-default",
      "auth/dpop",
    ])
  })
})
