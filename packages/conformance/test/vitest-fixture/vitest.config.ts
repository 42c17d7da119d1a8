import { mergeConfig } from "vitest/config"
import shared from "../../../../vitest.shared.js"

/** Runs the helper's own suites in a child vitest, whose failures the parent test reads. */
export default mergeConfig(shared, { test: { include: ["*.check.ts"] } })
