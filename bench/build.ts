/**
 * Builds the packages (`turbo run build`, cached when nothing changed), so that the root
 * benchmarks measure the `dist` a user installs.
 */
import { execFileSync } from "node:child_process"
import path from "node:path"
import { fileURLToPath } from "node:url"

/** The repository's root folder. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

/** Runs `turbo run build` at the root; its errors, if any, go to stderr. */
export const buildPackages = (): void => {
  execFileSync(
    path.join(root, "node_modules/.bin/turbo"),
    ["run", "build", "--output-logs=errors-only"],
    {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" },
    },
  )
}
