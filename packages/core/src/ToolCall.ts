/**
 * A call the model made.
 *
 * @since 0.1.0
 */
import { Data, Effect, Result, Schema, SchemaIssue } from "effect"
import type { StandardSchemaV1 } from "effect/StandardSchema"
import { errorOffset } from "./internal/jsonSyntax.js"

/**
 * A call the model made: its id, the tool's name, and the arguments as the raw JSON text the
 * model wrote.
 *
 * @since 0.1.0
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
 * @since 0.1.0
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
 * @since 0.1.0
 * @category models
 */
export interface ArgumentsIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/**
 * Arguments that are not JSON, or that do not fit the schema. `message` lists every issue in
 * words a model can act on.
 *
 * @since 0.1.0
 * @category errors
 */
export class ArgumentsError extends Data.TaggedError("ArgumentsError")<{
  readonly message: string
  readonly issues: ReadonlyArray<ArgumentsIssue>
}> {}

/**
 * Makes an {@link ArgumentsError} whose message lists the issues, one per line, each with its
 * field.
 *
 * @since 0.1.0
 * @category constructors
 */
export const argumentsError = (issues: ReadonlyArray<ArgumentsIssue>): ArgumentsError =>
  new ArgumentsError({ message: issues.map(describeIssue).join("; "), issues })

/**
 * Makes an {@link ArgumentsError} from the issues of a Standard Schema (zod, valibot, Effect
 * Schema, ...).
 *
 * @since 0.1.0
 * @category constructors
 */
export const standardArgumentsError = (
  issues: ReadonlyArray<StandardSchemaV1.Issue>,
): ArgumentsError =>
  argumentsError(
    issues.map((issue) => ({
      path: (issue.path ?? []).map((segment) =>
        typeof segment === "object" ? segment.key : segment,
      ),
      message: issue.message,
    })),
  )

const describeIssue = (issue: ArgumentsIssue): string =>
  issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path
    .map((key, i) =>
      typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`,
    )
    .join("")

/**
 * Reads a JSON text as arguments: empty or blank text reads as `{}`; text that is not JSON gives
 * an error that says where it broke.
 *
 * @example
 * ```ts
 * import { ToolCall } from "@svir/core"
 *
 * ToolCall.readJson("") // Result.succeed({})
 * ToolCall.readJson('{"id": }') // fails: arguments are not valid JSON: unexpected "}" at line 1, column 8
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const readJson = (text: string): Result.Result<unknown, ArgumentsError> => {
  if (text.trim() === "") return Result.succeed({})
  try {
    return Result.succeed(JSON.parse(text))
  } catch {
    return Result.fail(argumentsError([{ path: [], message: jsonProblem(text) }]))
  }
}

const jsonProblem = (text: string): string => {
  const offset = errorOffset(text)
  const before = text.slice(0, offset)
  const line = before.split("\n").length
  const column = offset - before.lastIndexOf("\n")
  const found =
    offset >= text.length ? "the text ends" : `unexpected ${JSON.stringify(text[offset])}`
  const start = Math.max(0, offset - 20)
  const near = `${start > 0 ? "…" : ""}${text.slice(start, offset + 20)}`
  return `arguments are not valid JSON: ${found} at line ${line}, column ${column}, near ${JSON.stringify(near)}`
}

/**
 * The call's arguments as a JSON value (empty or blank arguments read as `{}`).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseJson = (call: ToolCall): Effect.Effect<unknown, ArgumentsError> =>
  Effect.fromResult(readJson(call.arguments))

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Decodes the call's arguments with a schema. Every issue is reported, each with its field.
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
 * @since 0.1.0
 * @category parsing
 */
export const parse = <S extends Schema.Decoder<unknown, unknown>>(
  call: ToolCall,
  schema: S,
): Effect.Effect<S["Type"], ArgumentsError, S["DecodingServices"]> =>
  Effect.flatMap(parseJson(call), (json) =>
    Schema.decodeUnknownEffect(schema)(json, { errors: "all", reportInput: true }).pipe(
      Effect.mapError((error) => standardArgumentsError(formatIssue(error.issue).issues)),
    ),
  )
