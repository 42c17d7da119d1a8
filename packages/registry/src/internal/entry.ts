import { IdempotencyKey, type Tool, ToolCall, ToolResult } from "@svir/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import type { StandardSchemaV1 } from "effect/StandardSchema"
import * as Arguments from "../Arguments.js"
import { nullsAsAbsent, unknownKeys } from "./jsonSchema.js"
import { jsonNumbersOnly } from "./schemaAst/jsonNumbers.js"
import { plainStructCheck } from "./schemaAst/quickCheck.js"

/**
 * What a handler may give back: text, a JSON value, or either one later (a Promise) or through an
 * Effect.
 */
export type Output = string | number | boolean | null | object

/** The outcome of decoding: a Result at once, or an Effect when decoding has to wait. */
type Decoded<A, R> =
  | Result.Result<A, ToolCall.ArgumentsError>
  | Effect.Effect<A, ToolCall.ArgumentsError, R>

export interface Decoder<A, R> {
  readonly jsonSchema: Tool.JsonSchema
  /** Decodes the JSON value read from `argumentsText`, whose length bounds what is reported. */
  readonly decode: (json: unknown, argumentsText: string) => Decoded<A, R>
}

/**
 * A tool's reply to a call: its result given at once, or an Effect that gives it. Handlers that
 * answer synchronously (most of them) never enter the Effect runtime: that is what keeps a
 * registry call near a direct call.
 */
export type Reply<R> = ToolResult.ToolResult | Effect.Effect<ToolResult.ToolResult, never, R>

/** One registered tool: its description and how a call of it is answered. */
export interface Entry<R> {
  readonly tool: Tool.Tool
  readonly answer: (call: ToolCall.ToolCall) => Reply<R>
  /** Whether the tool is offered now; absent when it always is. */
  readonly visible?: Effect.Effect<boolean, never, R> | undefined
}

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

const closed = { onExcessProperty: "error" } as const

const fromSchema = <S extends Schema.Top>(
  schema: S,
  jsonSchema: Tool.JsonSchema,
): Decoder<S["Type"], S["DecodingServices"]> => {
  const codec = Schema.toCodecJson(
    Schema.make<S>(jsonNumbersOnly(schema.ast)),
  ) as unknown as Schema.Decoder<S["Type"], S["DecodingServices"]>
  const decodeNow = Schema.decodeUnknownExit(codec as Schema.Decoder<S["Type"]>, closed)
  const decodeLater = Schema.decodeUnknownEffect(codec, closed)
  const invalid = (error: Schema.SchemaError) =>
    ToolCall.standardArgumentsError(formatIssue(error.issue).issues)
  const fits = plainStructCheck(schema.ast)
  return {
    jsonSchema,
    decode: (json, argumentsText) => {
      if (fits?.(json)) return Result.succeed(json)
      // Every issue of small arguments, the first of large ones: reporting costs what reading does.
      const report = ToolCall.decodeOptions(argumentsText)
      let exit: Exit.Exit<S["Type"], Schema.SchemaError>
      try {
        exit = decodeNow(json, report)
      } catch {
        return Effect.mapError(decodeLater(json, report), invalid)
      }
      if (Exit.isSuccess(exit)) return Result.succeed(exit.value)
      const error = exit.cause.reasons[0]
      if (exit.cause.reasons.length === 1 && error?._tag === "Fail") {
        return Result.fail(invalid(error.error))
      }
      // A schema that needs services or waits cannot decode at once: decode it as an Effect.
      return Effect.mapError(decodeLater(json, report), invalid)
    },
  }
}

const fromStandard = <A>(
  schema: Arguments.StandardArguments<A>,
  jsonSchema: Tool.JsonSchema,
): Decoder<A, never> => {
  // A Standard Schema may drop keys the JSON Schema it gives refuses (zod's objects do): the keys
  // are refused here, as the model was told (R1).
  const unknown = unknownKeys(jsonSchema)
  const outcome = (
    json: unknown,
    done: StandardSchemaV1.Result<A>,
  ): Result.Result<A, ToolCall.ArgumentsError> => {
    const extra = unknown?.(json) ?? []
    if (extra.length === 0 && done.issues === undefined) return Result.succeed(done.value)
    return Result.fail(ToolCall.standardArgumentsError([...extra, ...(done.issues ?? [])]))
  }
  return {
    jsonSchema,
    decode: (json) => {
      const result = schema["~standard"].validate(json)
      if (!(result instanceof Promise)) return outcome(json, result)
      return Effect.flatMap(
        Effect.promise(() => result),
        (settled) => Effect.fromResult(outcome(json, settled)),
      )
    },
  }
}

export const decoderOf = <S extends Arguments.ArgumentsSchema>(
  schema: S,
  jsonSchema?: Tool.JsonSchema,
): Decoder<Arguments.Type<S>, Arguments.Services<S>> =>
  (Schema.isSchema(schema)
    ? fromSchema(schema, jsonSchema ?? Arguments.jsonSchema(schema))
    : fromStandard(
        schema as Arguments.StandardArguments<unknown>,
        jsonSchema ?? Arguments.standardJsonSchema(schema as Arguments.StandardArguments<unknown>),
      )) as Decoder<Arguments.Type<S>, Arguments.Services<S>>

export const rawJson: Decoder<unknown, never> = {
  jsonSchema: {},
  decode: (json) => Result.succeed(json),
}

/** The text of an error a handler failed with, for the model to read. */
const messageOf = (error: unknown): string => {
  if (typeof error === "string") return error
  if (typeof error === "object" && error !== null) {
    if ("message" in error && typeof error.message === "string" && error.message !== "") {
      return error.message
    }
    if ("_tag" in error && typeof error._tag === "string") return error._tag
    if (error instanceof Error) return error.name
  }
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    return String(error)
  }
}

const written = (call: ToolCall.ToolCall, value: unknown): ToolResult.ToolResult => {
  if (typeof value === "string") return ToolResult.make(call.id, value)
  if (value === undefined) return ToolResult.make(call.id, "")
  try {
    const text = JSON.stringify(value)
    if (typeof text === "string") return ToolResult.make(call.id, text)
  } catch {
    // A value JSON cannot hold (a bigint, a cycle): the model gets the message below.
  }
  return ToolResult.error(
    call.id,
    `tool ${call.name} returned a value that cannot be written as JSON`,
  )
}

const ignore = () => {}

const isPromiseLike = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && "then" in u && typeof u.then === "function"

/** What a handler is given besides its arguments and its call. */
export interface HandlerOptions {
  /** Aborted when the call is stopped: its timeout passed, or it was interrupted. */
  readonly signal: AbortSignal
  /** The call's `IdempotencyKey.Current` when the handler was called; `undefined` for none. */
  readonly idempotencyKey: string | undefined
}

/**
 * The options of one call. The key is that of the services of the fiber that calls the handler,
 * kept as they are then (a Context does not change), since a Promise handler may read it after
 * that fiber has moved on; it is looked up only when read, as most handlers never do. The
 * AbortController is made when a handler first reads `signal`: one costs microseconds, more than
 * a whole call of a handler that answers at once (R5).
 */
class CallHandlerOptions implements HandlerOptions {
  private readonly context = Fiber.getCurrent()?.context
  get idempotencyKey(): string | undefined {
    return this.context === undefined
      ? undefined
      : Context.get(this.context, IdempotencyKey.Current)
  }
  private controller: AbortController | undefined = undefined
  private stopped = false
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController()
      if (this.stopped) this.controller.abort()
    }
    return this.controller.signal
  }
  stop(): void {
    this.stopped = true
    this.controller?.abort()
  }
}

export type Handler<A, E, R> = (
  args: A,
  call: ToolCall.ToolCall,
  options: HandlerOptions,
) => Output | PromiseLike<Output> | Effect.Effect<Output, E, R>

const answer = <A, E, R>(handler: Handler<A, E, R>, args: A, call: ToolCall.ToolCall): Reply<R> => {
  const options = new CallHandlerOptions()
  let output: ReturnType<Handler<A, E, R>>
  try {
    output = handler(args, call, options)
  } catch (defect) {
    return Effect.die(defect)
  }
  if (Effect.isEffect(output)) {
    return Effect.match(output as Effect.Effect<Output, E, R>, {
      onFailure: (error) => ToolResult.error(call.id, messageOf(error)),
      onSuccess: (value) => written(call, value),
    })
  }
  if (isPromiseLike(output)) {
    const pending = output
    // Stopping the call (its timeout, an interruption) stops the wait at once and aborts the
    // signal; what the promise gives later is dropped, a rejection included (R5). The fiber that
    // called the handler can be interrupted before it starts to wait: then its end does this.
    const stop = () => {
      options.stop()
      Promise.resolve(pending).catch(ignore)
    }
    const forget = Fiber.getCurrent()?.addObserver(stop)
    return Effect.map(
      Effect.onExit(
        Effect.promise(() => pending),
        (exit) =>
          Effect.sync(() => {
            forget?.()
            if (Exit.isFailure(exit)) stop()
          }),
      ),
      (value) => written(call, value),
    )
  }
  return written(call, output)
}

const invalidArguments = (call: ToolCall.ToolCall, error: ToolCall.ArgumentsError) =>
  ToolResult.error(call.id, `invalid arguments: ${error.message}`, "invalid_arguments")

/** Makes the entry of a tool whose arguments the decoder reads before the handler sees them. */
export const make = <A, R, E, R2>(
  tool: Tool.Tool,
  decoder: Decoder<A, R>,
  handler: Handler<A, E, R2>,
): Entry<R | R2> => {
  const clean = nullsAsAbsent(decoder.jsonSchema)
  return {
    tool,
    answer: (call) => {
      // Core's bound on nesting; text that is not JSON, or blank, gets core's answer: where it
      // broke, or `{}`.
      const read = ToolCall.readJson(call.arguments)
      if (Result.isFailure(read)) return invalidArguments(call, read.failure)
      const json = read.success
      const decoded = decoder.decode(clean === undefined ? json : clean(json), call.arguments)
      if (Effect.isEffect(decoded)) {
        return Effect.matchEffect(decoded, {
          onFailure: (error) => Effect.succeed(invalidArguments(call, error)),
          onSuccess: (args) => toEffect(answer(handler, args, call)),
        })
      }
      return Result.isSuccess(decoded)
        ? answer(handler, decoded.success, call)
        : invalidArguments(call, decoded.failure)
    },
  }
}

/** A reply as an Effect. */
export const toEffect = <R>(reply: Reply<R>): Effect.Effect<ToolResult.ToolResult, never, R> =>
  Effect.isEffect(reply) ? reply : Effect.succeed(reply)
