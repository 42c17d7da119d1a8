import { existsSync } from "node:fs"
import { join } from "node:path"
import { defineConfig } from "vitest/config"

// The libraries the tests compare against are linked by `npm install` (DECISIONS.md 10), and
// `npm install <name>` unlinks them: say so, rather than fail on an import of "openai".
if (!existsSync(join(import.meta.dirname, "node_modules", "openai"))) {
  throw new Error(
    "the peers are not linked into node_modules: run `npm run peers` (DECISIONS.md 10)",
  )
}

/**
 * Tests import sibling packages from their sources through the `@svir/source` condition. Each
 * suite also writes its counts to `.vitest/results.json`, which `npm test` totals at the end.
 */
export default defineConfig({
  resolve: { conditions: ["@svir/source"] },
  ssr: { resolve: { conditions: ["@svir/source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ["default", ["json", { outputFile: ".vitest/results.json" }]],
  },
})
