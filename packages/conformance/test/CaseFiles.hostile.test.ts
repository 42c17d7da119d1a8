import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import { CaseFiles, Cli } from "../src/node.js"

// A case file may come from anyone: its `recording` must not make the kit read a device, wait on
// a FIFO, or pick up a file from elsewhere on the machine (into a failure line, say).
let root = ""
let cases = ""
let outside = ""
const toyLines = "text Hi\nend stop\n"

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "svir-case-files-"))
  cases = join(root, "cases")
  outside = join(root, "outside.lines")
  mkdirSync(join(cases, "folder.lines"), { recursive: true })
  writeFileSync(outside, toyLines)
  writeFileSync(join(cases, "inside.lines"), toyLines)
  execFileSync("mkfifo", [join(cases, "pipe.lines")])
  symlinkSync(outside, join(cases, "link-out.lines"))
  symlinkSync(join(cases, "inside.lines"), join(cases, "link-in.lines"))
  writeFileSync(join(cases, "at-bound.lines"), new Uint8Array(CaseFiles.maxFileBytes).fill(0x61))
  writeFileSync(join(cases, "over-bound.lines"), new Uint8Array(CaseFiles.maxFileBytes + 1))
})

afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

/** Writes a case file in the cases folder whose recording is `recording`. */
const caseWith = (name: string, recording: string): string => {
  const path = join(cases, `${name}.json`)
  writeFileSync(path, JSON.stringify({ name, recording, expect: { ok: { text: "Hi" } } }))
  return path
}

const refusal = (path: string, options: CaseFiles.ReadOptions = {}) =>
  Effect.flip(CaseFiles.readFile(path, options))

const recordingOf = (path: string, options: CaseFiles.ReadOptions = {}) =>
  Effect.map(CaseFiles.readFile(path, options), (loaded) => loaded[0]?.recording)

describe("CaseFiles: recordings that are not files, or not ours", () => {
  it.effect("refuses a FIFO, a folder and a device, without waiting on them", () =>
    Effect.gen(function* () {
      const fifo = yield* refusal(caseWith("fifo", "pipe.lines"))
      assert.strictEqual(fifo._tag, "CaseError")
      assert.include(fifo.message, "fifo: recording pipe.lines: cannot read:")
      assert.include(fifo.message, "is a FIFO, not a regular file")
      const folder = yield* refusal(caseWith("folder", "folder.lines"))
      assert.include(folder.message, "is a folder, not a regular file")
      const zero = yield* refusal(caseWith("zero", "/dev/zero"), { allowOutside: true })
      assert.include(zero.message, "/dev/zero is a character device, not a regular file")
    }),
  )

  it.effect("refuses a recording over CaseFiles.maxFileBytes, and reads one at it", () =>
    Effect.gen(function* () {
      const over = yield* refusal(caseWith("over", "over-bound.lines"))
      assert.include(over.message, `is larger than ${CaseFiles.maxFileBytes} bytes`)
      const at = yield* recordingOf(caseWith("at", "at-bound.lines"))
      assert.strictEqual(at?.length, CaseFiles.maxFileBytes)
    }),
  )

  it.effect("refuses a recording outside the folder of the cases: .., absolute, a link", () =>
    Effect.gen(function* () {
      for (const [name, recording] of [
        ["dotdot", "../outside.lines"],
        ["absolute", outside],
        ["link", "link-out.lines"],
        ["zero-outside", "/dev/zero"],
      ] as const) {
        const error = yield* refusal(caseWith(name, recording))
        assert.include(error.message, `${name}: recording ${recording}: `)
        assert.include(error.message, "is outside the folder of the cases")
        assert.include(error.message, "--allow-outside")
      }
      // Inside, through a link or not, is read.
      assert.strictEqual(yield* recordingOf(caseWith("in", "inside.lines")), toyLines)
      assert.strictEqual(yield* recordingOf(caseWith("link-in", "link-in.lines")), toyLines)
    }),
  )

  it.effect("reads a recording outside with allowOutside, or within a root given", () =>
    Effect.gen(function* () {
      for (const recording of ["../outside.lines", outside, "link-out.lines"]) {
        const path = caseWith("allowed", recording)
        assert.strictEqual(yield* recordingOf(path, { allowOutside: true }), toyLines)
        assert.strictEqual(yield* recordingOf(path, { root }), toyLines)
      }
    }),
  )

  it.effect("checks against the folder given, not each case file's own", () =>
    Effect.gen(function* () {
      const suite = join(root, "suite")
      mkdirSync(join(suite, "decoder"), { recursive: true })
      mkdirSync(join(suite, "recordings"))
      writeFileSync(join(suite, "recordings", "toy.lines"), toyLines)
      writeFileSync(
        join(suite, "decoder", "sibling.json"),
        JSON.stringify({
          name: "sibling",
          recording: "../recordings/toy.lines",
          expect: { ok: {} },
        }),
      )
      const whole = yield* CaseFiles.load([suite])
      assert.strictEqual(whole[0]?.recording, toyLines)
      const decoderOnly = yield* Effect.flip(CaseFiles.load([join(suite, "decoder")]))
      assert.include(decoderOnly.message, "is outside the folder of the cases")
      const rooted = yield* CaseFiles.load([join(suite, "decoder")], { root: suite })
      assert.strictEqual(rooted[0]?.recording, toyLines)
    }),
  )

  it.effect("refuses a case file that is a FIFO or a device", () =>
    Effect.gen(function* () {
      const fifo = yield* Effect.flip(CaseFiles.readPath(join(cases, "pipe.lines")))
      assert.include(fifo.message, "is a FIFO, not a regular file")
      const zero = yield* Effect.flip(CaseFiles.load(["/dev/zero"]))
      assert.deepInclude(zero, { source: "/dev/zero" })
      assert.include(zero.message, "is a character device, not a regular file")
    }),
  )
})

const toyCodec = fileURLToPath(new URL("./toy/ToyCodec.ts", import.meta.url))

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

describe("svir-conformance --allow-outside", () => {
  it.effect("refuses a recording outside its PATH with exit 2, and reads it when allowed", () =>
    Effect.gen(function* () {
      const path = caseWith("cli-outside", "../outside.lines")
      const refused = yield* runMain(["--codec", toyCodec, path])
      assert.strictEqual(refused.status, 2)
      assert.include(refused.err.join("\n"), "is outside the folder of the cases")
      const allowed = yield* runMain(["--codec", toyCodec, "--allow-outside", path])
      assert.strictEqual(allowed.status, 0, allowed.out.join("\n"))
      assert.match(allowed.out.at(-1) ?? "", /^[1-9]\d* passed, 0 failed$/)
      assert.deepInclude(yield* Cli.parse(["--allow-outside", "a"]), { allowOutside: true })
      assert.notProperty(yield* Cli.parse(["a"]), "allowOutside")
    }),
  )
})
