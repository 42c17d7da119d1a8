/**
 * JSON from parties svir does not control (a model, a server, an MCP tool), read with a bound on
 * nesting. A value nested deeper than a walker's stack can follow would make every recursive
 * step after parsing (schema decoding, printing, `JSON.stringify`) die with a `RangeError`;
 * here it is refused when it is read.
 *
 * @since 0.2.0
 * @module
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"
import { stringEnd } from "./internal/jsonSyntax.js"

/**
 * The default bound on nesting: 128 levels of arrays and objects, the recursion limit of Rust's
 * serde_json, which the svir crate reads with. Tool arguments and error bodies seen from real
 * servers stay under 20.
 *
 * @since 0.2.0
 * @category models
 */
export const maxDepth = 128

/**
 * JSON that could not be read: `Syntax` when the text is not JSON, `TooDeep` when it nests
 * deeper than the bound.
 *
 * @since 0.2.0
 * @category errors
 */
export class JsonError extends Data.TaggedError("JsonError")<{
  readonly reason: "Syntax" | "TooDeep"
  readonly message: string
}> {}

/**
 * Whether a value is a plain JSON object (not `null`, not an array).
 *
 * @example
 * ```ts
 * import { Json } from "@svir/core"
 *
 * Json.isObject({ a: 1 }) // true
 * Json.isObject([1]) // false
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * How deep a JSON text nests, counting arrays and objects, read in one pass without recursion.
 * Stops counting once past `limit`, so a huge text costs no more than its first `limit + 1`
 * levels need. Brackets inside strings are not counted.
 *
 * @example
 * ```ts
 * import { Json } from "@svir/core"
 *
 * Json.textDepth('{"a": [1, "]]"]}') // 2
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const textDepth = (text: string, limit: number = Number.POSITIVE_INFINITY): number => {
  let depth = 0
  let deepest = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 34 /* " */) {
      // Jump to the string's closing quote: most of a chunk's text is inside strings.
      i = stringEnd(text, i)
    } else if (code === 91 /* [ */ || code === 123 /* { */) {
      depth++
      if (depth > deepest) {
        deepest = depth
        if (deepest > limit) return deepest
      }
    } else if (code === 93 /* ] */ || code === 125 /* } */) {
      depth--
    }
  }
  return deepest
}

/**
 * How deep a value nests, counting arrays and objects, walked without recursion. Stops once past
 * `limit`, which also ends the walk of a value that refers to itself.
 *
 * @example
 * ```ts
 * import { Json } from "@svir/core"
 *
 * Json.valueDepth({ a: [1, { b: 2 }] }) // 3
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const valueDepth = (value: unknown, limit: number = Number.POSITIVE_INFINITY): number => {
  let deepest = 0
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }]
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!
    if (typeof current !== "object" || current === null) continue
    const inner = depth + 1
    if (inner > deepest) {
      deepest = inner
      if (deepest > limit) return deepest
    }
    const children = Array.isArray(current) ? current : Object.values(current)
    for (const child of children) {
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth: inner })
    }
  }
  return deepest
}

/**
 * Reads a JSON text, refusing one that nests deeper than `limit` (default {@link maxDepth})
 * before it is parsed.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { Json } from "@svir/core"
 *
 * Json.parse('{"a": 1}') // Result.succeed({ a: 1 })
 * // nested deeper than the limit: a TooDeep failure
 * Result.isFailure(Json.parse("[".repeat(100_000))) // true
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const parse = (
  text: string,
  limit: number = maxDepth,
): Result.Result<unknown, JsonError> => {
  const value = parseValue(text, limit)
  return value instanceof JsonError ? Result.fail(value) : Result.succeed(value)
}

/**
 * Reads a JSON text as {@link parse} does, for a reader of many small texts (a stream's events)
 * that would rather not wrap each value: the value, or the `JsonError`. No JSON text reads to a
 * `JsonError`, so the two cannot be confused.
 *
 * @example
 * ```ts
 * import { Json } from "@svir/core"
 *
 * Json.parseValue('{"a": 1}') // { a: 1 }
 * const failed = Json.parseValue("{")
 * failed instanceof Json.JsonError && failed.reason // "Syntax"
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const parseValue = (text: string, limit: number = maxDepth): unknown => {
  // A text no longer than the bound cannot nest past it (most texts read are that short), nor
  // can one with no more opening brackets than the bound (D34): both are cheaper to tell than
  // the depth itself.
  if (text.length > limit && !fewBrackets(text, limit) && textDepth(text, limit) > limit) {
    return new JsonError({
      reason: "TooDeep",
      message: `the JSON nests deeper than ${limit} levels`,
    })
  }
  try {
    return JSON.parse(text)
  } catch {
    return new JsonError({ reason: "Syntax", message: "the text is not valid JSON" })
  }
}

/** Whether the text has at most `limit` opening brackets, in strings or not, counted with `indexOf`. */
const fewBrackets = (text: string, limit: number): boolean => {
  let count = 0
  for (let at = text.indexOf("{"); at !== -1; at = text.indexOf("{", at + 1)) {
    if (++count > limit) return false
  }
  for (let at = text.indexOf("["); at !== -1; at = text.indexOf("[", at + 1)) {
    if (++count > limit) return false
  }
  return true
}
