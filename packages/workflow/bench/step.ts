/**
 * The cost of one durable step: the same run of `STEPS` steps (one call of `lookup` each, then
 * text, from the in-process model of bench/model.ts) through `Loop.run`, through the durable loop
 * on `WorkflowEngine.layerMemory`, and through the durable loop on Effect's cluster engine with
 * PostgreSQL (a new database for this run of the bench, dropped at the end; the runner in this
 * process). Rounds interleave the three, the order turning each round; the figure is wall time
 * per step, median of the rounds, with p10 and p90. Goal: the cluster costs under 5 ms per step
 * more than `Loop.run`.
 *
 * Then where the time goes on the cluster: the statements the engine sent per step (counted by a
 * `Statement.CurrentTransformer`, so BEGIN and COMMIT of a transaction are not in it), the
 * statements an idle runner sends per second (its polls), this process's CPU per step, one
 * `SELECT 1` round trip, and, in a second pass of the cluster alone, PostgreSQL's own account of
 * the time it spent executing statements (`pg_stat_database.active_time`) and the transactions.
 * Effect's cluster runs its statements with the tracer off, so a tracer cannot time them here.
 *
 * Run: `npm run bench` in this package (needs `scripts/postgres.sh`, which it calls).
 */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { PgClient } from "@effect/sql-pg"
import { Loop } from "@svir/loop"
import { Context, Effect, Layer, Redacted, References } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import { DurableLoop } from "../src/index.js"
import { engine, statementCount, statements, withDatabase } from "./engine.js"
import { model, question, tools } from "./model.js"

const calls = 20
const steps = calls + 1
const rounds = Number(process.env.BENCH_ROUNDS ?? 12)
const warmupRounds = 2
const goalMillis = 5

const postgres = fileURLToPath(new URL("../../../scripts/postgres.sh", import.meta.url))
const serverUrl = execFileSync("bash", [postgres], { encoding: "utf8" }).trim()

/** The database of this pass of the bench. */
class ClusterUrl extends Context.Service<ClusterUrl, string>()("bench/ClusterUrl") {}

const send = model(calls)
const agent = DurableLoop.make("bench-steps", { maxSteps: steps })

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

const fixed = (value: number, digits = 2) => value.toFixed(digits)
const spread = (values: ReadonlyArray<number>, digits = 2) =>
  `${fixed(quantile(values, 0.5), digits)} (p10 ${fixed(quantile(values, 0.1), digits)}, p90 ${fixed(quantile(values, 0.9), digits)})`

interface Contender {
  readonly name: string
  /** Runs per round: more for the cheap ones, so that a round is long enough to time. */
  readonly runs: number
  readonly run: (id: string) => Effect.Effect<Loop.Result, unknown>
  readonly millisPerStep: Array<number>
}

let runNumber = 0

/** Runs `contender` for one round, one run after another; gives its wall time per step. */
const round = (contender: Contender) =>
  Effect.gen(function* () {
    const start = performance.now()
    for (let i = 0; i < contender.runs; i++) {
      const result = yield* contender.run(`run-${runNumber++}`)
      if (result.steps.length !== steps || result.text !== "All shipped.") {
        return yield* Effect.die(new Error(`${contender.name} ran ${result.steps.length} steps`))
      }
    }
    return (performance.now() - start) / (contender.runs * steps)
  })

const program = Effect.gen(function* () {
  const request = yield* question
  const handlers = { send, toolbox: tools }

  const memory = yield* Layer.build(
    Layer.provideMerge(agent.layer(handlers), WorkflowEngine.layerMemory),
  )
  const url = yield* ClusterUrl
  const cluster = yield* Layer.build(Layer.provideMerge(agent.layer(handlers), engine(url, 41001)))

  const contenders: ReadonlyArray<Contender> = [
    {
      name: "Loop.run",
      runs: 200,
      run: () => Loop.run({ send, toolbox: tools, request, maxSteps: steps }),
      millisPerStep: [],
    },
    {
      name: "durable, memory engine",
      runs: 20,
      run: (id) => Effect.provide(agent.run(id, request), memory),
      millisPerStep: [],
    },
    {
      name: "durable, cluster on PostgreSQL",
      runs: 3,
      run: (id) => Effect.provide(agent.run(id, request), cluster),
      millisPerStep: [],
    },
  ]
  const [plain, inMemory, onCluster] = contenders as [Contender, Contender, Contender]

  for (let i = 0; i < warmupRounds; i++) {
    for (const contender of contenders) yield* round(contender)
  }
  let clusterCpu = 0
  let clusterStatements = 0
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < contenders.length; k++) {
      const contender = contenders[(r + k) % contenders.length]!
      const cpu = process.cpuUsage()
      const sent = statementCount()
      contender.millisPerStep.push(yield* round(contender))
      if (contender === onCluster) {
        const spent = process.cpuUsage(cpu)
        clusterCpu += (spent.user + spent.system) / 1000
        clusterStatements += statementCount() - sent
      }
    }
  }
  const clusterSteps = rounds * onCluster.runs * steps

  // An idle runner's statements: its polls for messages and replies, and its shard locks.
  statements.clear()
  yield* Effect.sleep("2 seconds")
  const idlePerSecond = statementCount() / 2

  // One round trip to the server, as the engine's client makes it.
  const roundTrips: Array<number> = []
  yield* Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (let i = 0; i < 200; i++) {
      const start = performance.now()
      yield* sql`SELECT 1`
      roundTrips.push(performance.now() - start)
    }
  }).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(serverUrl), maxConnections: 1 })),
    Effect.scoped,
  )

  const clusterMillis = quantile(onCluster.millisPerStep, 0.5)
  const overhead = onCluster.millisPerStep.map((ms, i) => ms - plain.millisPerStep[i]!)
  const lines = [
    `one step (${calls} steps of one tool call, then text; ${rounds} rounds, wall ms per step, median):`,
    `  Loop.run                        ${spread(plain.millisPerStep, 3)}`,
    `  durable, memory engine          ${spread(inMemory.millisPerStep, 3)}  (${fixed(quantile(inMemory.millisPerStep, 0.5) / quantile(plain.millisPerStep, 0.5), 1)}x Loop.run)`,
    `  durable, cluster on PostgreSQL  ${spread(onCluster.millisPerStep)}  (${fixed(clusterMillis / quantile(inMemory.millisPerStep, 0.5), 1)}x memory engine)`,
    `goal  durable overhead (cluster - Loop.run): ${spread(overhead)} ms per step - goal < ${goalMillis} ms: ${quantile(overhead, 0.5) < goalMillis ? "met" : "NOT met"}`,
    `where a cluster step's time goes:`,
    `  SQL statements per step         ${fixed(clusterStatements / clusterSteps, 1)} (BEGIN/COMMIT not counted; an idle runner sends ${fixed(idlePerSecond, 1)}/s, ${fixed((idlePerSecond * clusterMillis) / 1000, 2)} per step's time)`,
    `  CPU of this process per step    ${fixed(clusterCpu / clusterSteps)} ms (${fixed((100 * clusterCpu) / clusterSteps / clusterMillis, 0)}% of the step's wall time; PostgreSQL's own CPU is not in it)`,
    `  one SELECT 1 round trip         ${spread(roundTrips, 3)} ms`,
  ]
  return { lines, clusterSteps }
})

/** The server's own account of a database: time spent executing statements, transactions. */
const serverStats = (url: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ activeTime: number; commits: number; fsync: string }>`
      SELECT active_time AS "activeTime", xact_commit::float8 AS commits,
        current_setting('fsync') AS fsync
      FROM pg_stat_database WHERE datname = current_database()`
    return row!
  }).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
    Effect.scoped,
  )

/**
 * The second pass: the cluster alone, on a new database, between two readings of PostgreSQL's
 * statistics (`pg_stat_database`: time spent executing statements, transactions committed), each
 * taken after a pause so that the server has them; the polls of the pauses are taken out.
 */
const serverSide = Effect.gen(function* () {
  const request = yield* question
  const url = yield* ClusterUrl
  const cluster = yield* Layer.build(
    Layer.provideMerge(agent.layer({ send, toolbox: tools }), engine(url, 41002)),
  )
  const runs = 10
  const pause = 1500
  yield* Effect.provide(agent.run("warm", request), cluster)
  yield* Effect.sleep(pause)
  const idleBefore = yield* serverStats(url)
  yield* Effect.sleep(pause)
  const before = yield* serverStats(url)
  statements.clear()
  const cpu = process.cpuUsage()
  const start = performance.now()
  for (let i = 0; i < runs; i++) yield* Effect.provide(agent.run(`server-${i}`, request), cluster)
  const wall = performance.now() - start
  const spent = process.cpuUsage(cpu)
  const counted = new Map(statements)
  yield* Effect.sleep(pause)
  const after = yield* serverStats(url)
  const seconds = (wall + pause) / 1000
  const idlePerSecond = {
    activeTime: (before.activeTime - idleBefore.activeTime) / (pause / 1000),
    commits: (before.commits - idleBefore.commits) / (pause / 1000),
  }
  const perStep = (value: number) => value / (runs * steps)
  const rows = [...counted.entries()].sort((a, b) => b[1] - a[1])
  return [
    `  the cluster alone (${runs} runs): ${fixed(perStep(wall))} ms per step, of which this process's CPU ${fixed(perStep((spent.user + spent.system) / 1000))} ms`,
    `  PostgreSQL executing statements  ${fixed(perStep(after.activeTime - before.activeTime - idlePerSecond.activeTime * seconds))} ms per step, in ${fixed(perStep(after.commits - before.commits - idlePerSecond.commits * seconds), 1)} transactions (fsync ${after.fsync})`,
    `  statements per step, by kind:    ${rows
      .slice(0, 6)
      .map(([kind, count]) => `${kind} ${fixed(perStep(count), 1)}`)
      .join(", ")}`,
  ]
})

const main = Effect.gen(function* () {
  const first = yield* withDatabase(serverUrl, "steps", (url) =>
    program.pipe(Effect.provideService(ClusterUrl, url), Effect.scoped),
  )
  const second = yield* withDatabase(serverUrl, "server", (url) =>
    serverSide.pipe(Effect.provideService(ClusterUrl, url), Effect.scoped),
  )
  console.log([...first.lines, ...second].join("\n"))
})

// The cluster warns that no runner is healthy while its runner starts; the lines are the output.
await Effect.runPromise(main.pipe(Effect.provideService(References.MinimumLogLevel, "Error")))
