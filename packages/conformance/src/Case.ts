/**
 * The conformance case format: one JSON file holds one case or an array of cases. Each case gives
 * one input (`sse`, `chunks`, `hex` or `json`), the codec options, and the expected outcome in
 * the case's mode (`expect`) and, optionally, in lenient mode (`expect_lenient`).
 *
 * @since 0.1.0
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { Data, Effect, Result, Schema, SchemaIssue } from "effect"

/**
 * The mode a codec runs in: `strict` (unknown wire shapes are errors) or `lenient`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Mode = Schema.Literals(["strict", "lenient"])

/**
 * @since 0.1.0
 * @category models
 */
export type Mode = typeof Mode.Type

/**
 * An error kind as cases write it: the snake_case of core's `SvirError.Kind`
 * (`TruncatedStream` is `truncated_stream`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorKind = Schema.Literals([
  "unsupported",
  "truncated_stream",
  "protocol",
  "server",
  "context_overflow",
  "content_filter",
  "response_limit",
  "transport",
  "timeout",
  "rate_limited",
  "authentication",
  "config",
])

/**
 * @since 0.1.0
 * @category models
 */
export type ErrorKind = typeof ErrorKind.Type

/**
 * Why a completion finished, as core's `Completion.FinishReason`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Finish = Schema.Literals(["stop", "tool_calls", "length", "content_filter", "refusal"])

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * An expected call: `id` of `"*"` means any non-empty id; `arguments` given as an array means any
 * of those strings. A field left out is not checked.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ExpectedCall = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  name: Schema.String,
  arguments: Schema.optionalKey(
    Schema.Union([Schema.String, Schema.Array(Schema.String).check(Schema.isMinLength(1))]),
  ),
})

/**
 * @since 0.1.0
 * @category models
 */
export type ExpectedCall = typeof ExpectedCall.Type

/**
 * Expected usage: the counts given are checked, the others are not.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ExpectedUsage = Schema.Struct({
  input: Schema.optionalKey(NonNegativeInt),
  output: Schema.optionalKey(NonNegativeInt),
  total: Schema.optionalKey(NonNegativeInt),
  reasoning: Schema.optionalKey(NonNegativeInt),
})

/**
 * The expected completion. A field left out is not checked; `usage: null` means the answer
 * carries no usage.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ExpectedCompletion = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  model: Schema.optionalKey(Schema.String),
  text: Schema.optionalKey(Schema.String),
  reasoning: Schema.optionalKey(Schema.String),
  refusal: Schema.optionalKey(Schema.String),
  finish: Schema.optionalKey(Finish),
  calls: Schema.optionalKey(Schema.Array(ExpectedCall)),
  usage: Schema.optionalKey(Schema.NullOr(ExpectedUsage)),
})

/**
 * @since 0.1.0
 * @category models
 */
export type ExpectedCompletion = typeof ExpectedCompletion.Type

/**
 * An expected outcome: `{"ok": {...}}` or `{"error": KIND}`. An expected error also means no
 * calls were released.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Expectation = Schema.Union([
  Schema.Struct({ ok: ExpectedCompletion }),
  Schema.Struct({ error: ErrorKind }),
])

/**
 * @since 0.1.0
 * @category models
 */
export type Expectation = typeof Expectation.Type

/**
 * The options of a case: `mode` (strict when left out) and any other codec option by name.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Options = Schema.StructWithRest(Schema.Struct({ mode: Schema.optionalKey(Mode) }), [
  Schema.Record(Schema.String, Schema.Unknown),
])

/**
 * The options a codec factory receives: the case's `options`, with `mode` always set.
 *
 * @since 0.1.0
 * @category models
 */
export interface CaseOptions {
  readonly mode: Mode
  readonly [option: string]: unknown
}

const inputKeys = ["sse", "chunks", "hex", "json"] as const

const isHex = (text: string): boolean => /^(?:[0-9a-fA-F]{2})*$/.test(text.replace(/\s+/g, ""))

/**
 * One conformance case, as written in a file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Case = Schema.Struct({
  name: Schema.NonEmptyString,
  why: Schema.optionalKey(Schema.String),
  sse: Schema.optionalKey(Schema.String),
  chunks: Schema.optionalKey(Schema.Array(Schema.String)),
  hex: Schema.optionalKey(
    Schema.String.check(Schema.makeFilter(isHex, { message: "hex must be pairs of hex digits" })),
  ),
  json: Schema.optionalKey(
    Schema.Union([Schema.String, Schema.Record(Schema.String, Schema.Unknown)]),
  ),
  options: Schema.optionalKey(Options),
  expect: Expectation,
  expect_lenient: Schema.optionalKey(Schema.Union([Expectation, Schema.Literal("same")])),
}).check(
  Schema.makeFilter((input) => {
    const given = inputKeys.filter((key) => input[key] !== undefined)
    if (given.length !== 1) {
      return `a case needs exactly one input of sse, chunks, hex, json; found ${given.length === 0 ? "none" : given.join(", ")}`
    }
    if (input.expect_lenient !== undefined && input.options?.mode === "lenient") {
      return { path: ["expect_lenient"], issue: "expect_lenient is for a case run in strict mode" }
    }
    return undefined
  }),
)

/**
 * @since 0.1.0
 * @category models
 */
export type Case = typeof Case.Type

/**
 * A file's content: one case or an array of cases.
 *
 * @since 0.1.0
 * @category schemas
 */
export const File = Schema.Union([Case, Schema.Array(Case)])

/**
 * A case and where it came from: a file path, or `<value N>` for a case given as a value.
 *
 * @since 0.1.0
 * @category models
 */
export interface Loaded {
  readonly source: string
  readonly case: Case
}

/**
 * A case file or value that could not be read: `source` says which, `message` what is wrong.
 *
 * @since 0.1.0
 * @category errors
 */
export class CaseError extends Data.TaggedError("CaseError")<{
  readonly source: string
  readonly message: string
}> {}

const formatIssue = SchemaIssue.makeFormatterDefault()

/**
 * Checks a JSON value against the format: the cases it holds, or a {@link CaseError} naming
 * `source` and every problem found. Unknown keys are errors, so a misspelt key is not ignored.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Case } from "@svir/conformance"
 *
 * const cases = Case.decode("inline", {
 *   name: "plain-text",
 *   sse: "text Hi\nend stop\n",
 *   expect: { ok: { text: "Hi", finish: "stop" } },
 * })
 * Effect.runSync(cases)[0]?.case.name // "plain-text"
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (
  source: string,
  json: unknown,
): Effect.Effect<ReadonlyArray<Loaded>, CaseError> => {
  const decoded = Schema.decodeUnknownResult(File)(json, {
    errors: "all",
    onExcessProperty: "error",
  })
  if (Result.isFailure(decoded)) {
    return Effect.fail(new CaseError({ source, message: formatIssue(decoded.failure.issue) }))
  }
  const cases: ReadonlyArray<Case> = Array.isArray(decoded.success)
    ? decoded.success
    : [decoded.success as Case]
  if (cases.length === 0) return Effect.fail(new CaseError({ source, message: "no cases" }))
  return Effect.succeed(cases.map((c) => ({ source, case: c })))
}

/**
 * Reads one case file.
 *
 * @since 0.1.0
 * @category decoding
 */
export const readFile = (path: string): Effect.Effect<ReadonlyArray<Loaded>, CaseError> =>
  Effect.suspend(() => {
    let text: string
    try {
      text = readFileSync(path, "utf8")
    } catch (cause) {
      return Effect.fail(
        new CaseError({ source: path, message: `cannot read: ${describe(cause)}` }),
      )
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (cause) {
      return Effect.fail(new CaseError({ source: path, message: `not JSON: ${describe(cause)}` }))
    }
    return decode(path, json)
  })

/**
 * Reads the cases of a file, or of every `.json` file below a folder, in path order. A folder
 * with no case file is an error: nothing is skipped silently.
 *
 * @since 0.1.0
 * @category decoding
 */
export const readPath = (path: string): Effect.Effect<ReadonlyArray<Loaded>, CaseError> =>
  Effect.suspend(() => {
    const files = caseFiles(path)
    if (Result.isFailure(files)) return Effect.fail(files.failure)
    return Effect.map(Effect.forEach(files.success, readFile), (each) => each.flat())
  })

/**
 * Where cases come from: a path (a file or a folder, from the working directory), a `file:` URL
 * (such as `new URL("./cases", import.meta.url)`), or a case value.
 *
 * @since 0.1.0
 * @category models
 */
export type Source = string | URL | typeof Case.Encoded

/**
 * Reads every source, in order: paths from disk, values checked against the format.
 *
 * @since 0.1.0
 * @category decoding
 */
export const load = (
  sources: ReadonlyArray<Source>,
): Effect.Effect<ReadonlyArray<Loaded>, CaseError> =>
  Effect.map(
    Effect.forEach(sources, (source, i) => {
      if (typeof source === "string") return readPath(source)
      if (source instanceof URL) {
        return source.protocol === "file:"
          ? readPath(fileURLToPath(source))
          : Effect.fail(new CaseError({ source: source.href, message: "only file: URLs are read" }))
      }
      return decode(`<value ${i}>`, source)
    }),
    (each) => each.flat(),
  )

/**
 * The options a case's codec is made with in a mode: the case's options with `mode` set.
 *
 * @since 0.1.0
 * @category accessors
 */
export const optionsFor = (c: Case, mode: Mode): CaseOptions => ({ ...c.options, mode })

const caseFiles = (path: string): Result.Result<ReadonlyArray<string>, CaseError> => {
  const absolute = resolve(path)
  try {
    if (!statSync(absolute).isDirectory()) return Result.succeed([path])
    const files = readdirSync(absolute, { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".json"))
      .sort()
      .map((name) => join(path, name))
    return files.length === 0
      ? Result.fail(new CaseError({ source: path, message: "no .json case files in this folder" }))
      : Result.succeed(files)
  } catch (cause) {
    return Result.fail(new CaseError({ source: path, message: `cannot read: ${describe(cause)}` }))
  }
}

const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message : String(cause)
