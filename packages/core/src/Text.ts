/**
 * Text cut to a length without splitting a character: a cut after the first half of a two-unit
 * (UTF-16 surrogate) character leaves half a character, which encoders replace with U+FFFD. And
 * text someone else wrote, made safe to quote where a terminal may show it.
 *
 * @since 0.2.0
 * @module
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
 * @since 0.2.0
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
 * @since 0.2.0
 * @category cutting
 */
export const shorten = (text: string, limit: number, mark = "…"): string =>
  text.length <= limit ? text : `${text.slice(0, cutPoint(text, limit))}${mark}`

/**
 * What a terminal acts on instead of showing, in 7-bit (ESC and a character) or 8-bit (C1) form.
 * Each alternative matches once it has started, so a text is read in linear time.
 */
const terminalControls = new RegExp(
  [
    // Strings (OSC, DCS, SOS, PM, APC) up to BEL or ST; one left open ends at the next ESC or the end.
    "(?:\\x1b[\\]PX^_]|[\\x90\\x98\\x9d-\\x9f])[^\\x07\\x1b\\x9c]*(?:\\x07|\\x9c|\\x1b\\\\|(?=\\x1b)|$)",
    // CSI: parameters, intermediates, final (colours, cursor moves, erasing).
    "(?:\\x1b\\[|\\x9b)[\\x30-\\x3f]*[\\x20-\\x2f]*[\\x40-\\x7e]?",
    // Other escapes: intermediates, final (`ESC c` resets the terminal).
    "\\x1b[\\x20-\\x2f]*[\\x30-\\x7e]?",
    // Every other control but tab and line feed, DEL, and the bidirectional embedding, override
    // and isolate controls, which change the order what follows is shown in.
    "[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u202a-\\u202e\\u2066-\\u2069]",
  ].join("|"),
  "g",
)

/**
 * The text with what a terminal would act on, instead of showing, taken out: escape sequences
 * (colours, cursor moves, window titles, hyperlinks), other control characters but tab and line
 * feed (a carriage return can write over what came before it), and the bidirectional override
 * controls (which can show text in another order than it is read). For quoting a text another
 * party wrote, such as a server's stderr or an error body, in a message that may be printed.
 *
 * @example
 * ```ts
 * import { Text } from "@svir/core"
 *
 * Text.printable("\x1b[31merror:\x1b[0m disk full\r\n") // "error: disk full\n"
 * Text.printable("\x1b]0;title\x07done") // "done"
 * ```
 *
 * @since 0.2.0
 * @category formatting
 */
export const printable = (text: string): string => text.replace(terminalControls, "")
