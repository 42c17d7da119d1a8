/**
 * The conformance case format: one JSON file holds one case or an array of cases. Each case gives
 * one input (`sse`, `chunks`, `hex`, `json` or a `recording` file), the codec options, and the
 * expected outcome in the case's mode (`expect`) and, optionally, in lenient mode
 * (`expect_lenient`).
 *
 * Pure: it loads in a browser or a Worker. Reading case files and recordings from disk is
 * `CaseFiles`, in the entry `@svir/conformance/node`.
 *
 * @since 0.2.0
 * @module
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { isHex } from "./internal/hex.js"
import * as Notation from "./Notation.js"

/**
 * The mode a codec runs in: `strict` (unknown wire shapes are errors) or `lenient`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Mode = Schema.Literals(["strict", "lenient"])

/**
 * @since 0.2.0
 * @category models
 */
export type Mode = typeof Mode.Type

/**
 * An error kind as cases write it: the snake_case of core's `SvirError.Kind`
 * (`TruncatedStream` is `truncated_stream`).
 *
 * @since 0.2.0
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
  "attachment",
])

/**
 * @since 0.2.0
 * @category models
 */
export type ErrorKind = typeof ErrorKind.Type

/**
 * Why a completion finished, as core's `Completion.FinishReason`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Finish = Schema.Literals(["stop", "tool_calls", "length", "content_filter", "refusal"])

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * An expected call: `id` of `"*"` means any non-empty id; `arguments` given as an array means any
 * of those strings. A field left out is not checked.
 *
 * @since 0.2.0
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
 * @since 0.2.0
 * @category models
 */
export type ExpectedCall = typeof ExpectedCall.Type

/**
 * Expected usage: the counts given are checked, the others are not.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ExpectedUsage = Schema.Struct({
  input: Schema.optionalKey(NonNegativeInt),
  output: Schema.optionalKey(NonNegativeInt),
  total: Schema.optionalKey(NonNegativeInt),
  reasoning: Schema.optionalKey(NonNegativeInt),
  /** Input tokens read from the server's prompt cache (`Completion.Usage.cachedInput`). @since 0.2.0 */
  cached_input: Schema.optionalKey(NonNegativeInt),
})

/**
 * The reasoning that came under one source, as `Completion.Reasoning`: `{source, text}`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ExpectedReasoning = Schema.Struct({ source: Schema.String, text: Schema.String })

/**
 * @since 0.2.0
 * @category models
 */
export type ExpectedReasoning = typeof ExpectedReasoning.Type

/**
 * The expected completion. A field left out is not checked; `usage: null` means the answer
 * carries no usage. `reasoning` is a string (compared with all the reasoning joined) or an array
 * of `{source, text}` (compared exactly with `reasoningBySource`).
 *
 * @since 0.2.0
 * @category schemas
 */
export const ExpectedCompletion = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  model: Schema.optionalKey(Schema.String),
  text: Schema.optionalKey(Schema.String),
  reasoning: Schema.optionalKey(Schema.Union([Schema.String, Schema.Array(ExpectedReasoning)])),
  refusal: Schema.optionalKey(Schema.String),
  finish: Schema.optionalKey(Finish),
  calls: Schema.optionalKey(Schema.Array(ExpectedCall)),
  usage: Schema.optionalKey(Schema.NullOr(ExpectedUsage)),
})

/**
 * @since 0.2.0
 * @category models
 */
export type ExpectedCompletion = typeof ExpectedCompletion.Type

/**
 * What an answer delivered before its error: the text deltas and the reasoning deltas, each
 * joined. A field left out is not checked.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ExpectedPartial = Schema.Struct({
  text: Schema.optionalKey(Schema.String),
  reasoning: Schema.optionalKey(Schema.String),
})

/**
 * Per chunk of a `chunks` case fed as given: whether that push delivered a non-empty text or
 * reasoning delta.
 *
 * @since 0.2.0
 * @category schemas
 */
export const VisibleByChunk = Schema.Array(Schema.Boolean)

/**
 * An expected outcome: `{"ok": {...}}` or `{"error": KIND}`. An expected error also means no
 * calls were released; it may add `partial` (what was delivered before it) and `message` (the
 * error's `serverMessage`, compared exactly). Either may add `visible_by_chunk`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Expectation = Schema.Union([
  Schema.Struct({ ok: ExpectedCompletion, visible_by_chunk: Schema.optionalKey(VisibleByChunk) }),
  Schema.Struct({
    error: ErrorKind,
    partial: Schema.optionalKey(ExpectedPartial),
    message: Schema.optionalKey(Schema.String),
    visible_by_chunk: Schema.optionalKey(VisibleByChunk),
  }),
])

/**
 * @since 0.2.0
 * @category models
 */
export type Expectation = typeof Expectation.Type

/**
 * The options of a case: `mode` (strict when left out) and any other codec option by name.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Options = Schema.StructWithRest(Schema.Struct({ mode: Schema.optionalKey(Mode) }), [
  Schema.Record(Schema.String, Schema.Unknown),
])

/**
 * The options a codec factory receives: the case's `options`, with `mode` always set.
 *
 * @since 0.2.0
 * @category models
 */
export interface CaseOptions {
  readonly mode: Mode
  readonly [option: string]: unknown
}

/**
 * A line ending the input is fed with: `lf` as written, or `crlf` (every LF turned into CRLF).
 *
 * @since 0.2.0
 * @category schemas
 */
export const LineEnding = Schema.Literals(["lf", "crlf"])

/**
 * @since 0.2.0
 * @category models
 */
export type LineEnding = typeof LineEnding.Type

/**
 * A case that keeps another outcome than the reference implementation on purpose: `decision`
 * names the numbered decision that says why (`"openai-codec D16"`), `svir` says in a few words
 * what the reference implementation gives instead.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Departure = Schema.Struct({
  decision: Schema.NonEmptyString,
  svir: Schema.NonEmptyString,
})

/**
 * @since 0.2.0
 * @category models
 */
export type Departure = typeof Departure.Type

const inputKeys = ["sse", "chunks", "hex", "json", "recording"] as const

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

const unique = <A>(values: ReadonlyArray<A>): boolean => new Set(values).size === values.length

const visibleByChunk = (expect: Expectation | "same" | undefined) =>
  expect !== undefined && expect !== "same" && expect.visible_by_chunk !== undefined

/**
 * The problem of a decoder case that the schema of each field cannot see: the one input, the
 * fields that go with some inputs only.
 */
const caseProblem = (input: {
  readonly [key: string]: unknown
  readonly options?: { readonly mode?: Mode } | undefined
  readonly expect: Expectation
  readonly expect_lenient?: Expectation | "same" | undefined
}) => {
  const given = inputKeys.filter((key) => input[key] !== undefined)
  if (given.length !== 1) {
    return `a case needs exactly one input of sse, chunks, hex, json, recording; found ${given.length === 0 ? "none" : given.join(", ")}`
  }
  if (input.expect_lenient !== undefined && input.options?.mode === "lenient") {
    return { path: ["expect_lenient"], issue: "expect_lenient is for a case run in strict mode" }
  }
  for (const key of ["replace", "cut_before"]) {
    if (input[key] !== undefined && input.recording === undefined) {
      return { path: [key], issue: `${key} goes with a recording input only` }
    }
  }
  for (const key of ["line_endings", "strides"]) {
    if (input[key] !== undefined && input.json !== undefined) {
      return { path: [key], issue: `${key} has no meaning for a json input, which is not streamed` }
    }
  }
  if (
    input.chunks === undefined &&
    (visibleByChunk(input.expect) || visibleByChunk(input.expect_lenient))
  ) {
    return "visible_by_chunk goes with a chunks input only: it is checked per chunk as given"
  }
  return undefined
}

/** What every case says of itself, of either kind. */
const describing = {
  name: Schema.NonEmptyString,
  why: Schema.optionalKey(Schema.String),
  from: Schema.optionalKey(Schema.NonEmptyString),
  departs: Schema.optionalKey(Departure),
}

/**
 * One conformance case of a decoder, as written in a file.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Case = Schema.Struct({
  ...describing,
  sse: Schema.optionalKey(Schema.String),
  chunks: Schema.optionalKey(Schema.Array(Schema.String)),
  hex: Schema.optionalKey(
    Schema.String.check(Schema.makeFilter(isHex, { message: "hex must be pairs of hex digits" })),
  ),
  json: Schema.optionalKey(
    Schema.Union([Schema.String, Schema.Record(Schema.String, Schema.Unknown)]),
  ),
  recording: Schema.optionalKey(Schema.NonEmptyString),
  replace: Schema.optionalKey(
    Schema.Array(Schema.Tuple([Schema.NonEmptyString, Schema.String])).check(Schema.isMinLength(1)),
  ),
  cut_before: Schema.optionalKey(Schema.NonEmptyString),
  line_endings: Schema.optionalKey(
    Schema.Array(LineEnding).check(
      Schema.isMinLength(1),
      Schema.makeFilter(unique, { message: "each line ending once" }),
    ),
  ),
  strides: Schema.optionalKey(
    Schema.Array(PositiveInt).check(
      Schema.isMinLength(1),
      Schema.makeFilter(unique, { message: "each stride once" }),
    ),
  ),
  options: Schema.optionalKey(Options),
  expect: Expectation,
  expect_lenient: Schema.optionalKey(Schema.Union([Expectation, Schema.Literal("same")])),
}).check(Schema.makeFilter(caseProblem))

/**
 * @since 0.2.0
 * @category models
 */
export type Case = typeof Case.Type

/**
 * How an encoder case encodes: `lean` (leave out the optional fields), `send_reasoning` and
 * `context_tokens` (set on the request), and `block_bytes` (the block sizes to read attachments
 * from disk in; an encoder that has them in memory has no blocks, so the runner does not read it).
 *
 * @since 0.2.0
 * @category schemas
 */
export const EncoderOptions = Schema.Struct({
  lean: Schema.optionalKey(Schema.Boolean),
  send_reasoning: Schema.optionalKey(Schema.Boolean),
  context_tokens: Schema.optionalKey(Schema.Number),
  block_bytes: Schema.optionalKey(Schema.Array(PositiveInt).check(Schema.isMinLength(1))),
})

/**
 * The expected outcome of an encoder case: the body as JSON (`{"body": ...}`, object key order
 * not compared), or the error kind encoding fails with.
 *
 * @since 0.2.0
 * @category schemas
 */
export const EncoderExpectation = Schema.Union([
  Schema.Struct({ body: Schema.Unknown }),
  Schema.Struct({ error: ErrorKind }),
])

/**
 * @since 0.2.0
 * @category models
 */
export type EncoderExpectation = typeof EncoderExpectation.Type

/** An image part must name an image attachment, a file part a file attachment. */
const attachmentProblem = (input: {
  readonly request: Notation.Request
  readonly attachments?: Readonly<Record<string, Notation.Attachment>> | undefined
}) => {
  for (const [i, message] of input.request.messages.entries()) {
    for (const [j, part] of message.parts.entries()) {
      const [kind, key] =
        "image" in part ? ["image", part.image] : "file" in part ? ["file", part.file] : []
      if (kind === undefined || key === undefined) continue
      const attachment = input.attachments?.[key]
      const path = ["request", "messages", i, "parts", j, kind]
      if (attachment === undefined) return { path, issue: `no attachment ${key}` }
      if ((kind === "image") !== (attachment.media_type !== undefined)) {
        return {
          path,
          issue: `attachment ${key} is ${kind === "image" ? "a file (name)" : "an image (media_type)"}`,
        }
      }
    }
  }
  return undefined
}

/**
 * One conformance case of an encoder: a request in the neutral notation ({@link Notation}), the
 * attachments its parts name, how to encode, and the expected body or error.
 *
 * @since 0.2.0
 * @category schemas
 */
export const EncoderCase = Schema.Struct({
  ...describing,
  request: Notation.Request,
  attachments: Schema.optionalKey(Schema.Record(Schema.String, Notation.Attachment)),
  options: Schema.optionalKey(EncoderOptions),
  expect: EncoderExpectation,
}).check(Schema.makeFilter(attachmentProblem))

/**
 * @since 0.2.0
 * @category models
 */
export type EncoderCase = typeof EncoderCase.Type

/**
 * A case of either kind: a decoder case (an input) or an encoder case (a `request`).
 *
 * @since 0.2.0
 * @category models
 */
export type AnyCase = Case | EncoderCase

/**
 * Whether a case is an encoder case.
 *
 * @since 0.2.0
 * @category guards
 */
export const isEncoderCase = (c: AnyCase): c is EncoderCase => "request" in c

/**
 * A file's content: one case or an array of cases, of either kind. A case with a `request` is
 * read as an encoder case, any other as a decoder case.
 *
 * @since 0.2.0
 * @category schemas
 */
export const File = Schema.Union([
  Case,
  EncoderCase,
  Schema.Array(Schema.Union([Case, EncoderCase])),
])

/**
 * A case and where it came from: a file path, or `<value N>` for a case given as a value.
 * `folder` is where paths in the case are read from: the case file's folder, or the working
 * directory for a value. `recording` is the text of a `recording` input, read from its file with
 * `replace` and `cut_before` applied by `CaseFiles` (`@svir/conformance/node`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Loaded {
  readonly source: string
  readonly case: AnyCase
  /** @since 0.2.0 */
  readonly folder?: string | undefined
  /** @since 0.2.0 */
  readonly recording?: string | undefined
}

/**
 * A case file or value that could not be read: `source` says which, `message` what is wrong.
 *
 * @since 0.2.0
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
 * A `recording` is a file and is not read here: `CaseFiles.decode` of `@svir/conformance/node`
 * reads it; a case whose recording was not read is reported by the runner as broken.
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
 * @since 0.2.0
 * @category decoding
 */
export const decode = (
  source: string,
  json: unknown,
): Effect.Effect<ReadonlyArray<Loaded>, CaseError> => {
  const elements: ReadonlyArray<unknown> = Array.isArray(json) ? json : [json]
  if (elements.length === 0) return Effect.fail(new CaseError({ source, message: "no cases" }))
  const cases: Array<AnyCase> = []
  const problems: Array<string> = []
  for (const [i, element] of elements.entries()) {
    const decoded = decodeOne(element)
    if (Result.isSuccess(decoded)) cases.push(decoded.success)
    else {
      const issue = Array.isArray(json)
        ? new SchemaIssue.Pointer([i], decoded.failure)
        : decoded.failure
      problems.push(formatIssue(issue))
    }
  }
  if (problems.length > 0) {
    return Effect.fail(new CaseError({ source, message: problems.join("\n") }))
  }
  return Effect.succeed(cases.map((c) => ({ source, case: c })))
}

/**
 * A case value of either kind, as a file writes it.
 *
 * @since 0.2.0
 * @category models
 */
export type Value = typeof Case.Encoded | typeof EncoderCase.Encoded

const parseOptions = { errors: "all", onExcessProperty: "error" } as const

/** One case: an encoder case when it has a `request`, a decoder case otherwise. */
const decodeOne = (json: unknown): Result.Result<AnyCase, SchemaIssue.Issue> => {
  const encoderCase = typeof json === "object" && json !== null && "request" in json
  const decoded: Result.Result<AnyCase, { readonly issue: SchemaIssue.Issue }> = encoderCase
    ? Schema.decodeUnknownResult(EncoderCase)(json, parseOptions)
    : Schema.decodeUnknownResult(Case)(json, parseOptions)
  return Result.mapError(decoded, (error) => error.issue)
}

/**
 * The options a case's codec is made with in a mode: the case's options with `mode` set.
 *
 * @since 0.2.0
 * @category accessors
 */
export const optionsFor = (c: Case, mode: Mode): CaseOptions => ({ ...c.options, mode })
