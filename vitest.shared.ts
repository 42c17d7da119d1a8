import { defineConfig } from "vitest/config"

/** Tests import sibling packages from their sources through the `@svir/source` condition. */
export default defineConfig({
  resolve: { conditions: ["@svir/source"] },
  ssr: { resolve: { conditions: ["@svir/source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
