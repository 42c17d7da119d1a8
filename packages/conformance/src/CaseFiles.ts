/**
 * Conformance cases on disk: case files, folders of them, `file:` URLs and the recordings cases
 * point at, read with `node:fs` (Node, Bun, Deno). The case format itself, {@link Case}, and the
 * runner load anywhere, a browser or a Worker too, from the main entry.
 *
 * @since 0.2.0
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Case from "./Case.js"
import * as Runner from "./Runner.js"

/**
 * Checks a JSON value against the format, as `Case.decode` does, and reads the `recording` of
 * each case from `folder` (the working directory when left out). A recording that cannot be read,
 * or whose `replace` or `cut_before` text does not occur, is a {@link Case.CaseError} too.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decode = (
  source: string,
  json: unknown,
  folder: string = process.cwd(),
): Effect.Effect<ReadonlyArray<Case.Loaded>, Case.CaseError> =>
  Effect.flatMap(Case.decode(source, json), (cases) => {
    const loaded: Array<Case.Loaded> = []
    for (const one of cases) {
      const c = one.case
      if (Case.isEncoderCase(c) || c.recording === undefined) {
        loaded.push({ source, case: c, folder })
        continue
      }
      const recording = readRecording(c, folder)
      if (Result.isFailure(recording)) {
        return Effect.fail(
          new Case.CaseError({ source, message: `${c.name}: ${recording.failure}` }),
        )
      }
      loaded.push({ source, case: c, folder, recording: recording.success })
    }
    return Effect.succeed(loaded)
  })

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * The text of a case's recording: read from its file (relative to `folder`), each `replace` pair
 * applied in order to every occurrence, then cut before the first occurrence of `cut_before`. A
 * text that must occur and does not makes the case malformed: the recording is not what the case
 * was written against.
 */
const readRecording = (c: Case.Case, folder: string): Result.Result<string, string> => {
  const path = resolve(folder, c.recording ?? "")
  let text: string
  try {
    text = utf8.decode(readFileSync(path))
  } catch (cause) {
    return Result.fail(`recording ${c.recording}: cannot read as UTF-8 text: ${describe(cause)}`)
  }
  for (const [from, to] of c.replace ?? []) {
    if (!text.includes(from)) {
      return Result.fail(`replace: ${JSON.stringify(from)} does not occur in ${c.recording}`)
    }
    text = text.replaceAll(from, to)
  }
  if (c.cut_before !== undefined) {
    const at = text.indexOf(c.cut_before)
    if (at === -1) {
      return Result.fail(
        `cut_before: ${JSON.stringify(c.cut_before)} does not occur in ${c.recording}`,
      )
    }
    text = text.slice(0, at)
  }
  return Result.succeed(text)
}

/**
 * Reads one case file.
 *
 * @since 0.2.0
 * @category decoding
 */
export const readFile = (path: string): Effect.Effect<ReadonlyArray<Case.Loaded>, Case.CaseError> =>
  Effect.suspend(() => {
    let text: string
    try {
      text = readFileSync(path, "utf8")
    } catch (cause) {
      return Effect.fail(
        new Case.CaseError({ source: path, message: `cannot read: ${describe(cause)}` }),
      )
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (cause) {
      return Effect.fail(
        new Case.CaseError({ source: path, message: `not JSON: ${describe(cause)}` }),
      )
    }
    return decode(path, json, dirname(resolve(path)))
  })

/**
 * Reads the cases of a file, or of every `.json` file below a folder, in path order. A folder
 * with no case file is an error: nothing is skipped silently.
 *
 * @since 0.2.0
 * @category decoding
 */
export const readPath = (path: string): Effect.Effect<ReadonlyArray<Case.Loaded>, Case.CaseError> =>
  Effect.suspend(() => {
    const files = caseFiles(path)
    if (Result.isFailure(files)) return Effect.fail(files.failure)
    return Effect.map(Effect.forEach(files.success, readFile), (each) => each.flat())
  })

/**
 * Where cases come from: a path (a file or a folder, from the working directory), a `file:` URL
 * (such as `new URL("./cases", import.meta.url)`), or a case value (of either kind; paths in it
 * are read from the working directory).
 *
 * @since 0.2.0
 * @category models
 */
export type Source = string | URL | Case.Value

/**
 * Reads every source, in order: paths from disk, values checked against the format.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CaseFiles } from "@svir/conformance/node"
 *
 * const cases = CaseFiles.load([new URL("./cases", import.meta.url)])
 * ```
 *
 * @since 0.2.0
 * @category decoding
 */
export const load = (
  sources: ReadonlyArray<Source>,
): Effect.Effect<ReadonlyArray<Case.Loaded>, Case.CaseError> =>
  Effect.map(
    Effect.forEach(sources, (source, i) => {
      if (typeof source === "string") return readPath(source)
      if (source instanceof URL) {
        return source.protocol === "file:"
          ? readPath(fileURLToPath(source))
          : Effect.fail(
              new Case.CaseError({ source: source.href, message: "only file: URLs are read" }),
            )
      }
      return decode(`<value ${i}>`, source)
    }),
    (each) => each.flat(),
  )

/**
 * Loads the cases (files, folders or values) and runs them all. Fails only with a
 * {@link Case.CaseError} for a case file that is missing or malformed, before running anything.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Runner } from "@svir/conformance"
 * import { CaseFiles } from "@svir/conformance/node"
 * import { OpenAiCodec } from "@svir/openai-codec"
 *
 * const report = await Effect.runPromise(
 *   CaseFiles.run((options) => OpenAiCodec.make(options), ["test/cases"]),
 * )
 * // how many checks failed: 0 when the codec does what every case expects
 * console.log(Runner.formatCounts(report))
 * ```
 *
 * @since 0.2.0
 * @category running
 */
export const run = (
  makeCodec: Runner.MakeCodec,
  sources: ReadonlyArray<Source>,
  options: Runner.RunOptions = {},
): Effect.Effect<Runner.Report, Case.CaseError> =>
  Effect.flatMap(load(sources), (loaded) => Runner.runLoaded(makeCodec, loaded, options))

const caseFiles = (path: string): Result.Result<ReadonlyArray<string>, Case.CaseError> => {
  const absolute = resolve(path)
  try {
    if (!statSync(absolute).isDirectory()) return Result.succeed([path])
    const files = readdirSync(absolute, { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".json"))
      .sort()
      .map((name) => join(path, name))
    return files.length === 0
      ? Result.fail(
          new Case.CaseError({ source: path, message: "no .json case files in this folder" }),
        )
      : Result.succeed(files)
  } catch (cause) {
    return Result.fail(
      new Case.CaseError({ source: path, message: `cannot read: ${describe(cause)}` }),
    )
  }
}

const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message : String(cause)
