import { defineConfig } from "vitest/config"

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
