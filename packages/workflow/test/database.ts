/**
 * A PostgreSQL database of its own for one test file, so that runs of the file (and other files)
 * share no rows: created on the server of `postgresUrl()`, dropped with the scope.
 */
import { randomBytes } from "node:crypto"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { postgresUrl } from "../../../test/postgres.js"

/** Runs `use` with a client of the database at `url`, closed after. */
export const withClient = <A>(
  url: string,
  use: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>,
) =>
  Effect.gen(function* () {
    const sql = yield* PgClient.PgClient
    return yield* use(sql)
  }).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
    Effect.orDie,
  )

/** The URL of `database` on the server of `server`. */
const urlOf = (server: string, database: string): string => {
  const url = new URL(server)
  url.pathname = `/${database}`
  return url.toString()
}

/** Creates `<prefix>_<random>` and gives its URL; drops it (with whoever is connected) after. */
export const fresh = (prefix: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const server = postgresUrl()
      const name = `${prefix}_${randomBytes(6).toString("hex")}`
      yield* withClient(server, (sql) => sql.unsafe(`CREATE DATABASE ${name}`))
      return { name, server, url: urlOf(server, name) }
    }),
    ({ name, server }) =>
      withClient(server, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  )

/** An identifier as SQL quotes it. */
const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`

/** Where a needle was found: the table, the column and the needle. */
export interface Found {
  readonly table: string
  readonly column: string
  readonly needle: string
}

/**
 * Reads every column of every table of the public schema as text and looks for each needle;
 * gives how many rows it read per table, and where any needle was found.
 */
export const scan = (url: string, needles: ReadonlyArray<string>) =>
  withClient(url, (sql) =>
    Effect.gen(function* () {
      const columns = yield* sql<{ table_name: string; column_name: string }>`
        SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`
      const tables = new Map<string, Array<string>>()
      for (const { table_name, column_name } of columns) {
        tables.set(table_name, [...(tables.get(table_name) ?? []), column_name])
      }
      const rows: Record<string, number> = {}
      const found: Array<Found> = []
      for (const [table, names] of tables) {
        const selected = names.map((name, i) => `${quoted(name)}::text AS c${i}`).join(", ")
        const read = yield* sql.unsafe<Record<string, string | null>>(
          `SELECT ${selected} FROM ${quoted(table)}`,
        )
        rows[table] = read.length
        for (const row of read) {
          names.forEach((column, i) => {
            const text = row[`c${i}`]
            for (const needle of needles) {
              if (text?.includes(needle)) found.push({ table, column, needle })
            }
          })
        }
      }
      return { rows, found }
    }),
  )
