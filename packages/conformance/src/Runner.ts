/**
 * Runs conformance cases against a codec. Every streamed case is fed at strides of 1, 3 and 8192
 * bytes and whole (and as given, for `chunks` cases), with each of its line endings; each feeding
 * is checked against the expectation, and the feedings are checked against each other.
 *
 * @since 0.2.0
 * @module
 */
import { type Codec, type Message, Request, type SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Case from "./Case.js"
import { agreeing, compare, compareEncoded } from "./internal/compare.js"
import { hexBytes } from "./internal/hex.js"
import {
  describeThrown,
  type EncodeOutcome,
  encodeOutcome,
  type Fed,
  failedOutcome,
  type Outcome,
  responseOutcome,
  streamOutcome,
} from "./internal/outcome.js"
import * as Notation from "./Notation.js"

/**
 * Makes the codec under test for a case's options (`mode` is always set: the case's mode for
 * `expect`, `"lenient"` for `expect_lenient`).
 *
 * @since 0.2.0
 * @category models
 */
export type MakeCodec = (options: Case.CaseOptions) => Codec.Codec

/**
 * How a check fed the input: in pieces of a stride (`1-byte`, `3-byte`, `8192-byte`, or the
 * case's own `strides`), all at once (`whole`), in the case's own `chunks` (`as-given`), through
 * `decodeResponse` for a `json` case (`response`); `agreement`, the check that every feeding
 * gave the same outcome; or `encode`, the one check of an encoder case.
 *
 * @since 0.2.0
 * @category models
 */
export type Chunking = `${number}-byte` | "whole" | "as-given" | "response" | "agreement" | "encode"

/**
 * One check of a case: a mode, a chunking, and the line ending the input was fed with (named
 * only for a case that is not fed with LF alone).
 *
 * @since 0.2.0
 * @category models
 */
export interface Check {
  readonly mode: Case.Mode
  /** @since 0.2.0 */
  readonly lineEnding?: Case.LineEnding | undefined
  readonly chunking: Chunking
}

/**
 * The result of one check. `diff` says, one line per difference, what was expected and what the
 * codec gave; it is empty when the check passed. `notRun` says why a check was not run (it then
 * neither passed nor failed).
 *
 * @since 0.2.0
 * @category models
 */
export interface Result extends Check {
  readonly case: string
  readonly source: string
  readonly passed: boolean
  readonly diff: ReadonlyArray<string>
  /** @since 0.2.0 */
  readonly notRun?: string | undefined
}

/**
 * Every result, in case order, and the counts.
 *
 * @since 0.2.0
 * @category models
 */
export interface Report {
  readonly results: ReadonlyArray<Result>
  readonly passed: number
  readonly failed: number
  /** @since 0.2.0 */
  readonly notRun: number
}

/**
 * Turns an encoder case's attachment into the part its message carries, for a caller that can
 * put files on disk: `key` and `attachment` as the case gives them, `caseFolder` the folder of
 * the case file. Its error is the outcome of encoding.
 *
 * @since 0.2.0
 * @category models
 */
export type AttachmentResolver = (
  key: string,
  attachment: Notation.Attachment,
  caseFolder: string,
) => Effect.Effect<Message.Part, SvirError.SvirError>

/**
 * Options of {@link run}: `modes` keeps only the checks in those modes (both when left out);
 * `attachments` resolves the attachments of encoder cases (in memory when left out, and then a
 * case whose attachment declares a `declared_size` or an `escaped_len` is not run).
 *
 * @since 0.2.0
 * @category models
 */
export interface RunOptions {
  readonly modes?: ReadonlyArray<Case.Mode> | undefined
  /** @since 0.2.0 */
  readonly attachments?: AttachmentResolver | undefined
}

/**
 * The strides a streamed case is fed in when it gives no `strides` of its own.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultStrides: ReadonlyArray<number> = [1, 3, 8192]

/**
 * The line endings a case is fed with: its `line_endings`, or both LF and CRLF for a recording and
 * LF alone for any other input.
 *
 * @since 0.2.0
 * @category accessors
 */
export const lineEndings = (c: Case.Case): ReadonlyArray<Case.LineEnding> =>
  c.line_endings ?? (c.recording === undefined ? ["lf"] : ["lf", "crlf"])

/** The feedings of one line ending, in the order their checks come. */
const feedings = (c: Case.Case): ReadonlyArray<Chunking> => [
  ...(c.chunks === undefined ? [] : (["as-given"] as const)),
  ...(c.strides ?? defaultStrides).map((stride): Chunking => `${stride}-byte`),
  "whole",
]

/** Every feeding of a mode: a line ending (named when the case is not fed with LF alone) and a chunking. */
const feedChecks = (c: Case.Case, mode: Case.Mode): ReadonlyArray<Check> => {
  const endings = lineEndings(c)
  const named = endings.length > 1 || endings[0] !== "lf"
  return endings.flatMap((lineEnding) =>
    feedings(c).map((chunking) => (named ? { mode, lineEnding, chunking } : { mode, chunking })),
  )
}

const expectations = (
  c: Case.Case,
): ReadonlyArray<{ readonly mode: Case.Mode; readonly expect: Case.Expectation }> => {
  const mode = c.options?.mode ?? "strict"
  const lenient = c.expect_lenient
  return lenient === undefined
    ? [{ mode, expect: c.expect }]
    : [
        { mode, expect: c.expect },
        { mode: "lenient", expect: lenient === "same" ? c.expect : lenient },
      ]
}

const keptModes = (c: Case.Case, options: RunOptions) =>
  expectations(c).filter(({ mode }) => options.modes === undefined || options.modes.includes(mode))

/**
 * The checks a case gets, in the order {@link runCase} gives their results. Known without running
 * anything, so a test runner can name one test per check before it runs them.
 *
 * @since 0.2.0
 * @category accessors
 */
export const checks = (c: Case.AnyCase, options: RunOptions = {}): ReadonlyArray<Check> => {
  if (Case.isEncoderCase(c)) return keepsStrict(options) ? [encodeCheck] : []
  return keptModes(c, options).flatMap(
    ({ mode }): ReadonlyArray<Check> =>
      c.json === undefined
        ? [...feedChecks(c, mode), { mode, chunking: "agreement" }]
        : [{ mode, chunking: "response" }],
  )
}

/** An encoder case runs once, in strict mode. */
const encodeCheck: Check = { mode: "strict", chunking: "encode" }

const keepsStrict = (options: RunOptions) =>
  options.modes === undefined || options.modes.includes("strict")

/**
 * A check as failure lines and test names show it: `strict, 3-byte`, or `strict, crlf, 3-byte`
 * for a case fed with more than LF.
 *
 * @since 0.2.0
 * @category formatting
 */
export const label = (check: Check): string =>
  [check.mode, check.lineEnding, check.chunking].filter((part) => part !== undefined).join(", ")

const encoder = new TextEncoder()

/** A loaded decoder case. */
type LoadedDecoderCase = Case.Loaded & { readonly case: Case.Case }

const inputBytes = (loaded: LoadedDecoderCase): Uint8Array => {
  const c = loaded.case
  if (c.sse !== undefined) return encoder.encode(c.sse)
  if (c.chunks !== undefined) return encoder.encode(c.chunks.join(""))
  if (c.recording !== undefined) return encoder.encode(loaded.recording ?? "")
  return hexBytes(c.hex ?? "")
}

const LF = 0x0a
const CR = 0x0d

/** The bytes with every LF turned into CRLF (a CR already before it included). */
const toCrlf = (bytes: Uint8Array): Uint8Array => {
  const out: Array<number> = []
  for (const byte of bytes) {
    if (byte === LF) out.push(CR)
    out.push(byte)
  }
  return Uint8Array.from(out)
}

const split = (bytes: Uint8Array, size: number): ReadonlyArray<Uint8Array> =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
    bytes.subarray(i * size, (i + 1) * size),
  )

const chunksFor = (loaded: LoadedDecoderCase, check: Check): ReadonlyArray<Uint8Array> => {
  const ending = check.lineEnding === "crlf" ? toCrlf : (bytes: Uint8Array) => bytes
  if (check.chunking === "as-given") {
    return (loaded.case.chunks ?? []).map((chunk) => ending(encoder.encode(chunk)))
  }
  const bytes = ending(inputBytes(loaded))
  if (check.chunking === "whole") return [bytes]
  return split(bytes, Number.parseInt(check.chunking, 10))
}

const responseBody = (json: NonNullable<Case.Case["json"]>): string =>
  typeof json === "string" ? json : JSON.stringify(json)

/** One feeding of a mode and what it gave. */
interface Feeding {
  readonly check: Check
  readonly fed: Fed
}

/** Gives the outcome of every feeding of one mode, or the one outcome if the codec was not made. */
const outcomesFor = (
  makeCodec: MakeCodec,
  loaded: LoadedDecoderCase,
  mode: Case.Mode,
): Effect.Effect<ReadonlyArray<Feeding>> => {
  const c = loaded.case
  const fed = c.json === undefined ? feedChecks(c, mode) : [{ mode, chunking: "response" as const }]
  const all = (outcome: Outcome) => fed.map((check) => ({ check, fed: { outcome, visible: [] } }))
  if (c.recording !== undefined && loaded.recording === undefined) {
    return Effect.succeed(
      all({
        _tag: "Broken",
        problem:
          "the recording was not read: load the case with CaseFiles (@svir/conformance/node)",
      }),
    )
  }
  let codec: Codec.Codec
  try {
    codec = makeCodec(Case.optionsFor(c, mode))
  } catch (cause) {
    // A factory that rejects the options with a SvirError gives that error as the outcome.
    const outcome = failedOutcome(cause, false)
    return Effect.succeed(
      all(
        outcome._tag === "Broken"
          ? { _tag: "Broken", problem: `the codec factory threw ${describeThrown(cause)}` }
          : outcome,
      ),
    )
  }
  if (c.json !== undefined) {
    return Effect.map(responseOutcome(codec, responseBody(c.json)), (outcome) => all(outcome))
  }
  return Effect.succeed(
    fed.map((check) => ({ check, fed: streamOutcome(codec, chunksFor(loaded, check)) })),
  )
}

/** Every feeding against the first `whole` one: the same outcome, whatever the chunks. */
const agreement = (
  feedingsOfMode: ReadonlyArray<Feeding>,
  expected: Case.Expectation,
): ReadonlyArray<string> => {
  const reference = feedingsOfMode.find(({ check }) => check.chunking === "whole")
  if (reference === undefined) return []
  const name = (check: Check) =>
    check.lineEnding === undefined ? check.chunking : `${check.lineEnding} ${check.chunking}`
  return feedingsOfMode.flatMap(({ check, fed }) =>
    check === reference.check
      ? []
      : agreeing(reference.fed.outcome, fed.outcome, expected).map(
          (line) => `${name(check)} vs ${name(reference.check)}: ${line}`,
        ),
  )
}

/**
 * Runs one case: a result per check, in the order of {@link checks}. Never fails: a codec that
 * throws, dies or breaks the event contract gives failed results that say so.
 *
 * @since 0.2.0
 * @category running
 */
export const runCase = (
  makeCodec: MakeCodec,
  loaded: Case.Loaded,
  options: RunOptions = {},
): Effect.Effect<ReadonlyArray<Result>> => {
  const c = loaded.case
  if (Case.isEncoderCase(c)) {
    return keepsStrict(options) ? runEncoderCase(makeCodec, loaded, c, options) : Effect.succeed([])
  }
  return runDecoderCase(makeCodec, { ...loaded, case: c }, options)
}

const resultOf =
  (loaded: Case.Loaded) =>
  (check: Check, diff: ReadonlyArray<string>): Result => ({
    case: loaded.case.name,
    source: loaded.source,
    ...check,
    passed: diff.length === 0,
    diff,
  })

const runDecoderCase = (
  makeCodec: MakeCodec,
  loaded: LoadedDecoderCase,
  options: RunOptions,
): Effect.Effect<ReadonlyArray<Result>> => {
  const c = loaded.case
  const result = resultOf(loaded)
  return Effect.map(
    Effect.forEach(keptModes(c, options), ({ mode, expect }) =>
      Effect.map(outcomesFor(makeCodec, loaded, mode), (fed) => [
        ...fed.map(({ check, fed: { outcome, visible } }) =>
          result(
            check,
            compare(expect, outcome, check.chunking === "as-given" ? visible : undefined),
          ),
        ),
        ...(c.json === undefined
          ? [result({ mode, chunking: "agreement" }, agreement(fed, expect))]
          : []),
      ]),
    ),
    (each) => each.flat(),
  )
}

/** Why an encoder case cannot run without a resolver of attachments, if it cannot. */
const needsFiles = (c: Case.EncoderCase): string | undefined => {
  const declared = Object.entries(c.attachments ?? {}).filter(
    ([, attachment]) =>
      attachment.declared_size !== undefined || attachment.escaped_len !== undefined,
  )
  if (declared.length === 0) return undefined
  return `attachment ${declared.map(([key]) => key).join(", ")} declares what a file on disk holds (declared_size, escaped_len): run with an attachments resolver`
}

/** The request of an encoder case, with the case's options set on it. */
const caseRequest = (
  c: Case.EncoderCase,
  resolve: Notation.Resolve,
): Effect.Effect<Request.Request, SvirError.SvirError> =>
  Effect.map(Notation.toRequest(c.request, c.attachments, resolve), (request) => {
    const { send_reasoning, context_tokens } = c.options ?? {}
    const withReasoning =
      send_reasoning === undefined ? request : Request.sendReasoning(request, send_reasoning)
    return context_tokens === undefined
      ? withReasoning
      : Request.contextTokens(withReasoning, context_tokens)
  })

const runEncoderCase = (
  makeCodec: MakeCodec,
  loaded: Case.Loaded,
  c: Case.EncoderCase,
  options: RunOptions,
): Effect.Effect<ReadonlyArray<Result>> => {
  const result = resultOf(loaded)
  const resolver = options.attachments
  const notRun = resolver === undefined ? needsFiles(c) : undefined
  if (notRun !== undefined) {
    return Effect.succeed([{ ...result(encodeCheck, []), passed: false, notRun }])
  }
  let codec: Codec.Codec
  try {
    codec = makeCodec({ mode: "strict" })
  } catch (cause) {
    return Effect.succeed([
      result(encodeCheck, [`the codec factory threw ${describeThrown(cause)}`]),
    ])
  }
  // A case given as a value has no folder: its paths are read from the working directory.
  const folder = loaded.folder ?? "."
  const resolve: Notation.Resolve =
    resolver === undefined
      ? Notation.inMemory
      : (key, attachment) => resolver(key, attachment, folder)
  const encode = () =>
    Effect.flatMap(caseRequest(c, resolve), (request) =>
      codec.encode(request, { stream: true, lean: c.options?.lean === true }),
    )
  return Effect.map(encodeOutcome(encode), (outcome: EncodeOutcome) => [
    result(encodeCheck, compareEncoded(c.expect, outcome)),
  ])
}

/**
 * Checks case values against the format and runs them all. Fails only with a
 * {@link Case.CaseError} for a malformed case, before running anything. Case files, folders and
 * recordings on disk are read by `CaseFiles.run` of `@svir/conformance/node`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Runner } from "@svir/conformance"
 * import { OpenAiCodec } from "@svir/openai-codec"
 *
 * const report = await Effect.runPromise(
 *   Runner.run((options) => OpenAiCodec.make(options), [
 *     { name: "plain-text", sse: "text Hi\nend stop\n", expect: { ok: { text: "Hi" } } },
 *   ]),
 * )
 * // how many checks failed: 0 when the codec does what every case expects
 * console.log(report.failed)
 * ```
 *
 * @since 0.2.0
 * @category running
 */
export const run = (
  makeCodec: MakeCodec,
  cases: ReadonlyArray<Case.Value>,
  options: RunOptions = {},
): Effect.Effect<Report, Case.CaseError> =>
  Effect.flatMap(
    Effect.map(
      Effect.forEach(cases, (value, i) => Case.decode(`<value ${i}>`, value)),
      (each) => each.flat(),
    ),
    (loaded) => runLoaded(makeCodec, loaded, options),
  )

/**
 * Runs cases already checked against the format (by `Case.decode`, or read from disk by
 * `CaseFiles` of `@svir/conformance/node`).
 *
 * @since 0.2.0
 * @category running
 */
export const runLoaded = (
  makeCodec: MakeCodec,
  loaded: ReadonlyArray<Case.Loaded>,
  options: RunOptions = {},
): Effect.Effect<Report> =>
  Effect.map(
    Effect.forEach(loaded, (one) => runCase(makeCodec, one, options)),
    (each) => toReport(each.flat()),
  )

/**
 * Counts results into a {@link Report}.
 *
 * @since 0.2.0
 * @category constructors
 */
export const toReport = (results: ReadonlyArray<Result>): Report => {
  const passed = results.filter((result) => result.passed).length
  const notRun = results.filter((result) => result.notRun !== undefined).length
  return { results, passed, failed: results.length - passed - notRun, notRun }
}

/**
 * One line for a failed check: the case, its mode and chunking, where it came from, and the diff.
 *
 * @example
 * ```ts
 * import { Runner } from "@svir/conformance"
 *
 * declare const result: Runner.Result
 * Runner.formatFailure(result)
 * // FAIL text-split [strict, 3-byte] cases/text.json: text: expected "Hello", actual "Hel"
 * ```
 *
 * @since 0.2.0
 * @category formatting
 */
export const formatFailure = (result: Result): string =>
  `FAIL ${result.case} [${label(result)}] ${result.source}: ${result.diff.join("; ")}`

/**
 * One line for a check that was not run: the case, its check, where it came from, and why.
 *
 * @since 0.2.0
 * @category formatting
 */
export const formatNotRun = (result: Result): string =>
  `NOT RUN ${result.case} [${label(result)}] ${result.source}: ${result.notRun ?? ""}`

/**
 * The last line of a report: `N passed, M failed`, and `, K not run` when a check was not run.
 *
 * @since 0.2.0
 * @category formatting
 */
export const formatCounts = (report: Report): string =>
  `${report.passed} passed, ${report.failed} failed${report.notRun > 0 ? `, ${report.notRun} not run` : ""}`
