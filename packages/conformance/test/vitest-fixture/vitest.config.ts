import { defineConfig } from "vitest/config"
import shared from "../../../../vitest.shared.js"

// The reporters are left to the command line, so the report is written where the parent asks.
const { reporters: _, ...test } = shared.test ?? {}

/** Runs the helper's own suites in a child vitest, whose failures the parent test reads. */
export default defineConfig({ ...shared, test: { ...test, include: ["*.check.ts"] } })
