/**
 * The value so far of a JSON text that is still arriving: a structured answer streamed piece by
 * piece, shown in a UI before it is whole (DECISIONS.md, D18).
 *
 * @since 0.2.0
 * @module
 */
import * as Result from "effect/Result"
import * as internal from "./internal/partialJsonReader.js"
import * as Json from "./Json.js"

/**
 * The value so far of a JSON text cut anywhere: objects and arrays with what they hold so far,
 * and a string as far as it goes; a number, `true`, `false` or `null` not yet whole, and a key
 * whose value has not begun, are left out until they are. The whole text gives what `JSON.parse`
 * gives (on Node 24 that can be a key with an escape misread, the engine's fault: D47).
 * `undefined` when nothing is known yet, when the text is not the start of a JSON text,
 * or when it nests deeper than `Json.maxDepth`. Each part of a value, once shown, stays as it
 * was; a string only grows. (A number alone is whole JSON at every digit, and is read as it is.)
 * One call reads the text once, in time that grows with its length. For an answer that arrives
 * in pieces, use {@link reader}: calling `parse` on all the text so far at every piece reads the
 * start of the answer again each time.
 *
 * @example
 * ```ts
 * import { PartialJson } from "@svir/core"
 *
 * PartialJson.parse('{"city": "Kyo') // { city: "Kyo" }
 * PartialJson.parse('{"city": "Kyoto", "population": 14') // { city: "Kyoto" }
 * PartialJson.parse('{"days": [{"n": 1}, {"n') // { days: [{ n: 1 }, {}] }
 * PartialJson.parse("Sure! Here") // undefined
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const parse = (text: string): unknown => {
  const whole = Json.parse(text)
  if (Result.isSuccess(whole)) return whole.success
  if (whole.failure.reason === "TooDeep") return undefined
  return new internal.Reader().push(text)
}

/**
 * Reads a JSON text piece by piece, as it streams. `push(piece)` gives the value so far: what
 * {@link parse} gives for all the pieces pushed so far. Each character is read once, so a whole
 * answer costs time that grows with its length, however it is cut. The value is kept up to date
 * in place: a later push adds to the same objects and arrays (and a growing string is put
 * again where it stands), so show it when it is given and copy what must stay as it was
 * (`structuredClone`). `changed` says whether the last push may have changed it, so that a UI
 * need not compare.
 *
 * @example
 * ```ts
 * import { PartialJson } from "@svir/core"
 *
 * const reader = PartialJson.reader()
 * reader.push('{"city": "Ky') // { city: "Ky" }
 * reader.push('oto", "population": 14') // { city: "Kyoto" }
 * reader.changed // true
 * reader.push("7") // { city: "Kyoto" }
 * reader.changed // false
 * reader.push("5000}") // { city: "Kyoto", population: 1475000 }
 * ```
 *
 * @since 0.2.0
 * @category parsing
 */
export const reader = (): Reader => new internal.Reader()

/**
 * A JSON text read piece by piece: see {@link reader}.
 *
 * @since 0.2.0
 * @category models
 */
export interface Reader {
  /** Reads the next piece of the text, and gives the value so far. */
  push(piece: string): unknown
  /** Whether the last push may have changed the value so far: false when it is as it was. */
  readonly changed: boolean
}
