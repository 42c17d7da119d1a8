/**
 * For the tests that need PostgreSQL (packages/workflow): a throwaway server on 127.0.0.1, started
 * by `scripts/postgres.sh` when the environment does not name one.
 */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const script = fileURLToPath(new URL("../scripts/postgres.sh", import.meta.url))

/** The server's URL: `SVIR_PG_URL`, or else what `scripts/postgres.sh` prints as it starts one. */
export const postgresUrl = (): string => {
  const named = process.env.SVIR_PG_URL
  if (named !== undefined && named !== "") return named
  const url = execFileSync("bash", [script], { encoding: "utf8" }).trim()
  process.env.SVIR_PG_URL = url
  return url
}
