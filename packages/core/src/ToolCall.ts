/**
 * A call the model made.
 *
 * @since 0.2.0
 * @module
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaParser from "effect/SchemaParser"
import type { StandardSchemaV1 } from "effect/StandardSchema"
import { errorOffset } from "./internal/jsonSyntax.js"
import * as Json from "./Json.js"
import * as Text from "./Text.js"

/**
 * The longest tool name shown in a text: the longest name servers accept (64 characters).
 *
 * @since 0.2.0
 * @category models
 */
export const shownNameLimit = 64

/**
 * A name the model wrote, as a text for the model or a log shows it: cut at
 * {@link shownNameLimit} characters, so a call to a name of a megabyte is not answered with a
 * megabyte (decision D4).
 *
 * @example
 * ```ts
 * import { ToolCall } from "@svir/core"
 *
 * ToolCall.shownName("weather") // "weather"
 * ToolCall.shownName("x".repeat(1_000_000)).length // 65
 * ```
 *
 * @since 0.2.0
 * @category formatting
 */
export const shownName = (name: string): string => Text.shorten(name, shownNameLimit)

/**
 * A call the model made: its id, the tool's name, and the arguments as the raw JSON text the
 * model wrote.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/**
 * Makes a call. Arguments default to the empty string, which reads as `{}`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (id: string, name: string, args = ""): ToolCall => ({
  id,
  name,
  arguments: args,
})

/**
 * One thing wrong with a call's arguments: where (`path`, empty for the whole value) and what.
 *
 * @since 0.2.0
 * @category models
 */
export interface ArgumentsIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/**
 * Arguments that are not JSON, or that do not fit the schema. `message` lists the first few
 * issues in words a model can act on, each cut short, and counts the rest; `issues` holds the
 * ones listed. However large the arguments, the message stays a few KB at most.
 *
 * @since 0.2.0
 * @category errors
 */
export class ArgumentsError extends Data.TaggedError("ArgumentsError")<{
  readonly message: string
  readonly issues: ReadonlyArray<ArgumentsIssue>
}> {}

/** How many issues a message lists; the rest are counted. See DECISIONS.md, D2. */
const maxListedIssues = 5
/** How long an issue's message, or its path, may be in a message; longer ones are cut. */
const maxIssueChars = 200
const maxPathChars = 100

/**
 * Makes an {@link ArgumentsError} whose message lists the first five issues, each with its field
 * and cut to 200 characters, then says how many more there are.
 *
 * @example
 * ```ts
 * import { ToolCall } from "@svir/core"
 *
 * ToolCall.argumentsError([{ path: ["items", 2, "qty"], message: "Expected number" }]).message
 * // "items[2].qty: Expected number"
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const argumentsError = (issues: ReadonlyArray<ArgumentsIssue>): ArgumentsError =>
  listedArgumentsError(issues.slice(0, maxListedIssues), issues.length)

/**
 * Makes an {@link ArgumentsError} from the issues of a Standard Schema (zod, valibot, Effect
 * Schema, ...), bounded as {@link argumentsError} is.
 *
 * @since 0.2.0
 * @category constructors
 */
export const standardArgumentsError = (
  issues: ReadonlyArray<StandardSchemaV1.Issue>,
): ArgumentsError =>
  listedArgumentsError(
    issues.slice(0, maxListedIssues).map((issue) => ({
      path: (issue.path ?? []).map((segment) =>
        typeof segment === "object" ? segment.key : segment,
      ),
      message: issue.message,
    })),
    issues.length,
  )

const listedArgumentsError = (
  listed: ReadonlyArray<ArgumentsIssue>,
  total: number,
): ArgumentsError => {
  const shortened = listed.map((issue) => ({
    path: issue.path,
    message: preview(issue.message, maxIssueChars),
  }))
  const lines = shortened.map(describeIssue)
  if (total > listed.length) lines.push(`and ${total - listed.length} more`)
  return new ArgumentsError({ message: lines.join("; "), issues: shortened })
}

const describeIssue = (issue: ArgumentsIssue): string =>
  issue.path.length === 0
    ? issue.message
    : `${preview(formatPath(issue.path), maxPathChars)}: ${issue.message}`

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path
    .map((key, i) =>
      typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`,
    )
    .join("")

/** The text cut to `max` characters, ending with "…" when cut. */
const preview = (text: string, max: number): string =>
  text.length <= max ? text : Text.shorten(text, max - 1)

/**
 * Reads a JSON text as arguments: empty or blank text reads as `{}`; text that is not JSON gives
 * an error that says where it broke.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { ToolCall } from "@svir/core"
 *
 * ToolCall.readJson("") // Result.succeed({})
 * // fails: arguments are not valid JSON: unexpected "}" at line 1, column 8
 * ToolCall.readJson('{"id": }')
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const readJson = (text: string): Result.Result<unknown, ArgumentsError> => {
  // Deep nesting is refused before anything recursive walks it (DECISIONS.md, D1).
  const read = Json.parse(text)
  if (Result.isSuccess(read)) return Result.succeed(read.success)
  // Blank text is not JSON; it is looked for only then, since nearly every call has arguments.
  if (text.trim() === "") return Result.succeed({})
  const message =
    read.failure.reason === "TooDeep"
      ? `arguments nest deeper than ${Json.maxDepth} levels`
      : jsonProblem(text)
  return Result.fail(argumentsError([{ path: [], message }]))
}

/** Where the text broke and the 40 characters around it: a short message, whatever the text. */
const jsonProblem = (text: string): string => {
  const offset = errorOffset(text)
  let line = 1
  let lineStart = 0
  for (let at = text.indexOf("\n"); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) {
    line++
    lineStart = at + 1
  }
  const column = offset - lineStart + 1
  const found =
    offset >= text.length
      ? "the text ends"
      : `unexpected ${JSON.stringify(String.fromCodePoint(text.codePointAt(offset)!))}`
  const start = Math.max(0, offset - 20)
  // The start moves past the second half of a two-unit character, the end comes before its first.
  const from = start > 0 && (text.charCodeAt(start) & 0xfc00) === 0xdc00 ? start + 1 : start
  const near = `${start > 0 ? "…" : ""}${text.slice(from, Text.cutPoint(text, offset + 20))}`
  return `arguments are not valid JSON: ${found} at line ${line}, column ${column}, near ${JSON.stringify(near)}`
}

/**
 * The call's arguments as a JSON value (empty or blank arguments read as `{}`).
 *
 * @since 0.2.0
 * @category parsing
 */
export const parseJson = (call: ToolCall): Effect.Effect<unknown, ArgumentsError> =>
  Effect.fromResult(readJson(call.arguments))

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Arguments up to this many characters are decoded with every issue collected; longer ones stop
 * at the first issue. See DECISIONS.md, D2.
 */
const allIssuesUpTo = 16_384

/**
 * The options to decode a call's arguments with: every issue (with the value that broke it) for
 * arguments up to 16,384 characters, only the first above, so that a large wrong value costs no
 * more to report than to read.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ToolCall } from "@svir/core"
 *
 * const call = ToolCall.make("call_1", "sum", '{"items": [1, 2]}')
 * const json = JSON.parse(call.arguments)
 * Schema.decodeUnknownExit(Schema.Struct({ items: Schema.Array(Schema.Int) }))(
 *   json,
 *   ToolCall.decodeOptions(call.arguments),
 * )
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const decodeOptions = (argumentsText: string): SchemaAST.ParseOptions => ({
  errors: argumentsText.length <= allIssuesUpTo ? "all" : "first",
  reportInput: true,
})

/**
 * Decodes the call's arguments with a schema. Issues are reported each with its field: all of
 * them for arguments up to 16,384 characters, the first one for longer arguments (see
 * {@link decodeOptions}).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { ToolCall } from "@svir/core"
 *
 * const Lookup = Schema.Struct({ id: Schema.Int })
 * const call = ToolCall.make("call_1", "lookup", '{"id": 42}')
 * const program = ToolCall.parse(call, Lookup) // Effect<{ readonly id: number }, ArgumentsError>
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const parse = <S extends Schema.Decoder<unknown, unknown>>(
  call: ToolCall,
  schema: S,
): Effect.Effect<S["Type"], ArgumentsError, S["DecodingServices"]> =>
  Effect.flatMap(parseJson(call), (json) =>
    // SchemaParser, not Schema: the same decoding without loading all of `effect/Schema`, which
    // weighs more than the rest of core (DECISIONS.md, D10).
    SchemaParser.decodeUnknownEffect(schema)(json, decodeOptions(call.arguments)).pipe(
      Effect.mapError((issue) => standardArgumentsError(formatIssue(issue).issues)),
    ),
  )
