/**
 * A registry of tools and their handlers: a {@link Toolbox.Toolbox} you build by chaining.
 *
 * @since 0.2.0
 * @module
 */
import {
  GenAi,
  Json,
  SvirError,
  Text,
  Tool,
  Toolbox,
  type ToolCall,
  type ToolResult,
} from "@svir/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Result from "effect/Result"
import * as Arguments from "./Arguments.js"
import * as Entry from "./internal/entry.js"
import {
  answerOf,
  fromEntries,
  isTools as isToolsValue,
  type Registry,
} from "./internal/registry.js"

/**
 * A registry of tools: what each is for, the JSON Schema of its arguments, and the handler that
 * answers its calls. `R` is the services the handlers need; it cannot answer a call until the
 * caller provides them. Immutable: every function here returns a new registry.
 *
 * @since 0.2.0
 * @category models
 */
export interface Tools<R = never> extends Registry<R> {}

/**
 * What a handler may give back. A string is the text the model reads; a number, boolean, `null`,
 * object or array is written as JSON. A handler may give it at once, as a Promise, or as an
 * Effect; an Effect that fails gives a failed result whose content is the error's message.
 *
 * @since 0.2.0
 * @category models
 */
export type Output = Entry.Output

/**
 * What a handler is given besides its arguments and its call. `signal` is aborted when the call
 * is stopped (its timeout passed, or the caller interrupted it), so that a handler that returns a
 * Promise can stop its work: pass it on to `fetch` and the like. The call's result never waits
 * for the Promise after that.
 *
 * `idempotencyKey` is the call's `IdempotencyKey.Current` from `@svir/core`, read when the
 * handler is called: a durable run (`@svir/workflow`) sets the same key each time it runs one
 * call again after a crash, so a handler with an effect on the world (a payment, an email) can
 * pass it on and have that effect once. `undefined` when the caller set none.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Tools } from "@svir/registry"
 *
 * const Page = Schema.Struct({ url: Schema.String })
 *
 * const tools = Tools.empty.pipe(
 *   Tools.add("page", "Fetch a web page.", Page, async ({ url }, _call, { signal }) => {
 *     const response = await fetch(url, { signal })
 *     return response.text()
 *   }),
 * )
 * ```
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Tools } from "@svir/registry"
 *
 * const Refund = Schema.Struct({ order: Schema.String })
 *
 * const tools = Tools.empty.pipe(
 *   Tools.add("refund", "Refund an order.", Refund, async ({ order }, _call, options) => {
 *     const headers: Record<string, string> = { "content-type": "application/json" }
 *     if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey
 *     const response = await fetch("https://payments.example/refunds", {
 *       method: "POST",
 *       headers,
 *       body: JSON.stringify({ order }),
 *       signal: options.signal,
 *     })
 *     return response.status === 200 ? "refunded" : `refund failed: ${response.status}`
 *   }),
 * )
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type HandlerOptions = Entry.HandlerOptions

/**
 * A handler: the decoded arguments, the call they came with, and {@link HandlerOptions}, to an
 * {@link Output}.
 *
 * @since 0.2.0
 * @category models
 */
export type Handler<A, E = never, R = never> = Entry.Handler<A, E, R>

/**
 * Whether a value is a {@link Tools} registry.
 *
 * @since 0.2.0
 * @category guards
 */
export const isTools: (u: unknown) => u is Tools<unknown> = isToolsValue

/**
 * The registry with no tools, where every chain starts.
 *
 * @since 0.2.0
 * @category constructors
 */
export const empty: Tools<never> = fromEntries(new Map())

const withEntry = <R, R2>(self: Tools<R>, entry: Entry.Entry<R2>): Tools<R | R2> => {
  const entries = new Map<string, Entry.Entry<R | R2>>(self.entries)
  entries.set(entry.tool.name, entry)
  return fromEntries(entries)
}

/**
 * What `Tools.add` says, in place of a schema's type, of a schema whose arguments are not an
 * object: a compile error names this key (R7).
 *
 * @since 0.2.0
 * @category models
 */
export interface NotAnObject {
  readonly "Tools.add: the arguments must be an object, as OpenAI's function parameters are: describe them with Schema.Struct or z.object, one field each": never
}

/**
 * `unknown` when a schema's arguments are an object, else {@link NotAnObject}: `Tools.add` takes
 * `S & ObjectArguments<S>`, so `Schema.String` or `z.array(...)` does not compile (R7).
 *
 * @since 0.2.0
 * @category models
 */
export type ObjectArguments<S> =
  Arguments.Type<S> extends ReadonlyArray<unknown>
    ? NotAnObject
    : Arguments.Type<S> extends object
      ? unknown
      : NotAnObject

/** The schema a root `$ref` names (`Schema.Struct` with an identifier gives one), or the root. */
const rootOf = (schema: Tool.JsonSchema): { readonly [key: string]: unknown } => {
  const match = typeof schema.$ref === "string" && /^#\/\$defs\/([^/]+)$/.exec(schema.$ref)
  const definitions = schema.$defs
  if (!match || !Json.isObject(definitions)) return schema
  const target = definitions[match[1]!]
  return Json.isObject(target) ? target : schema
}

/** R7: why the JSON Schema of a tool's arguments is not one object, or `undefined` when it is. */
const notAnObject = (name: string, schema: Tool.JsonSchema): string | undefined => {
  const root = rootOf(schema)
  if (root.type === "object") return undefined
  const what =
    "anyOf" in root || "oneOf" in root
      ? "a union (anyOf), not one object: make it one struct with a field that says which case"
      : `of ${root.type === undefined ? "no type" : `type ${JSON.stringify(root.type)}`}, not an object: describe the arguments with Schema.Struct or z.object, one field each`
  return `the tool ${name} cannot be registered: OpenAI's function parameters must be an object (type "object"), and the schema of its arguments is ${what}`
}

/** R7: a tool whose arguments are not an object: listing the tools dies, with why. */
const refused = (tool: Tool.Tool, message: string): Entry.Entry<never> => {
  const error = SvirError.make("Config", message)
  return { tool, visible: Effect.die(error), answer: () => Effect.die(error) }
}

/**
 * Adds a tool whose arguments are described by a schema: an Effect Schema, or a Standard Schema
 * that also gives JSON Schema (any zod 4 schema). The JSON Schema the model sees and the decoding
 * of the arguments come from that one schema. Arguments that do not fit never reach the handler:
 * the model gets `invalid arguments: ...`, naming each field. A name already registered is
 * replaced.
 *
 * The arguments must be an object, as OpenAI's function parameters are: a schema whose type is not
 * an object (`Schema.String`, `z.array(...)`) does not compile, naming {@link NotAnObject}; one
 * whose JSON Schema is not one object all the same (a union of structs, which is `anyOf`) makes
 * listing the tools die with a `Config` error that says why (R7).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Tools } from "@svir/registry"
 *
 * const Convert = Schema.Struct({
 *   amount: Schema.Finite.annotate({ description: "The amount to convert." }),
 *   from: Schema.String.annotate({ description: "The currency to convert from." }),
 *   to: Schema.String.annotate({ description: "The currency to convert to." }),
 * })
 *
 * const tools = Tools.empty.pipe(
 *   Tools.add("convert", "Convert an amount between currencies.", Convert, (args) =>
 *     `${args.amount} ${args.from} is about ${args.amount} ${args.to}`,
 *   ),
 * )
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const add: {
  <S extends Arguments.ArgumentsSchema, E = never, R2 = never>(
    name: string,
    description: string,
    schema: S & ObjectArguments<S>,
    handler: Handler<Arguments.Type<S>, E, R2>,
  ): <R>(self: Tools<R>) => Tools<R | R2 | Arguments.Services<S>>
  <R, S extends Arguments.ArgumentsSchema, E = never, R2 = never>(
    self: Tools<R>,
    name: string,
    description: string,
    schema: S & ObjectArguments<S>,
    handler: Handler<Arguments.Type<S>, E, R2>,
  ): Tools<R | R2 | Arguments.Services<S>>
} = dual(
  5,
  <R, S extends Arguments.ArgumentsSchema, E, R2>(
    self: Tools<R>,
    name: string,
    description: string,
    schema: S,
    handler: Handler<Arguments.Type<S>, E, R2>,
  ): Tools<R | R2 | Arguments.Services<S>> => {
    const decoder = Entry.decoderOf(schema)
    const tool = Tool.make(name, description, decoder.jsonSchema)
    const problem = notAnObject(name, decoder.jsonSchema)
    return withEntry(
      self,
      problem === undefined ? Entry.make(tool, decoder, handler) : refused(tool, problem),
    )
  },
)

/**
 * Adds a tool described by hand (svir's `add_tool`). With a handler alone, the handler receives
 * the arguments as the JSON value the model wrote (`{}` when it wrote nothing), and checks them
 * itself. With a schema too, the arguments are decoded with it first, while the model still sees
 * the tool's own JSON Schema. A tool that takes no arguments needs no schema. A name already
 * registered is replaced.
 *
 * @example
 * ```ts
 * import { Tool } from "@svir/core"
 * import { Schema } from "effect"
 * import { Tools } from "@svir/registry"
 *
 * const lookup = Tool.make("lookup", "Find an order by its number.", {
 *   type: "object",
 *   properties: { id: { type: "integer", description: "The order number" } },
 *   required: ["id"],
 * })
 * const now = Tool.make("now", "The current time, UTC.")
 *
 * const tools = Tools.empty.pipe(
 *   Tools.addTool(lookup, Schema.Struct({ id: Schema.Int }), (args) => `order ${args.id} is shipped`),
 *   Tools.addTool(now, () => "2026-01-01T00:00:00Z"),
 * )
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const addTool: {
  <E = never, R2 = never>(
    tool: Tool.Tool,
    handler: Handler<unknown, E, R2>,
  ): <R>(self: Tools<R>) => Tools<R | R2>
  <S extends Arguments.ArgumentsSchema, E = never, R2 = never>(
    tool: Tool.Tool,
    schema: S,
    handler: Handler<Arguments.Type<S>, E, R2>,
  ): <R>(self: Tools<R>) => Tools<R | R2 | Arguments.Services<S>>
  <R, E = never, R2 = never>(
    self: Tools<R>,
    tool: Tool.Tool,
    handler: Handler<unknown, E, R2>,
  ): Tools<R | R2>
  <R, S extends Arguments.ArgumentsSchema, E = never, R2 = never>(
    self: Tools<R>,
    tool: Tool.Tool,
    schema: S,
    handler: Handler<Arguments.Type<S>, E, R2>,
  ): Tools<R | R2 | Arguments.Services<S>>
} = dual(
  (args) => isToolsValue(args[0]),
  (
    self: Tools<unknown>,
    tool: Tool.Tool,
    schemaOrHandler: Arguments.ArgumentsSchema | Handler<unknown, unknown, unknown>,
    handler?: Handler<unknown, unknown, unknown>,
  ): Tools<unknown> =>
    handler === undefined
      ? withEntry(
          self,
          Entry.make(tool, Entry.rawJson, schemaOrHandler as Handler<unknown, unknown, unknown>),
        )
      : withEntry(
          self,
          Entry.make(
            tool,
            Entry.decoderOf(schemaOrHandler as Arguments.ArgumentsSchema, tool.inputSchema),
            handler,
          ),
        ),
)

/**
 * One registry with the tools of both. Fails with core's `Toolbox.ToolClash`, naming every
 * clashing tool, when both offer a name: the error `Toolbox.combine` gives for the same mistake.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Tools } from "@svir/registry"
 *
 * declare const files: Tools.Tools
 * declare const notes: Tools.Tools
 * const both = Tools.merge(files, notes) // Effect<Tools, Toolbox.ToolClash>
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const merge: {
  <R2>(that: Tools<R2>): <R>(self: Tools<R>) => Effect.Effect<Tools<R | R2>, Toolbox.ToolClash>
  <R, R2>(self: Tools<R>, that: Tools<R2>): Effect.Effect<Tools<R | R2>, Toolbox.ToolClash>
} = dual(
  2,
  <R, R2>(self: Tools<R>, that: Tools<R2>): Effect.Effect<Tools<R | R2>, Toolbox.ToolClash> => {
    const names = [...that.entries.keys()].filter((name) => self.entries.has(name))
    if (names.length > 0) return Effect.fail(Toolbox.ToolClash.of(names))
    return Effect.succeed(
      fromEntries(new Map<string, Entry.Entry<R | R2>>([...self.entries, ...that.entries])),
    )
  },
)

/**
 * The names of the tools registered, whether offered now or not.
 *
 * @since 0.2.0
 * @category getters
 */
export const names = <R>(self: Tools<R>): ReadonlyArray<string> => [...self.entries.keys()]

/**
 * The tools to offer the model now (a permission policy may hide some). With `strict`, each
 * schema is in the form OpenAI's `strict: true` requires (see {@link Arguments.strict}), and each
 * tool asks for it, so the Chat Completions codec sends `"strict": true`.
 *
 * @since 0.2.0
 * @category getters
 */
export const definitions = <R>(
  self: Tools<R>,
  options: { readonly strict?: boolean | undefined } = {},
): Effect.Effect<ReadonlyArray<Tool.Tool>, never, R> =>
  options.strict === true
    ? Effect.map(self.tools, (tools) =>
        tools.map((tool) => ({
          ...tool,
          inputSchema: Arguments.strict(tool.inputSchema),
          strict: true,
        })),
      )
    : self.tools

/**
 * Bounds on answering calls.
 *
 * - `timeout`: a call that takes longer is stopped and gets a failed result that says so. More
 *   than zero; 60 seconds (core's `Toolbox.defaultTimeout`) when left out; `Infinity` for no
 *   timeout. A handler that answers at once is never stopped.
 * - `maxOutput`: content longer than this many characters is cut, and the cut is marked at the
 *   end so the model knows it did not see everything. A whole number, 0 or more, or `Infinity`.
 * - `concurrency` (for {@link callAll}): how many calls run at once; results keep the order of
 *   the calls. One at a time by default. A whole number, 1 or more, or `Infinity`.
 *
 * An option that is none of these (`NaN`, a negative number, a fraction where a count is meant, a
 * text that is not a duration) is a mistake in the program, not in the model's call: the call
 * dies with a `SvirError` of kind `Config` naming the option, when it runs (R4).
 *
 * @since 0.2.0
 * @category models
 */
export interface CallOptions {
  readonly timeout?: Duration.Input | undefined
  readonly maxOutput?: number | undefined
  readonly concurrency?: number | undefined
}

/** The options, checked: core's timeout (infinite for none) and concurrency, and `maxOutput`. */
interface Bounds extends Toolbox.Bounds {
  readonly maxOutput: number | undefined
}

const boundsOf = (options: CallOptions): Result.Result<Bounds, SvirError.SvirError> => {
  const { maxOutput } = options
  if (
    maxOutput !== undefined &&
    !(maxOutput === Number.POSITIVE_INFINITY || (Number.isSafeInteger(maxOutput) && maxOutput >= 0))
  ) {
    return Result.fail(
      SvirError.make(
        "Config",
        `maxOutput must be a whole number of characters, 0 or more, or Infinity; got ${maxOutput}`,
      ),
    )
  }
  return Result.map(Toolbox.bounds(options), (checked) => ({ ...checked, maxOutput }))
}

/** Core's time limit switched off: where the registry's own bound is already around the call. */
const untimed: Toolbox.CallOptions = { timeout: Duration.infinity }

const truncated = (result: ToolResult.ToolResult, maxOutput: number): ToolResult.ToolResult => {
  const { content } = result
  if (content.length <= maxOutput) return result
  const shown = Text.cutPoint(content, maxOutput)
  const marker = `\n[output truncated: ${shown} of ${content.length} characters shown]`
  return { ...result, content: `${content.slice(0, shown)}${marker}` }
}

const unexpectedly = <R>(self: Tools<R>, call: ToolCall.ToolCall, defect: unknown) =>
  Toolbox.callSafely({ tools: self.tools, call: () => Effect.die(defect) }, call, untimed)

/**
 * The answer to a call, at once when the handler gives it at once; never throws or fails. An
 * answer given at once cannot be stopped by a timer, so only the Effect is timed, by core.
 */
const answerSafely = <R>(
  self: Tools<R>,
  call: ToolCall.ToolCall,
  timeout: Duration.Duration,
): Entry.Reply<R> => {
  let answer: Entry.Reply<R>
  try {
    answer = answerOf(self, call)
  } catch (defect) {
    return unexpectedly(self, call, defect)
  }
  if (!Effect.isEffect(answer)) return answer
  const later = answer
  return Toolbox.callSafely({ tools: self.tools, call: () => later }, call, { timeout })
}

const answerWithin = <R>(
  self: Tools<R>,
  call: ToolCall.ToolCall,
  bounds: Bounds,
): Entry.Reply<R> => {
  const answer = answerSafely(self, call, bounds.timeout)
  const { maxOutput } = bounds
  if (maxOutput === undefined) return answer
  return Effect.isEffect(answer)
    ? Effect.map(answer, (result) => truncated(result, maxOutput))
    : truncated(answer, maxOutput)
}

const inOrder = <R>(
  self: Tools<R>,
  calls: ReadonlyArray<ToolCall.ToolCall>,
  bounds: Bounds,
  tracing: boolean,
): Effect.Effect<ReadonlyArray<ToolResult.ToolResult>, never, R> =>
  Effect.suspend(() => {
    const results: Array<ToolResult.ToolResult> = []
    const from = (start: number): Effect.Effect<ReadonlyArray<ToolResult.ToolResult>, never, R> => {
      for (let i = start; i < calls.length; i++) {
        const call = calls[i]!
        const answer = tracing
          ? GenAi.executeTool(call, Entry.toEffect(answerWithin(self, call, bounds)))
          : answerWithin(self, call, bounds)
        if (Effect.isEffect(answer)) {
          return Effect.flatMap(answer, (result) => {
            results.push(result)
            return from(i + 1)
          })
        }
        results.push(answer)
      }
      return Effect.succeed(results)
    }
    return from(0)
  })

/**
 * Answers one call. Never fails: an unknown name, arguments that do not fit, a handler that
 * fails, throws, dies, is interrupted or does not answer within the timeout (60 seconds unless
 * {@link CallOptions} says otherwise), each gives a failed result for the model to read (an
 * unexpected defect is also logged).
 *
 * @example
 * ```ts
 * import { ToolCall } from "@svir/core"
 * import { Tools } from "@svir/registry"
 *
 * declare const tools: Tools.Tools
 * const result = Tools.call(tools, ToolCall.make("call_1", "lookup", '{"id": 42}'))
 * // Effect<ToolResult>
 * ```
 *
 * @since 0.2.0
 * @category answering
 */
export const call = <R>(
  self: Tools<R>,
  call: ToolCall.ToolCall,
  options: CallOptions = {},
): Effect.Effect<ToolResult.ToolResult, never, R> =>
  Effect.suspend(() => {
    const bounds = boundsOf(options)
    return Result.isFailure(bounds)
      ? Effect.die(bounds.failure)
      : GenAi.executeTool(call, Entry.toEffect(answerWithin(self, call, bounds.success)))
  })

/**
 * Answers every call, in the order of the calls: one at a time, or up to `concurrency` at once.
 * Every call gets exactly one result with its id, each within its timeout (see
 * {@link CallOptions}).
 *
 * @example
 * ```ts
 * import { Tools } from "@svir/registry"
 * import type { ToolCall } from "@svir/core"
 *
 * declare const tools: Tools.Tools
 * declare const calls: ReadonlyArray<ToolCall.ToolCall>
 * const results = Tools.callAll(tools, calls, { concurrency: 4, timeout: "10 seconds" })
 * ```
 *
 * @since 0.2.0
 * @category answering
 */
export const callAll = <R>(
  self: Tools<R>,
  calls: Iterable<ToolCall.ToolCall>,
  options: CallOptions = {},
): Effect.Effect<ReadonlyArray<ToolResult.ToolResult>, never, R> => {
  const checked = boundsOf(options)
  if (Result.isFailure(checked)) return Effect.die(checked.failure)
  const bounds = checked.success
  // Calls that run at once go through core's `Toolbox.callAll`, which keeps the calls' order.
  // One at a time, answers given at once stay plain values; a tracer that exports only puts
  // each answer in its span (R10, R14).
  if (bounds.concurrency !== 1) {
    const within: Toolbox.Toolbox<R> = {
      tools: self.tools,
      call: (call) => GenAi.executeTool(call, Entry.toEffect(answerWithin(self, call, bounds))),
    }
    return Toolbox.callAll(within, calls, { ...untimed, concurrency: bounds.concurrency })
  }
  const list = Array.from(calls)
  return Effect.flatMap(GenAi.isTracing, (tracing) => inOrder(self, list, bounds, tracing))
}
