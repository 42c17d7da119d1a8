/**
 * Runs completed per second with one runner and with two: runners in processes of their own
 * (bench/runner.ts) on a new PostgreSQL database, and this process a client of the cluster that
 * runs nothing. It starts `RUNS` short runs at once (one tool call, then text), waits for every
 * result, and divides. The time runs from the first start to the last result read; a warm-up
 * batch goes first, so that the runners hold their shards and have compiled their code. Each
 * count of runners has its own database, so rows of one do not slow the other. Each runner reports
 * the runs it did and its CPU: a second runner helps only when the first is short of a core, not
 * of the database, and on a machine with two cores PostgreSQL, the client and the runners share
 * them.
 *
 * Run: `npm run bench` in this package (needs `scripts/postgres.sh`, which it calls).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { once } from "node:events"
import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import { Effect, Exit, Layer, References } from "effect"
import { engine, withDatabase } from "./engine.js"
import { question, shortAgent } from "./model.js"

const runs = Number(process.env.BENCH_RUNS ?? 200)
const warmup = 20

const postgres = fileURLToPath(new URL("../../../scripts/postgres.sh", import.meta.url))
const serverUrl = execFileSync("bash", [postgres], { encoding: "utf8" }).trim()
const runnerFile = fileURLToPath(new URL("./runner.ts", import.meta.url))

/** Starts a runner process and waits until it says it is ready. */
const startRunner = (url: string, port: number): Promise<ChildProcess> => {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@svir/source", runnerFile, url, String(port)],
    { stdio: ["ignore", "pipe", "inherit"] },
  )
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`a runner exited with ${code}`)))
    child.stdout?.on("data", (data: Buffer) => {
      if (data.toString().includes("ready")) resolve(child)
    })
  })
}

interface Report {
  readonly modelCalls: number
  readonly cpuMillis: number
}

/** Stops a runner; gives what it says it did. */
const stopRunner = async (child: ChildProcess): Promise<Report> => {
  child.removeAllListeners("exit")
  let said = ""
  child.stdout?.on("data", (data: Buffer) => {
    said += data.toString()
  })
  const exited = once(child, "exit")
  child.kill("SIGTERM")
  await exited
  return JSON.parse(said.trim().split("\n").at(-1)!) as Report
}

/** Starts `count` runs at once through the client, and gives the seconds until all finished. */
const batch = (prefix: string, count: number) =>
  Effect.gen(function* () {
    const request = yield* question
    const start = performance.now()
    const results = yield* Effect.forEach(
      Array.from({ length: count }, (_, i) => `${prefix}-${i}`),
      (id) => shortAgent.run(id, request),
      { concurrency: "unbounded" },
    )
    const seconds = (performance.now() - start) / 1000
    if (results.some((result) => result.text !== "All shipped.")) {
      return yield* Effect.die(new Error("a run did not finish with the model's text"))
    }
    return seconds
  })

const withRunners = (runners: number) =>
  withDatabase(serverUrl, `runners${runners}`, (url) =>
    Effect.gen(function* () {
      const children = yield* Effect.promise(() =>
        Promise.all(Array.from({ length: runners }, (_, i) => startRunner(url, 42001 + i))),
      )
      const cpu = process.cpuUsage()
      const measured = yield* Effect.exit(
        Effect.gen(function* () {
          yield* batch("warm", warmup)
          return yield* batch("measured", runs)
        }).pipe(Effect.provide(Layer.fresh(engine(url, undefined)))),
      )
      const client = process.cpuUsage(cpu)
      const reports = yield* Effect.promise(() => Promise.all(children.map(stopRunner)))
      if (Exit.isFailure(measured)) return yield* Effect.failCause(measured.cause)
      const seconds = measured.value
      return { seconds, reports, clientMillis: (client.user + client.system) / 1000 }
    }),
  )

/** One line: the rate, and how the runs and the CPU were shared. */
const line = (
  runners: number,
  measured: { seconds: number; reports: ReadonlyArray<Report>; clientMillis: number },
) => {
  const shares = measured.reports.map((report) => report.modelCalls / 2).join(" + ")
  const cpu = measured.reports.map((report) => (report.cpuMillis / 1000).toFixed(1)).join(" + ")
  return `  ${runners} runner${runners === 1 ? " " : "s"}  ${(runs / measured.seconds).toFixed(0).padStart(4)} runs/s (${measured.seconds.toFixed(2)} s; runs per runner, warm-up included: ${shares}; runners' CPU since ready ${cpu} s, the client's ${(measured.clientMillis / 1000).toFixed(1)} s)`
}

const main = Effect.gen(function* () {
  const one = yield* withRunners(1)
  const two = yield* withRunners(2)
  console.log(
    [
      `runs completed per second (${runs} runs of one tool call then text, started at once; client and runners in processes of their own, one PostgreSQL; ${availableParallelism()} cores on this machine):`,
      line(1, one),
      line(2, two),
      `  2 runners / 1 runner: ${(one.seconds / two.seconds).toFixed(2)}x`,
    ].join("\n"),
  )
})

await Effect.runPromise(main.pipe(Effect.provideService(References.MinimumLogLevel, "Error")))
