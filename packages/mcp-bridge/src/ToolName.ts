/**
 * The names a bridged tool is offered under, and the way back to the server's own names.
 *
 * @since 0.1.0
 */

import { SvirError } from "@svir/core"
import * as Effect from "effect/Effect"

const validName = /^[a-zA-Z0-9_-]{1,64}$/
const invalidCharacters = /[^a-zA-Z0-9_-]/g
const validPrefix = /^[a-zA-Z0-9_-]{1,40}$/

/**
 * The longest name a model is offered.
 *
 * @since 0.1.0
 * @category models
 */
export const maxLength = 64

/**
 * What separates a server's prefix from its tool's name: `files__read_file`.
 *
 * @since 0.1.0
 * @category models
 */
export const separator = "__"

/**
 * The name a tool is offered under: the prefix and the server's name joined by `__`. A name that
 * already fits `^[a-zA-Z0-9_-]{1,64}$` is kept as it is. Otherwise every character outside
 * `a-z A-Z 0-9 _ -` becomes `_`, the name is cut to leave room, and `_` and eight hex digits of
 * a hash of the whole original name are added, so the name stays the same from one listing to
 * the next and two names that differ only in their invalid characters stay apart.
 *
 * @example
 * ```ts
 * import { ToolName } from "@svir/mcp-bridge"
 *
 * ToolName.offered("read_file", "files") // "files__read_file"
 * // "read_file_" and eight hex digits of a hash of the whole name
 * ToolName.offered("read.file") // "read_file_2d6f0437"
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const offered = (serverName: string, prefix?: string): string => {
  const full = prefix === undefined ? serverName : `${prefix}${separator}${serverName}`
  if (validName.test(full)) return full
  const suffix = `_${hash(full)}`
  const cleaned = Array.from(full, (char) => char.replace(invalidCharacters, "_")).join("")
  return `${cleaned.slice(0, maxLength - suffix.length)}${suffix}`
}

/**
 * Succeeds with the prefix when it is 1 to 40 characters of `a-z A-Z 0-9 _ -`, or fails with a
 * Config error: a prefix is written by the user, so it is never rewritten.
 *
 * @since 0.1.0
 * @category validation
 */
export const validatePrefix = (prefix: string): Effect.Effect<string, SvirError.SvirError> =>
  validPrefix.test(prefix)
    ? Effect.succeed(prefix)
    : Effect.fail(
        SvirError.make(
          "Config",
          `the prefix ${JSON.stringify(prefix)} is not 1 to 40 characters of a-z, A-Z, 0-9, _ and -`,
        ),
      )

/** 32-bit FNV-1a over the UTF-16 code units: small, stable across runs and platforms. */
const hash = (text: string): string => {
  let value = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    value ^= text.charCodeAt(i)
    value = Math.imul(value, 0x01000193)
  }
  return (value >>> 0).toString(16).padStart(8, "0")
}
