/**
 * The checks every decoder makes on what a server sent, whatever its wire: a whole response
 * bounded in size, with a byte order mark dropped, read as one JSON object; an event's data that
 * is not JSON, or nests too deep, refused in strict mode and skipped in lenient mode (DECISIONS.md,
 * D37). A codec of its own uses them so that answers are refused for the same reasons, with the
 * same words, as by the first-party ones.
 *
 * @since 0.2.0
 * @module
 */
import * as Result from "effect/Result"
import * as Json from "./Json.js"
import * as SvirError from "./SvirError.js"

/**
 * A Protocol error for JSON from a server that nests deeper than `Json.maxDepth`: it is refused
 * before it is read. `what` names it ("a response", "an event").
 *
 * @example
 * ```ts
 * import { Received } from "@svir/core"
 *
 * Received.tooDeep("an event").message
 * // "the server sent an event whose JSON nests deeper than 128 levels"
 * ```
 *
 * @since 0.2.0
 * @category errors
 */
export const tooDeep = (what: string): SvirError.SvirError =>
  SvirError.make(
    "Protocol",
    `the server sent ${what} whose JSON nests deeper than ${Json.maxDepth} levels`,
  )

/**
 * A Protocol error for something a server sent that is not of the codec's wire. `what` says what
 * it was; `wire` names the wire.
 *
 * @example
 * ```ts
 * import { Received } from "@svir/core"
 *
 * Received.foreign("a response with no choices", "Chat Completions").message
 * // "the server sent a response with no choices, which is not Chat Completions"
 * ```
 *
 * @since 0.2.0
 * @category errors
 */
export const foreign = (what: string, wire: string): SvirError.SvirError =>
  SvirError.make("Protocol", `the server sent ${what}, which is not ${wire}`)

/**
 * Reads a whole (non-streamed) response body as one JSON object: a ResponseLimit error past
 * `maxBytes` (a string has at most as many UTF-16 units as its UTF-8 bytes, so it never refuses
 * too early), a byte order mark some servers put first dropped, a Protocol error for JSON that
 * nests too deep, for a text that is not JSON (the text as the server's words) and for JSON that
 * is not an object (`wire` names the wire).
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { Received } from "@svir/core"
 *
 * const read = Received.responseObject('\uFEFF{"id":"x"}', { maxBytes: 1024, wire: "Messages" })
 * Result.isSuccess(read) // true
 * const list = Received.responseObject("[1]", { maxBytes: 1024, wire: "Messages" })
 * Result.isFailure(list) && list.failure.message
 * // "the server sent a response that is not a JSON object, which is not Messages"
 * ```
 *
 * @since 0.2.0
 * @category decoding
 */
export const responseObject = (
  text: string,
  options: { readonly maxBytes: number; readonly wire: string },
): Result.Result<Record<string, unknown>, SvirError.SvirError> => {
  if (text.length > options.maxBytes) {
    return Result.fail(
      SvirError.make(
        "ResponseLimit",
        `the response is longer than ${options.maxBytes} bytes (the maxBytes option)`,
        { limit: "maxBytes", max: options.maxBytes },
      ),
    )
  }
  const body = Json.parseValue(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  if (body instanceof Json.JsonError) {
    return Result.fail(
      body.reason === "TooDeep"
        ? tooDeep("a response")
        : SvirError.make("Protocol", "the response is not JSON", { serverMessage: text }),
    )
  }
  return Json.isObject(body)
    ? Result.succeed(body)
    : Result.fail(foreign("a response that is not a JSON object", options.wire))
}

/**
 * What an event whose data could not be read as JSON (`Json.parseValue` gave `error`) comes to:
 * the error that ends the answer, or `undefined` when the event is skipped. JSON too deep to
 * read may hold anything, a call too, so it always ends the answer; data that is not JSON at all
 * holds nothing a codec can read, so lenient mode skips it and strict mode refuses it, with the
 * data as the server's words.
 *
 * @example
 * ```ts
 * import { Json, Received } from "@svir/core"
 *
 * const data = "not json"
 * const body = Json.parseValue(data)
 * if (body instanceof Json.JsonError) {
 *   Received.unreadableEvent(body, data, { lenient: true }) // undefined: skipped
 *   Received.unreadableEvent(body, data, { lenient: false })?.message
 *   // "the server sent an event whose data is not JSON"
 * }
 * ```
 *
 * @since 0.2.0
 * @category decoding
 */
export const unreadableEvent = (
  error: Json.JsonError,
  data: string,
  options: { readonly lenient: boolean },
): SvirError.SvirError | undefined => {
  if (error.reason === "TooDeep") return tooDeep("an event")
  if (options.lenient) return undefined
  return SvirError.make("Protocol", "the server sent an event whose data is not JSON", {
    serverMessage: data,
  })
}
