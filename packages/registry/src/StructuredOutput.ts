/**
 * Typed structured output: the answer's form given by an Effect Schema or a Standard Schema (zod
 * 4), sent as a strict JSON Schema response format, and the answer decoded to the schema's type,
 * or a typed error that says why it could not be.
 *
 * @since 0.2.0
 * @module
 */
import {
  type Completion,
  Json,
  JsonSchema,
  type Request,
  SvirError,
  Text,
  Tool,
  type ToolCall,
} from "@svir/core"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Arguments from "./Arguments.js"
import * as Entry from "./internal/entry.js"
import { nullsAsAbsent } from "./internal/jsonSchema.js"

/**
 * The form of an answer: the response format to set on a request (`Request.responseFormat`),
 * which asks for the strict JSON Schema of the schema with `strict: true`, and what making that
 * JSON Schema strict changed, for a log. Decode an answer with {@link decode}. `R` is the services
 * decoding needs.
 *
 * @since 0.2.0
 * @category models
 */
export interface StructuredOutput<A, R = never> {
  readonly name: string
  readonly responseFormat: Extract<Request.ResponseFormat, { readonly _tag: "JsonSchema" }>
  readonly changes: ReadonlyArray<JsonSchema.Change>
  /** Reads the text of an answer; used by {@link decode}. */
  readonly read: (text: string) => Effect.Effect<A, OutputError, R>
}

/**
 * The model refused to answer: `refusal` is its words (`Completion.refusal`), empty when only the
 * finish reason said so.
 *
 * @since 0.2.0
 * @category reasons
 */
export class Refused extends Data.TaggedClass("Refused")<{ readonly refusal: string }> {}

/**
 * The answer was cut by the output limit (finish reason `length`) before its JSON was whole.
 * `text` is what came.
 *
 * @since 0.2.0
 * @category reasons
 */
export class Truncated extends Data.TaggedClass("Truncated")<{ readonly text: string }> {}

/**
 * A content filter stopped the answer (finish reason `content_filter`).
 *
 * @since 0.2.0
 * @category reasons
 */
export class Filtered extends Data.TaggedClass("Filtered")<{ readonly text: string }> {}

/**
 * The answer is not JSON: no text at all (the model called tools, say), text that does not parse,
 * or JSON nested deeper than `Json.maxDepth`. `text` is the answer's text.
 *
 * @since 0.2.0
 * @category reasons
 */
export class NotJson extends Data.TaggedClass("NotJson")<{ readonly text: string }> {}

/**
 * The answer is JSON that does not fit the schema: `issues` says where and why (the first five),
 * `value` is the JSON read.
 *
 * @since 0.2.0
 * @category reasons
 */
export class Mismatch extends Data.TaggedClass("Mismatch")<{
  readonly value: unknown
  readonly issues: ReadonlyArray<ToolCall.ArgumentsIssue>
}> {}

/**
 * Why an answer could not be decoded.
 *
 * @since 0.2.0
 * @category models
 */
export type Reason = Refused | Truncated | Filtered | NotJson | Mismatch

/**
 * An answer that could not be decoded to the schema's type. `reason` says why, with its data;
 * match it with `Effect.catchReason("OutputError", "Refused", ...)`. `message` says it in words,
 * a few hundred characters at most.
 *
 * @since 0.2.0
 * @category errors
 */
export class OutputError extends Data.TaggedError("OutputError")<{
  readonly reason: Reason
  readonly message: string
}> {}

/** How much of an answer's text an error's message shows. */
const shownText = 120

const quoted = (text: string): string => JSON.stringify(Text.shorten(text, shownText))

const outputError = (reason: Reason, message: string): OutputError =>
  new OutputError({ reason, message })

/**
 * R9: one JSON Schema for the model, portable where it can be: `$ref`s are inlined unless they are
 * recursive (strict mode follows those), and then put in the strict form.
 */
const strictFormOf = (
  schema: Tool.JsonSchema,
): Effect.Effect<JsonSchema.Fitted, SvirError.SvirError> =>
  Effect.flatMap(
    Effect.orElseSucceed(JsonSchema.inline(schema), () => ({ schema, changes: [] })),
    (inlined) =>
      Effect.map(JsonSchema.strict(inlined.schema), (strict) => ({
        schema: strict.schema,
        changes: [...inlined.changes, ...strict.changes],
      })),
  )

/**
 * The form of an answer from an Effect Schema or a Standard Schema that also gives JSON Schema
 * (any zod 4 schema). Its JSON Schema is the one `Tools.add` makes for arguments, `$ref`s inlined
 * where they are not recursive, in the strict form (`JsonSchema.strict`): every property
 * required, an optional one taking `null` in its place (read back as left out), every object
 * closed. Fails with an Unsupported error when the name is not `^[a-zA-Z0-9_-]{1,64}$`, or the
 * JSON Schema cannot be strict (an answer that is not one object, a record, a tuple), saying
 * where and why.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Request } from "@svir/core"
 * import { StructuredOutput } from "@svir/registry"
 *
 * const City = Schema.Struct({
 *   name: Schema.String,
 *   country: Schema.String,
 *   population: Schema.optional(Schema.Int),
 * })
 *
 * const program = Effect.gen(function* () {
 *   const city = yield* StructuredOutput.make("city", City)
 *   const request = Request.make("gpt-4o-mini").pipe(
 *     Request.responseFormat(city.responseFormat),
 *     Request.user("The largest city of Japan?"),
 *   )
 *   return city.responseFormat.schema.required
 * })
 * Effect.runSync(program) // ["name", "country", "population"]
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = <S extends Arguments.ArgumentsSchema>(
  name: string,
  schema: S,
  options: { readonly description?: string | undefined } = {},
): Effect.Effect<StructuredOutput<Arguments.Type<S>, Arguments.Services<S>>, SvirError.SvirError> =>
  Effect.gen(function* () {
    const nameProblem = Tool.nameProblem(name)
    if (nameProblem !== undefined) {
      return yield* SvirError.make("Unsupported", nameProblem.replace("tool name", "output name"))
    }
    const decoder = yield* Effect.try({
      try: () => Entry.decoderOf(schema),
      catch: (cause) =>
        SvirError.make("Unsupported", `the output ${name} has a schema with no JSON Schema`, {
          cause,
        }),
    })
    const strict = yield* Effect.mapError(strictFormOf(decoder.jsonSchema), (error) =>
      SvirError.make("Unsupported", `the output ${name}: ${error.message}`),
    )
    // The strict form makes an optional property take null: null reads as left out (R9).
    const clean = nullsAsAbsent(decoder.jsonSchema)
    const read = (
      text: string,
    ): Effect.Effect<Arguments.Type<S>, OutputError, Arguments.Services<S>> => {
      if (text.trim() === "") {
        return Effect.fail(outputError(new NotJson({ text }), "the answer has no text"))
      }
      const parsed = Json.parse(text)
      if (Result.isFailure(parsed)) {
        return Effect.fail(
          outputError(
            new NotJson({ text }),
            `the answer is not JSON (${parsed.failure.message}): ${quoted(text)}`,
          ),
        )
      }
      const value = clean === undefined ? parsed.success : clean(parsed.success)
      const mismatch = (error: ToolCall.ArgumentsError) =>
        outputError(
          new Mismatch({ value: parsed.success, issues: error.issues }),
          `the answer does not fit the schema of ${name}: ${error.message}`,
        )
      const decoded = decoder.decode(value, text)
      return Effect.isEffect(decoded)
        ? Effect.mapError(decoded, mismatch)
        : Result.isSuccess(decoded)
          ? Effect.succeed(decoded.success)
          : Effect.fail(mismatch(decoded.failure))
    }
    return {
      name,
      responseFormat: {
        _tag: "JsonSchema",
        name,
        schema: strict.schema,
        ...(options.description !== undefined && { description: options.description }),
        strict: true,
      },
      changes: strict.changes,
      read,
    }
  })

/**
 * Decodes an answer to the schema's type. Fails with an {@link OutputError} whose reason says why
 * it could not: {@link Refused} (a refusal, or the finish reason `refusal`), {@link Truncated}
 * (finish `length`), {@link Filtered} (finish `content_filter`), {@link NotJson} (no text, or text
 * that is not JSON) or {@link Mismatch} (JSON that does not fit, each issue with its field).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Completion } from "@svir/core"
 * import { StructuredOutput } from "@svir/registry"
 *
 * const program = Effect.gen(function* () {
 *   const city = yield* StructuredOutput.make("city", Schema.Struct({ name: Schema.String }))
 *   const answer = Completion.make({ text: '{"name": "Tokyo"}', finish: "stop" })
 *   return yield* StructuredOutput.decode(city, answer)
 * })
 * Effect.runSync(program) // { name: "Tokyo" }
 * ```
 *
 * @since 0.2.0
 * @category decoding
 */
export const decode = <A, R>(
  output: StructuredOutput<A, R>,
  completion: Completion.Completion,
): Effect.Effect<A, OutputError, R> => {
  const { text, refusal, finish } = completion
  if (refusal !== "" || finish === "refusal") {
    return Effect.fail(
      outputError(
        new Refused({ refusal }),
        refusal === "" ? "the model refused to answer" : `the model refused: ${quoted(refusal)}`,
      ),
    )
  }
  if (finish === "length") {
    return Effect.fail(
      outputError(
        new Truncated({ text }),
        `the answer was cut by the output limit after ${text.length} characters, before its JSON was whole`,
      ),
    )
  }
  if (finish === "content_filter") {
    return Effect.fail(outputError(new Filtered({ text }), "a content filter stopped the answer"))
  }
  if (text.trim() === "" && completion.calls.length > 0) {
    const names = completion.calls.map((call) => call.name).join(", ")
    return Effect.fail(
      outputError(new NotJson({ text }), `the answer has no text: the model called ${names}`),
    )
  }
  return output.read(text)
}
