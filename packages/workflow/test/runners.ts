/**
 * Runner processes for the kill tests, and the tool log they write: each runner is
 * `test/fixtures/runner.ts` in its own Node process, run from the sources as the other packages'
 * tests run their fixtures, and killed with SIGKILL at the latest when its scope closes.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync, watch, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Data, Duration, Effect } from "effect"
import type { TestContext } from "vitest"
import type { LogLine, RunnerConfig } from "./fixtures/agent.js"

const runnerScript = fileURLToPath(new URL("./fixtures/runner.ts", import.meta.url))

/** A runner process did not say `ready`, or a condition did not come in time. */
export class NotInTime extends Data.TaggedError("NotInTime")<{ readonly message: string }> {}

/** A runner process: its pid, how to kill it, and what it wrote to stderr. */
export interface Runner {
  readonly pid: number
  /** SIGKILL; resolves once the process is gone. */
  readonly kill: Effect.Effect<void>
  readonly stderr: () => string
}

const exited = (child: ChildProcess): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

const killed = (child: ChildProcess): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    return exited(child)
  })

/**
 * Starts a runner and waits for its `ready`. What it writes (Effect's log lines go to stdout) is
 * kept, and written out only when the test fails; the process is killed when the scope closes.
 */
export const start = (test: TestContext, name: string, config: RunnerConfig) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(
        process.execPath,
        ["--conditions=@svir/source", "--import", import.meta.resolve("tsx"), runnerScript],
        {
          env: { ...process.env, SVIR_KILL_RUNNER: JSON.stringify(config) },
          stdio: ["ignore", "pipe", "pipe"],
        },
      )
      let stdout = ""
      let stderr = ""
      child.stdout?.setEncoding("utf8").on("data", (part: string) => {
        stdout += part
        child.emit("stdout")
      })
      child.stderr?.setEncoding("utf8").on("data", (part: string) => {
        stderr += part
      })
      test.onTestFailed(() => {
        process.stderr.write(
          `== runner ${name} (pid ${child.pid})\n-- stdout:\n${stdout}\n-- stderr:\n${stderr}\n`,
        )
      })
      return { child, stdout: () => stdout, stderr: () => stderr }
    }),
    ({ child }) => killed(child),
  ).pipe(
    Effect.tap(({ child, stdout, stderr }) =>
      Effect.callback<void, NotInTime>((resume) => {
        const check = () => {
          if (stdout().split("\n").includes("ready")) resume(Effect.void)
        }
        const gone = () =>
          resume(Effect.fail(new NotInTime({ message: `runner ${name} exited: ${stderr()}` })))
        child.on("stdout", check)
        child.once("exit", gone)
        check()
        return Effect.sync(() => {
          child.off("stdout", check)
          child.off("exit", gone)
        })
      }).pipe(
        Effect.timeoutOrElse({
          duration: Duration.seconds(60),
          orElse: () =>
            Effect.fail(new NotInTime({ message: `runner ${name} not ready: ${stderr()}` })),
        }),
      ),
    ),
    Effect.map(
      ({ child, stderr }): Runner => ({ pid: child.pid ?? -1, kill: killed(child), stderr }),
    ),
  )

/** The lines of the tool log so far. */
export const lines = (log: string): ReadonlyArray<LogLine> =>
  readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as LogLine)

/** Creates the log, empty. */
export const createLog = (log: string): void => writeFileSync(log, "")

/**
 * Waits until `holds` is true of the log's lines: checked at each change of the file, and once
 * at the start.
 */
export const untilLogged = <A>(
  log: string,
  holds: (lines: ReadonlyArray<LogLine>) => A | undefined,
): Effect.Effect<A> =>
  Effect.callback<A>((resume) => {
    const check = () => {
      const found = holds(lines(log))
      if (found === undefined) return
      watcher.close()
      resume(Effect.succeed(found))
    }
    const watcher = watch(log, check)
    check()
    return Effect.sync(() => watcher.close())
  })
