/**
 * Conformance cases on disk: case files, folders of them, `file:` URLs and the recordings cases
 * point at, read with `node:fs` (Node, Bun, Deno). The case format itself, {@link Case}, and the
 * runner load anywhere, a browser or a Worker too, from the main entry.
 *
 * @since 0.2.0
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs"
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Case from "./Case.js"
import * as Runner from "./Runner.js"

/**
 * The most bytes a case file or a recording may have: 8 MiB, some 400 times the largest recording
 * of svir's own suites (21 KB). A path to a device such as `/dev/zero`, or to a log, stays out of
 * memory; a case of that size would take hours at a stride of 1 byte anyway.
 *
 * @since 0.2.0
 * @category constants
 */
export const maxFileBytes = 8 * 1024 * 1024

/**
 * Where recordings may be read from. A case file comes from outside as often as not (a suite
 * someone else wrote), so by default its recordings must be inside the folder of its cases:
 * `root`, else the folder given (to `readPath`, `load` or the command), else the case file's
 * folder (`readFile`), else the working directory (a case value). Symbolic links are resolved
 * before the check, so a link inside that points outside is outside. `allowOutside` reads
 * recordings from anywhere (the command's `--allow-outside`).
 *
 * @since 0.2.0
 * @category models
 */
export interface ReadOptions {
  readonly root?: string | undefined
  readonly allowOutside?: boolean | undefined
}

/**
 * Checks a JSON value against the format, as `Case.decode` does, and reads the `recording` of
 * each case from `folder` (the working directory when left out), which is also the folder the
 * recordings must be in unless `options` says otherwise ({@link ReadOptions}). A recording that
 * cannot be read, is not a regular file, is outside that folder, is larger than
 * {@link maxFileBytes}, or whose `replace` or `cut_before` text does not occur, is a
 * {@link Case.CaseError} too.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decode = (
  source: string,
  json: unknown,
  folder: string = process.cwd(),
  options: ReadOptions = {},
): Effect.Effect<ReadonlyArray<Case.Loaded>, Case.CaseError> =>
  Effect.flatMap(Case.decode(source, json), (cases) => {
    const loaded: Array<Case.Loaded> = []
    for (const one of cases) {
      const c = one.case
      if (Case.isEncoderCase(c) || c.recording === undefined) {
        loaded.push({ source, case: c, folder })
        continue
      }
      const recording = readRecording(c, folder, options)
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
/** As `readFileSync(path, "utf8")` decodes: a byte that is not UTF-8 is U+FFFD, a BOM is kept. */
const lenientUtf8 = new TextDecoder("utf-8", { ignoreBOM: true })

/**
 * The text of a case's recording: read from its file (relative to `folder`, and within the root of
 * `options`), each `replace` pair applied in order to every occurrence, then cut before the first
 * occurrence of `cut_before`. A text that must occur and does not makes the case malformed: the
 * recording is not what the case was written against.
 */
const readRecording = (
  c: Case.Case,
  folder: string,
  options: ReadOptions,
): Result.Result<string, string> => {
  let path: string
  let root: string
  try {
    path = realpathSync(resolve(folder, c.recording ?? ""))
    root = realpathSync(resolve(options.root ?? folder))
  } catch (cause) {
    return Result.fail(`recording ${c.recording}: cannot read: ${describe(cause)}`)
  }
  if (options.allowOutside !== true && !isWithin(root, path)) {
    return Result.fail(
      `recording ${c.recording}: ${path} is outside the folder of the cases (${root}); pass --allow-outside (allowOutside: true) to read it`,
    )
  }
  let bytes: Uint8Array
  try {
    bytes = readRegularFile(path)
  } catch (cause) {
    return Result.fail(`recording ${c.recording}: cannot read: ${describe(cause)}`)
  }
  let text: string
  try {
    text = utf8.decode(bytes)
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

/** Whether `path` is `root` or below it; both are real paths. */
const isWithin = (root: string, path: string): boolean => {
  const below = relative(root, path)
  return !(below === ".." || below.startsWith(`..${sep}`) || isAbsolute(below))
}

const describeKind = (stat: Stats): string =>
  stat.isDirectory()
    ? "a folder"
    : stat.isFIFO()
      ? "a FIFO"
      : stat.isSocket()
        ? "a socket"
        : stat.isCharacterDevice()
          ? "a character device"
          : stat.isBlockDevice()
            ? "a block device"
            : "something else"

/**
 * The bytes of a regular file (or of one a symbolic link points at), at most
 * {@link maxFileBytes}; anything else throws, saying what it is. The path is checked before it
 * is opened, as opening a FIFO waits for a writer, and opened non-blocking and checked again, so
 * a FIFO swapped in between cannot block either.
 */
const readRegularFile = (path: string): Uint8Array => {
  const checked = statSync(path)
  if (!checked.isFile()) throw new Error(`${path} is ${describeKind(checked)}, not a regular file`)
  // O_NONBLOCK is absent on Windows, where no FIFO blocks an open.
  const handle = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  try {
    const opened = fstatSync(handle)
    if (!opened.isFile() || opened.dev !== checked.dev || opened.ino !== checked.ino) {
      throw new Error(`${path} was replaced while it was opened`)
    }
    // Read to the end, whatever the size said: the file may have grown since.
    const limit = maxFileBytes + 1
    let bytes = new Uint8Array(Math.min(limit, opened.size + 1))
    let filled = 0
    while (filled < limit) {
      if (filled === bytes.length) {
        const larger = new Uint8Array(Math.min(limit, bytes.length * 2))
        larger.set(bytes)
        bytes = larger
      }
      const bytesRead = readSync(handle, bytes, filled, bytes.length - filled, filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    if (filled > maxFileBytes) {
      throw new Error(`${path} is larger than ${maxFileBytes} bytes (CaseFiles.maxFileBytes)`)
    }
    return bytes.subarray(0, filled)
  } finally {
    closeSync(handle)
  }
}

/**
 * Reads one case file, a regular file of at most {@link maxFileBytes}. Its recordings are read
 * from its folder, which they must be in unless `options` says otherwise ({@link ReadOptions}).
 *
 * @since 0.2.0
 * @category decoding
 */
export const readFile = (
  path: string,
  options: ReadOptions = {},
): Effect.Effect<ReadonlyArray<Case.Loaded>, Case.CaseError> =>
  Effect.suspend(() => {
    let text: string
    try {
      text = lenientUtf8.decode(readRegularFile(path))
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
    return decode(path, json, dirname(resolve(path)), options)
  })

/**
 * Reads the cases of a file, or of every `.json` file below a folder, in path order. A folder
 * with no case file is an error: nothing is skipped silently. The recordings of a folder's cases
 * must be in that folder, unless `options` says otherwise ({@link ReadOptions}).
 *
 * @since 0.2.0
 * @category decoding
 */
export const readPath = (
  path: string,
  options: ReadOptions = {},
): Effect.Effect<ReadonlyArray<Case.Loaded>, Case.CaseError> =>
  Effect.suspend(() => {
    const found = caseFiles(path)
    if (Result.isFailure(found)) return Effect.fail(found.failure)
    const { files, isFolder } = found.success
    const within: ReadOptions = isFolder ? { ...options, root: options.root ?? path } : options
    return Effect.map(
      Effect.forEach(files, (file) => readFile(file, within)),
      (each) => each.flat(),
    )
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
 * Reads every source, in order: paths from disk, values checked against the format. Recordings
 * must be in the folder of their source, unless `options` says otherwise ({@link ReadOptions}).
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
  options: ReadOptions = {},
): Effect.Effect<ReadonlyArray<Case.Loaded>, Case.CaseError> =>
  Effect.map(
    Effect.forEach(sources, (source, i) => {
      if (typeof source === "string") return readPath(source, options)
      if (source instanceof URL) {
        return source.protocol === "file:"
          ? readPath(fileURLToPath(source), options)
          : Effect.fail(
              new Case.CaseError({ source: source.href, message: "only file: URLs are read" }),
            )
      }
      return decode(`<value ${i}>`, source, process.cwd(), options)
    }),
    (each) => each.flat(),
  )

/**
 * Loads the cases (files, folders or values) and runs them all. Fails only with a
 * {@link Case.CaseError} for a case file that is missing or malformed, before running anything.
 * `options` are the runner's and where recordings may be read from ({@link ReadOptions}).
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
  options: Runner.RunOptions & ReadOptions = {},
): Effect.Effect<Runner.Report, Case.CaseError> =>
  Effect.flatMap(load(sources, options), (loaded) => Runner.runLoaded(makeCodec, loaded, options))

const caseFiles = (
  path: string,
): Result.Result<
  { readonly files: ReadonlyArray<string>; readonly isFolder: boolean },
  Case.CaseError
> => {
  const absolute = resolve(path)
  try {
    if (!statSync(absolute).isDirectory()) return Result.succeed({ files: [path], isFolder: false })
    const files = readdirSync(absolute, { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".json"))
      .sort()
      .map((name) => join(path, name))
    return files.length === 0
      ? Result.fail(
          new Case.CaseError({ source: path, message: "no .json case files in this folder" }),
        )
      : Result.succeed({ files, isFolder: true })
  } catch (cause) {
    return Result.fail(
      new Case.CaseError({ source: path, message: `cannot read: ${describe(cause)}` }),
    )
  }
}

const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message : String(cause)
