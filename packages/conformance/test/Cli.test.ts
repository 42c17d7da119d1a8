import { spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import { CaseFiles, Cli, Suites } from "../src/node.js"

const bin = fileURLToPath(new URL("../bin/svir-conformance.js", import.meta.url))
const toyCodec = fileURLToPath(new URL("./toy/ToyCodec.ts", import.meta.url))
const cases = (name: string) => fileURLToPath(new URL(`./cases/${name}`, import.meta.url))

/**
 * Runs the bin as a user would, from the sources: the tests may run before (or while) the
 * package is built, so they do not depend on `dist`.
 */
const runBin = (args: ReadonlyArray<string>, cwd: string) => {
  const child = spawnSync(
    process.execPath,
    ["--conditions=@svir/source", "--import", import.meta.resolve("tsx"), bin, ...args],
    { cwd, encoding: "utf8", timeout: 30_000 },
  )
  const lines = child.stdout.trimEnd().split("\n")
  return { status: child.status, lines, last: lines[lines.length - 1], stderr: child.stderr }
}

/** Runs the command in this process, with what it prints recorded. */
const runMain = (args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const out: Array<string> = []
    const err: Array<string> = []
    const recording: Console.Console = {
      ...globalThis.console,
      log: (...parts) => out.push(parts.join(" ")),
      error: (...parts) => err.push(parts.join(" ")),
    }
    const status = yield* Effect.provideService(Cli.main(args), Console.Console, recording)
    return { status, out, err }
  })

const withCases = (use: (dir: string) => void) => () => {
  const dir = mkdtempSync(join(tmpdir(), "svir-cli-"))
  try {
    cpSync(cases("pass"), join(dir, "cases"), { recursive: true })
    use(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("svir-conformance", () => {
  it(
    "exits 0 with the counts when every check passes, 1 with a line per failure otherwise",
    withCases((dir) => {
      const passing = runBin(["--codec", toyCodec, "cases"], dir)
      assert.strictEqual(passing.status, 0, passing.stderr)
      assert.match(passing.last ?? "", /^[1-9]\d* passed, 0 failed$/)
      assert.strictEqual(passing.lines.length, 1)

      cpSync(cases("fail/wrong.json"), join(dir, "cases", "wrong.json"))
      const failing = runBin(["--codec", toyCodec, "cases"], dir)
      assert.strictEqual(failing.status, 1, failing.stderr)
      const counts = /^(\d+) passed, (\d+) failed$/.exec(failing.last ?? "")
      assert.isNotNull(counts)
      const failures = failing.lines.slice(0, -1)
      assert.strictEqual(failures.length, Number(counts?.[2]))
      assert.isTrue(failures.every((line) => line.startsWith("FAIL ")))
      assert.include(
        failures,
        `FAIL wrong-text [strict, 1-byte] ${join("cases", "wrong.json")}: text: expected "Hallo", actual "Hello"`,
      )
    }),
  )

  it.effect("runs only the expectations of --mode", () =>
    Effect.gen(function* () {
      const passed = (lines: ReadonlyArray<string>) =>
        Number(/^(\d+) passed, 0 failed$/.exec(lines[lines.length - 1] ?? "")?.[1])
      const strict = yield* runMain(["--codec", toyCodec, "--mode", "strict", cases("pass")])
      const lenient = yield* runMain(["--codec", toyCodec, "--mode", "lenient", cases("pass")])
      const both = yield* runMain(["--codec", toyCodec, cases("pass")])
      assert.deepStrictEqual([strict.status, lenient.status, both.status], [0, 0, 0])
      assert.isAbove(passed(lenient.out), 0)
      assert.strictEqual(passed(strict.out) + passed(lenient.out), passed(both.out))
    }),
  )

  it.effect("prints a line per check not run, counts it apart, and does not fail for it", () =>
    Effect.gen(function* () {
      const result = yield* runMain(["--codec", toyCodec, cases("encoder-disk")])
      assert.strictEqual(result.status, 0)
      assert.match(result.out[0] ?? "", /^NOT RUN encode-declared-size \[strict, encode\] /)
      assert.strictEqual(result.out[1], "0 passed, 0 failed, 1 not run")
    }),
  )

  it(
    "exits 2 with the path and the reason for a malformed case file",
    withCases((dir) => {
      writeFileSync(
        join(dir, "cases", "typo.json"),
        '{"name":"t","sse":"","expect":{"ok":{"txt":""}}}',
      )
      const result = runBin(["--codec", toyCodec, "cases"], dir)
      assert.strictEqual(result.status, 2)
      assert.include(result.stderr, join("cases", "typo.json"))
      assert.include(result.stderr, '["txt"]')
    }),
  )

  it(
    "exits 2 with the message and the usage when no PATH is given",
    withCases((dir) => {
      const noPath = runBin(["--codec", toyCodec], dir)
      assert.strictEqual(noPath.status, 2)
      assert.include(noPath.stderr, "give at least one PATH")
      assert.include(noPath.stderr, "usage: svir-conformance")
    }),
  )

  it.effect("exits 2 for a bad mode or a codec module that is not there", () =>
    Effect.gen(function* () {
      const badMode = yield* runMain(["--mode", "loose", cases("pass")])
      assert.strictEqual(badMode.status, 2)
      assert.include(badMode.err.join("\n"), "--mode must be strict or lenient, not loose")
      const noCodec = yield* runMain(["--codec", "./missing.js", cases("pass")])
      assert.strictEqual(noCodec.status, 2)
      assert.deepStrictEqual(noCodec.err, [
        `no codec module at ${join(process.cwd(), "missing.js")}`,
      ])
      assert.deepStrictEqual(noCodec.out, [])
    }),
  )

  it.effect("loads a module's make, or its one namespace's, and refuses a module without one", () =>
    Effect.gen(function* () {
      const make = yield* Cli.loadCodec(toyCodec)
      assert.strictEqual(make({ mode: "strict" }).name, "toy-lines")
      const error = yield* Effect.flip(
        Cli.loadCodec(fileURLToPath(new URL("../src/Case.ts", import.meta.url))),
      )
      assert.strictEqual(error._tag, "CodecLoadError")
      assert.include(error.message, "exports no make function")
      const barrel = yield* Cli.loadCodec(fileURLToPath(new URL("./toy/index.ts", import.meta.url)))
      assert.strictEqual(barrel({ mode: "strict" }).name, "toy-lines")
      const both = yield* Effect.flip(
        Cli.loadCodec(fileURLToPath(new URL("./toy/both.ts", import.meta.url))),
      )
      assert.include(both.message, "several exports have one (MessagesCodec, ToyCodec)")
    }),
  )

  it.effect("parses the command line", () =>
    Effect.gen(function* () {
      const command = yield* Cli.parse(["a", "--mode", "lenient", "b"])
      assert.deepStrictEqual(command, {
        codec: "openai",
        modes: ["lenient"],
        paths: ["a", "b"],
        help: false,
      })
      const error = yield* Effect.flip(Cli.parse(["--cdec", "x", "a"]))
      assert.include(error.message, "--cdec")
    }),
  )

  it.effect(
    "runs a wire's shipped cases with --cases, or a first-party codec's without a PATH",
    () =>
      Effect.gen(function* () {
        const given = yield* Cli.parse(["--codec", "./mine.js", "--cases", "anthropic"])
        assert.strictEqual(given.cases, "anthropic")
        assert.deepStrictEqual(given.paths, [])
        const named = yield* Cli.parse(["--codec", "anthropic"])
        assert.strictEqual(named.cases, "anthropic")
        const byDefault = yield* Cli.parse([])
        assert.strictEqual(byDefault.cases, "openai")
        const withPath = yield* Cli.parse(["--codec", "anthropic", "mine"])
        assert.isUndefined(withPath.cases)
        const unknown = yield* Effect.flip(Cli.parse(["--cases", "gemini"]))
        assert.include(
          unknown.message,
          "--cases must be one of openai, anthropic, openai-responses, not gemini",
        )
        const both = yield* Effect.flip(Cli.parse(["--cases", "openai", "mine"]))
        assert.include(both.message, "give PATHs or --cases, not both")
        // The toy codec speaks another wire: the shipped cases are read and run, and fail.
        const toy = yield* runMain(["--codec", toyCodec, "--cases", "openai"])
        assert.strictEqual(toy.status, 1, toy.err.join("\n"))
        const counts = /^(\d+) passed, (\d+) failed, (\d+) not run$/.exec(toy.out.at(-1) ?? "")
        assert.isNotNull(counts, toy.out.at(-1))
        assert.isAbove(Number(counts?.[2]), 1000)
      }),
  )
})

describe("Suites", () => {
  it.effect("ship decoder and encoder cases for each first-party wire, with what they read", () =>
    Effect.gen(function* () {
      for (const wire of Suites.wires) {
        const suite = Suites.of(wire)
        assert.strictEqual(suite.wire, wire)
        const loaded = yield* CaseFiles.load(suite.paths, { root: suite.root })
        const decoder = loaded.filter(({ case: c }) => !("request" in c))
        const encoder = loaded.filter(({ case: c }) => "request" in c)
        assert.isAtLeast(decoder.length, wire === "openai" ? 250 : 13, wire)
        assert.isAtLeast(encoder.length, wire === "openai" ? 39 : 4, wire)
        const names = loaded.map(({ case: c }) => `${c.name} ${c.why ?? ""}`)
        for (const name of names) assert.match(name, /^\S+ \S/, `${wire}: every case says why`)
      }
      assert.isTrue(Suites.isWire("openai"))
      assert.isFalse(Suites.isWire("toString"))
    }),
  )
})
