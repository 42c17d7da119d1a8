import { defineConfig } from "vitest/config"

/** Runs every package's suite in one process tree (used for the Node 24 run). */
export default defineConfig({
  test: { projects: ["packages/*", "examples"] },
})
