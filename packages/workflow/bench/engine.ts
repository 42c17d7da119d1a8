/**
 * What the benchmarks run on: a throwaway PostgreSQL database per measurement, and Effect's
 * cluster workflow engine on it (the set-up of test/cluster.ts, D6), with a counter of the SQL
 * statements it sends.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Statement from "effect/sql/Statement"
import { engine as cluster } from "../test/cluster.js"

/** Statements sent, by their first words (`SELECT ... FROM cluster_messages`, ...). */
export const statements = new Map<string, number>()

export const statementCount = (): number => {
  let total = 0
  for (const count of statements.values()) total += count
  return total
}

/** What a statement does, in a few words: its verb and the first table it names. */
const kindOf = (sql: string): string => {
  const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? "?"
  const table = /\b(?:FROM|INTO|UPDATE)\s+"?(\w+)"?/i.exec(sql)?.[1] ?? ""
  return `${verb} ${table}`.trim()
}

const counting: Statement.Transformer = (statement) =>
  Effect.sync(() => {
    const kind = kindOf(statement.compile()[0])
    statements.set(kind, (statements.get(kind) ?? 0) + 1)
    return statement
  })

/**
 * Effect's cluster workflow engine on PostgreSQL as the tests build it (test/cluster.ts), with
 * every statement going through the counter: a runner at `port`, or a client that runs nothing
 * (`port` undefined). The shard locks are at Effect's defaults (refreshed every 10 s, expired
 * after 35 s), since the tests' quick 1 s and 4 s lost shards under bench load.
 */
export const engine = (url: string, port: number | undefined) =>
  cluster(url, port, { shardLockRefresh: "10 seconds", shardLockExpiration: "35 seconds" }).pipe(
    Layer.provide(Layer.succeed(Statement.CurrentTransformer, counting)),
  )

/** Runs `effect` with a new database on the server of `url`, dropped afterwards; gives its URL. */
export const withDatabase = <A, E, R>(
  url: string,
  name: string,
  use: (url: string) => Effect.Effect<A, E, R>,
): Effect.Effect<A, E | unknown, R> => {
  const database = `svir_bench_${name}_${process.pid}_${Date.now()}`
  const admin = (sql: string) =>
    Effect.gen(function* () {
      const client = yield* SqlClient.SqlClient
      yield* client.unsafe(sql).unprepared
    }).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.scoped,
    )
  const there = new URL(url)
  there.pathname = `/${database}`
  return Effect.acquireUseRelease(
    admin(`CREATE DATABASE ${database}`),
    () => use(there.toString()),
    () => Effect.ignore(admin(`DROP DATABASE ${database} WITH (FORCE)`)),
  )
}
