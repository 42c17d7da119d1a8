/**
 * The `svir-conformance` command:
 * `svir-conformance [--codec openai|anthropic|openai-responses|./module.js] [--mode strict|lenient] [--allow-outside] [PATH...|--cases openai|anthropic|openai-responses]`
 * prints one line
 * per failed check (and per check not run) and a last line `N passed, M failed` (with
 * `, K not run` when one was not run).
 *
 * @since 0.2.0
 */
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Case from "./Case.js"
import * as CaseFiles from "./CaseFiles.js"
import * as Runner from "./Runner.js"
import * as Suites from "./Suites.js"

/**
 * The text of `--help`.
 *
 * @since 0.2.0
 * @category constants
 */
export const usage = `usage: svir-conformance [--codec openai|anthropic|openai-responses|./module.js] [--mode strict|lenient] [--allow-outside] [PATH...|--cases openai|anthropic|openai-responses]

Runs the conformance cases in each PATH (a .json case file or a folder of them) against a codec:
every streamed decoder case at strides of 1, 3 and 8192 bytes and whole (and its own chunks),
every encoder case once. An encoder case whose attachment is a file on disk is not run. Without
a PATH, runs the cases that ship with this kit for the wire of --cases, or of a first-party
--codec.

  --codec openai       @svir/openai-codec (the default; install it next to this kit)
  --codec anthropic    @svir/anthropic (install it next to this kit)
  --codec openai-responses
                       @svir/openai-responses (install it next to this kit)
  --codec ./codec.js   a module of yours that exports make(options) returning a Codec
  --cases openai       the shipped Chat Completions cases (decoder, encoder, svir's own)
  --cases anthropic    the shipped Messages cases (decoder, encoder)
  --cases openai-responses
                       the shipped Responses cases (decoder, encoder)
  --mode M             run only the expectations in mode M (both by default)
  --allow-outside      read recordings outside the PATH they belong to (by default a case's
                       recording must be a regular file inside its PATH, or the folder of a
                       PATH that is a file, symbolic links resolved)

Exit status: 0 when every check passed, 1 when one failed, 2 for a usage error, a codec that
cannot be loaded, or a missing or malformed case file.`

/**
 * Arguments that are not a command: an unknown option, a bad mode, no path.
 *
 * @since 0.2.0
 * @category errors
 */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/**
 * A codec module that could not be loaded, or that has no `make` function.
 *
 * @since 0.2.0
 * @category errors
 */
export class CodecLoadError extends Data.TaggedError("CodecLoadError")<{
  readonly codec: string
  readonly message: string
}> {}

/**
 * The parsed command line.
 *
 * @since 0.2.0
 * @category models
 */
export interface Command {
  readonly codec: string
  readonly modes: ReadonlyArray<Case.Mode> | undefined
  readonly paths: ReadonlyArray<string>
  readonly help: boolean
  /**
   * `--allow-outside`: recordings may be read from anywhere. Set only when given.
   *
   * @since 0.2.0
   */
  readonly allowOutside?: boolean | undefined
  /**
   * `--cases`: the wire whose shipped cases run, given or taken from a first-party `--codec`
   * when no PATH is given.
   *
   * @since 0.2.0
   */
  readonly cases?: Suites.Wire | undefined
}

const isMode = (mode: string): mode is Case.Mode => mode === "strict" || mode === "lenient"

/**
 * Reads the command line (without `node` and the script).
 *
 * @since 0.2.0
 * @category parsing
 */
export const parse = (args: ReadonlyArray<string>): Effect.Effect<Command, UsageError> =>
  Effect.suspend(() => {
    let parsed: ReturnType<typeof parseCommandLine>
    try {
      parsed = parseCommandLine(args)
    } catch (cause) {
      return Effect.fail(
        new UsageError({ message: cause instanceof Error ? cause.message : String(cause) }),
      )
    }
    const { values, positionals } = parsed
    const help = values.help === true
    const mode = values.mode
    if (mode !== undefined && !isMode(mode)) {
      return Effect.fail(
        new UsageError({ message: `--mode must be strict or lenient, not ${mode}` }),
      )
    }
    const codec = values.codec ?? "openai"
    const given = values.cases
    if (given !== undefined && !Suites.isWire(given)) {
      return Effect.fail(
        new UsageError({
          message: `--cases must be one of ${Suites.wires.join(", ")}, not ${given}`,
        }),
      )
    }
    if (given !== undefined && positionals.length > 0) {
      return Effect.fail(new UsageError({ message: "give PATHs or --cases, not both" }))
    }
    const cases = given ?? (positionals.length === 0 && Suites.isWire(codec) ? codec : undefined)
    if (positionals.length === 0 && cases === undefined && !help) {
      return Effect.fail(
        new UsageError({
          message: `give at least one PATH of cases, or --cases ${Suites.wires.join("|")}`,
        }),
      )
    }
    return Effect.succeed({
      codec,
      modes: mode === undefined ? undefined : [mode],
      paths: positionals,
      help,
      ...(values["allow-outside"] === true ? { allowOutside: true } : {}),
      ...(cases !== undefined ? { cases } : {}),
    })
  })

const parseCommandLine = (args: ReadonlyArray<string>) =>
  parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      codec: { type: "string" },
      cases: { type: "string" },
      mode: { type: "string" },
      help: { type: "boolean", short: "h" },
      "allow-outside": { type: "boolean" },
    },
  })

/** The first-party codecs `--codec` knows by name: the package, and the namespace with `make`. */
const firstParty: Readonly<Record<string, { readonly pkg: string; readonly namespace: string }>> = {
  openai: { pkg: "@svir/openai-codec", namespace: "OpenAiCodec" },
  anthropic: { pkg: "@svir/anthropic", namespace: "AnthropicCodec" },
  "openai-responses": { pkg: "@svir/openai-responses", namespace: "ResponsesCodec" },
}

const isMissing = (cause: unknown, specifier: string): boolean =>
  (cause as { code?: unknown } | undefined)?.code === "ERR_MODULE_NOT_FOUND" &&
  String((cause as { message?: unknown }).message).includes(specifier)

const importModule = (codec: string, specifier: string, missing: string) =>
  Effect.tryPromise({
    try: (): Promise<unknown> => import(specifier),
    catch: (cause) =>
      new CodecLoadError({
        codec,
        message: isMissing(cause, specifier)
          ? missing
          : (cause as { code?: unknown } | undefined)?.code === "ERR_UNKNOWN_FILE_EXTENSION"
            ? `cannot load ${specifier}: node runs JavaScript; build the codec, or start the command with a TypeScript loader (node --import tsx)`
            : `cannot load ${specifier}: ${cause instanceof Error ? cause.message : String(cause)}`,
      }),
  })

const factoryIn = (value: unknown): unknown => (value as { make?: unknown } | undefined)?.make

/**
 * A module's `make`: its own export, its default export's, or that of the one namespace it
 * exports with a `make` (a barrel such as `export * as MyCodec from "./MyCodec.js"`). Several
 * such namespaces give a string saying which, to name in the error.
 */
const factoryOf = (module: unknown): unknown => {
  const own = factoryIn(module) ?? factoryIn((module as { default?: unknown }).default)
  if (own !== undefined) return own
  const namespaces = Object.entries(module as object).filter(
    ([, value]) => typeof factoryIn(value) === "function",
  )
  const [only] = namespaces
  if (namespaces.length === 1 && only !== undefined) return factoryIn(only[1])
  return namespaces.length === 0
    ? undefined
    : `several exports have one (${namespaces.map(([name]) => name).join(", ")}); export make itself`
}

/**
 * Loads the codec factory named on the command line: `openai` imports `@svir/openai-codec`,
 * `anthropic` imports `@svir/anthropic` and `openai-responses` imports `@svir/openai-responses`;
 * any other value is the path of a module (from `cwd`)
 * that exports `make(options)`.
 *
 * @since 0.2.0
 * @category loading
 */
export const loadCodec = (
  codec: string,
  cwd: string = process.cwd(),
): Effect.Effect<Runner.MakeCodec, CodecLoadError> =>
  Effect.suspend(() => {
    const named = Object.hasOwn(firstParty, codec) ? firstParty[codec] : undefined
    const path = resolve(cwd, codec)
    if (named === undefined && !existsSync(path)) {
      return Effect.fail(new CodecLoadError({ codec, message: `no codec module at ${path}` }))
    }
    const specifier = named === undefined ? pathToFileURL(path).href : named.pkg
    const missing = `--codec ${codec} needs ${specifier}, which is not installed: install it, or pass --codec ./your-codec.js`
    return Effect.flatMap(importModule(codec, specifier, missing), (module) => {
      const make =
        named === undefined
          ? factoryOf(module)
          : factoryIn((module as Record<string, unknown>)[named.namespace])
      return typeof make === "function"
        ? Effect.succeed(make as Runner.MakeCodec)
        : Effect.fail(
            new CodecLoadError({
              codec,
              message: `${specifier} exports no ${named === undefined ? "make" : `${named.namespace}.make`} function${typeof make === "string" ? `: ${make}` : ""}`,
            }),
          )
    })
  })

/**
 * Runs the command: prints one line per failed check and the counts, and gives the exit status
 * (0 all passed, 1 a check failed, 2 a usage error, a codec not loaded, or a case file missing
 * or malformed, with its message on standard error).
 *
 * @since 0.2.0
 * @category running
 */
export const main = (args: ReadonlyArray<string>): Effect.Effect<number> =>
  Effect.gen(function* () {
    const command = yield* parse(args)
    if (command.help) {
      yield* Console.log(usage)
      return 0
    }
    const makeCodec = yield* loadCodec(command.codec)
    const suite = command.cases === undefined ? undefined : Suites.of(command.cases)
    const report = yield* CaseFiles.run(makeCodec, suite?.paths ?? command.paths, {
      modes: command.modes,
      allowOutside: command.allowOutside,
      ...(suite !== undefined ? { root: suite.root } : {}),
    })
    if (report.results.length === 0) {
      yield* Console.error(`no case has an expectation in ${command.modes?.join(", ")} mode`)
      return 2
    }
    for (const result of report.results) {
      if (result.notRun !== undefined) yield* Console.log(Runner.formatNotRun(result))
      else if (!result.passed) yield* Console.log(Runner.formatFailure(result))
    }
    yield* Console.log(Runner.formatCounts(report))
    return report.failed === 0 ? 0 : 1
  }).pipe(
    Effect.catchTags({
      UsageError: (error) => Effect.as(Console.error(`${error.message}\n\n${usage}`), 2),
      CodecLoadError: (error) => Effect.as(Console.error(error.message), 2),
      CaseError: (error) => Effect.as(Console.error(`${error.source}: ${error.message}`), 2),
    }),
  )
