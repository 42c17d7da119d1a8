/**
 * Runs conformance cases against a codec. Every streamed case is fed at 1-byte, 3-byte and
 * whole-input chunks (and as given, for `chunks` cases); each chunking is checked against the
 * expectation, and the chunkings are checked against each other.
 *
 * @since 0.1.0
 */
import type { Codec } from "@svir/core"
import { Effect } from "effect"
import * as Case from "./Case.js"
import { compare, exactly, summarize } from "./internal/compare.js"
import {
  describeThrown,
  failedOutcome,
  type Outcome,
  responseOutcome,
  streamOutcome,
} from "./internal/outcome.js"

/**
 * Makes the codec under test for a case's options (`mode` is always set: the case's mode for
 * `expect`, `"lenient"` for `expect_lenient`).
 *
 * @since 0.1.0
 * @category models
 */
export type MakeCodec = (options: Case.CaseOptions) => Codec.Codec

/**
 * How a check fed the input: in chunks of 1 byte, of 3 bytes, all at once (`whole`), in the
 * case's own `chunks` (`as-given`), through `decodeResponse` for a `json` case (`response`); or
 * `agreement`, the check that every chunking gave the same outcome.
 *
 * @since 0.1.0
 * @category models
 */
export type Chunking = "1-byte" | "3-byte" | "whole" | "as-given" | "response" | "agreement"

/**
 * One check of a case: a mode and a chunking.
 *
 * @since 0.1.0
 * @category models
 */
export interface Check {
  readonly mode: Case.Mode
  readonly chunking: Chunking
}

/**
 * The result of one check. `diff` says, one line per difference, what was expected and what the
 * codec gave; it is empty when the check passed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Result extends Check {
  readonly case: string
  readonly source: string
  readonly passed: boolean
  readonly diff: ReadonlyArray<string>
}

/**
 * Every result, in case order, and the counts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly results: ReadonlyArray<Result>
  readonly passed: number
  readonly failed: number
}

/**
 * Options of {@link run}: `modes` keeps only the checks in those modes (both when left out).
 *
 * @since 0.1.0
 * @category models
 */
export interface RunOptions {
  readonly modes?: ReadonlyArray<Case.Mode> | undefined
}

const streamChunkings = (c: Case.Case): ReadonlyArray<Chunking> => {
  if (c.json !== undefined) return ["response"]
  const fed: ReadonlyArray<Chunking> = ["1-byte", "3-byte", "whole", "agreement"]
  return c.chunks === undefined ? fed : ["as-given", ...fed]
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
 * @since 0.1.0
 * @category accessors
 */
export const checks = (c: Case.Case, options: RunOptions = {}): ReadonlyArray<Check> =>
  keptModes(c, options).flatMap(({ mode }) =>
    streamChunkings(c).map((chunking) => ({ mode, chunking })),
  )

const encoder = new TextEncoder()

const inputBytes = (c: Case.Case): Uint8Array => {
  if (c.sse !== undefined) return encoder.encode(c.sse)
  if (c.chunks !== undefined) return encoder.encode(c.chunks.join(""))
  const hex = (c.hex ?? "").replace(/\s+/g, "")
  return Uint8Array.from({ length: hex.length / 2 }, (_, i) =>
    Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16),
  )
}

const split = (bytes: Uint8Array, size: number): ReadonlyArray<Uint8Array> =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
    bytes.subarray(i * size, (i + 1) * size),
  )

const chunksFor = (c: Case.Case, chunking: Chunking): ReadonlyArray<Uint8Array> => {
  if (chunking === "as-given") return (c.chunks ?? []).map((chunk) => encoder.encode(chunk))
  const bytes = inputBytes(c)
  if (chunking === "1-byte") return split(bytes, 1)
  if (chunking === "3-byte") return split(bytes, 3)
  return [bytes]
}

const responseBody = (json: NonNullable<Case.Case["json"]>): string =>
  typeof json === "string" ? json : JSON.stringify(json)

/** Gives the outcome of every chunking of one mode, or the one outcome if the codec was not made. */
const outcomesFor = (
  makeCodec: MakeCodec,
  c: Case.Case,
  mode: Case.Mode,
): Effect.Effect<ReadonlyArray<readonly [Chunking, Outcome]>> => {
  const chunkings = streamChunkings(c).filter((chunking) => chunking !== "agreement")
  let codec: Codec.Codec
  try {
    codec = makeCodec(Case.optionsFor(c, mode))
  } catch (cause) {
    // A factory that rejects the options with a SvirError gives that error as the outcome.
    const outcome = failedOutcome(cause, false)
    const made: Outcome =
      outcome._tag === "Broken"
        ? { _tag: "Broken", problem: `the codec factory threw ${describeThrown(cause)}` }
        : outcome
    return Effect.succeed(chunkings.map((chunking) => [chunking, made] as const))
  }
  if (c.json !== undefined) {
    return Effect.map(responseOutcome(codec, responseBody(c.json)), (outcome) => [
      ["response", outcome] as const,
    ])
  }
  return Effect.succeed(
    chunkings.map((chunking) => [chunking, streamOutcome(codec, chunksFor(c, chunking))] as const),
  )
}

/** What differs between the outcome of a chunking and that of the whole input. */
const disagreement = (
  whole: Outcome,
  other: Outcome,
  expected: Case.Expectation,
): ReadonlyArray<string> => {
  if (whole._tag === "Completed") return compare(exactly(whole, expected), other)
  const same =
    whole._tag === "Failed"
      ? other._tag === "Failed" && other.kind === whole.kind && other.released === whole.released
      : other._tag === "Broken" && other.problem === whole.problem
  return same ? [] : [`expected ${summarize(whole)}, actual ${summarize(other)}`]
}

const agreement = (
  outcomes: ReadonlyArray<readonly [Chunking, Outcome]>,
  expected: Case.Expectation,
): ReadonlyArray<string> => {
  const whole = outcomes.find(([chunking]) => chunking === "whole")?.[1]
  if (whole === undefined) return []
  return outcomes.flatMap(([chunking, outcome]) =>
    chunking === "whole"
      ? []
      : disagreement(whole, outcome, expected).map((line) => `${chunking} vs whole: ${line}`),
  )
}

/**
 * Runs one case: a result per check, in the order of {@link checks}. Never fails: a codec that
 * throws, dies or breaks the event contract gives failed results that say so.
 *
 * @since 0.1.0
 * @category running
 */
export const runCase = (
  makeCodec: MakeCodec,
  loaded: Case.Loaded,
  options: RunOptions = {},
): Effect.Effect<ReadonlyArray<Result>> => {
  const c = loaded.case
  const result = (check: Check, diff: ReadonlyArray<string>): Result => ({
    case: c.name,
    source: loaded.source,
    ...check,
    passed: diff.length === 0,
    diff,
  })
  return Effect.map(
    Effect.forEach(keptModes(c, options), ({ mode, expect }) =>
      Effect.map(outcomesFor(makeCodec, c, mode), (outcomes) => [
        ...outcomes.map(([chunking, outcome]) =>
          result({ mode, chunking }, compare(expect, outcome)),
        ),
        ...(c.json === undefined
          ? [result({ mode, chunking: "agreement" }, agreement(outcomes, expect))]
          : []),
      ]),
    ),
    (each) => each.flat(),
  )
}

/**
 * Loads the cases (files, folders or values) and runs them all. Fails only with a
 * {@link Case.CaseError} for a case file that is missing or malformed, before running anything.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Runner } from "@svir/conformance"
 * import { OpenAiCodec } from "@svir/openai-codec"
 *
 * const report = await Effect.runPromise(
 *   Runner.run((options) => OpenAiCodec.make(options), ["test/cases"]),
 * )
 * // how many checks failed: 0 when the codec does what every case expects
 * console.log(report.failed)
 * ```
 *
 * @since 0.1.0
 * @category running
 */
export const run = (
  makeCodec: MakeCodec,
  sources: ReadonlyArray<Case.Source>,
  options: RunOptions = {},
): Effect.Effect<Report, Case.CaseError> =>
  Effect.flatMap(Case.load(sources), (loaded) =>
    Effect.map(
      Effect.forEach(loaded, (one) => runCase(makeCodec, one, options)),
      (each) => toReport(each.flat()),
    ),
  )

/**
 * Counts results into a {@link Report}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toReport = (results: ReadonlyArray<Result>): Report => {
  const passed = results.filter((result) => result.passed).length
  return { results, passed, failed: results.length - passed }
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
 * @since 0.1.0
 * @category formatting
 */
export const formatFailure = (result: Result): string =>
  `FAIL ${result.case} [${result.mode}, ${result.chunking}] ${result.source}: ${result.diff.join("; ")}`

/**
 * The last line of a report: `N passed, M failed`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatCounts = (report: Report): string =>
  `${report.passed} passed, ${report.failed} failed`
