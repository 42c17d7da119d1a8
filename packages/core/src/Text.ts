/**
 * Text cut to a length without splitting a character: a cut after the first half of a two-unit
 * (UTF-16 surrogate) character leaves half a character, which encoders replace with U+FFFD.
 *
 * @since 0.1.0
 */

/**
 * Where to cut `text` to at most `limit` UTF-16 units: `limit`, or one less when that would split
 * a two-unit character; the text's length when it is shorter.
 *
 * @example
 * ```ts
 * import { Text } from "@svir/core"
 *
 * Text.cutPoint("ab😀", 3) // 2
 * Text.cutPoint("abc", 10) // 3
 * ```
 *
 * @since 0.1.0
 * @category cutting
 */
export const cutPoint = (text: string, limit: number): number => {
  if (limit >= text.length) return text.length
  return limit > 0 && (text.charCodeAt(limit - 1) & 0xfc00) === 0xd800 ? limit - 1 : limit
}

/**
 * The text cut at {@link cutPoint} with `mark` after it, or the text itself when it is no longer
 * than `limit`.
 *
 * @example
 * ```ts
 * import { Text } from "@svir/core"
 *
 * Text.shorten("weather", 3) // "wea…"
 * Text.shorten("weather", 10) // "weather"
 * ```
 *
 * @since 0.1.0
 * @category cutting
 */
export const shorten = (text: string, limit: number, mark = "…"): string =>
  text.length <= limit ? text : `${text.slice(0, cutPoint(text, limit))}${mark}`
