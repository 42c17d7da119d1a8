/**
 * The checks every encoder makes on the request body it writes, whatever its wire: a request's
 * extra fields added without taking over the encoder's own, schemas bounded in depth, and the
 * body measured against the context size (DECISIONS.md, D34). A codec of its own uses them so
 * that its requests are refused for the same reasons, with the same words, as the first-party
 * ones.
 *
 * @since 0.2.0
 * @module
 */
import * as Json from "./Json.js"
import * as SvirError from "./SvirError.js"

/**
 * Adds a request's extra fields (`Request.extra`) to the body, or gives the error that keeps
 * them out, leaving the body as it was. An extra field never replaces a field the body already
 * holds nor one of `framing` (the fields the encoder owns whatever the request sets, such as
 * `model` or `stream`): that is a Config error that says to set it with its own function (`hint`
 * names where else it may be set). Each value must be JSON, nested no deeper than
 * `Json.maxDepth`: otherwise an Unsupported error, rather than a body that `JSON.stringify`
 * cannot write.
 *
 * @example
 * ```ts
 * import { Body } from "@svir/core"
 *
 * const body: Record<string, unknown> = { model: "m", temperature: 0 }
 * Body.addExtra(body, { top_k: 40 }, { framing: ["model", "stream"] }) // undefined
 * body.top_k // 40
 * Body.addExtra(body, { temperature: 1 }, { framing: ["model", "stream"] })?.message
 * // "the extra field temperature is one the encoder writes: set it with its own Request function, not with Request.extra"
 * ```
 *
 * @since 0.2.0
 * @category encoding
 */
export const addExtra = (
  body: object,
  extra: Readonly<Record<string, unknown>> | undefined,
  options: { readonly framing: ReadonlyArray<string>; readonly hint?: string | undefined },
): SvirError.SvirError | undefined => {
  if (extra === undefined) return undefined
  for (const field of Object.keys(extra)) {
    if (options.framing.includes(field) || Object.hasOwn(body, field)) {
      const where = options.hint === undefined ? "" : ` (or ${options.hint})`
      return SvirError.make(
        "Config",
        `the extra field ${field} is one the encoder writes: set it with its own Request function${where}, not with Request.extra`,
      )
    }
  }
  const deep = tooDeep(extra, "an extra field")
  if (deep !== undefined) return deep
  for (const [field, value] of Object.entries(extra)) {
    let text: string | undefined
    try {
      text = JSON.stringify(value)
    } catch {
      text = undefined
    }
    if (text === undefined) {
      return SvirError.make("Unsupported", `the extra field ${field} is not a JSON value`)
    }
  }
  Object.assign(body, extra)
  return undefined
}

/**
 * An Unsupported error when `value` (a tool's schema, a response format's, the extra fields)
 * nests deeper than `Json.maxDepth` or refers to itself; `undefined` when it can be written.
 * `what` names it in the message.
 *
 * @example
 * ```ts
 * import { Body } from "@svir/core"
 *
 * Body.tooDeep({ type: "object" }, "the input schema of the tool search") // undefined
 * const loop: Record<string, unknown> = {}
 * loop.self = loop
 * Body.tooDeep(loop, "the input schema of the tool search")?.reason._tag // "Unsupported"
 * ```
 *
 * @since 0.2.0
 * @category encoding
 */
export const tooDeep = (value: object, what: string): SvirError.SvirError | undefined =>
  Json.valueDepth(value, Json.maxDepth) > Json.maxDepth
    ? SvirError.make(
        "Unsupported",
        `${what} nests deeper than ${Json.maxDepth} levels, or refers to itself`,
      )
    : undefined

const utf8 = new TextEncoder()

/**
 * Admission against a context size (`Request.contextTokens`): a ContextOverflow error, before
 * anything is sent, when the body's length in UTF-8 bytes (which is never fewer than its
 * tokens) plus the tokens `reserved` for the answer is more than `context`; `undefined` when it
 * fits or when no context size is set.
 *
 * @example
 * ```ts
 * import { Body } from "@svir/core"
 *
 * const body = { model: "m", messages: [{ role: "user", content: "hi" }] }
 * Body.admit(body, { context: 4096, reserved: 1024 }) // undefined
 * Body.admit(body, { context: 64, reserved: 16 })?.reason._tag // "ContextOverflow"
 * ```
 *
 * @since 0.2.0
 * @category encoding
 */
export const admit = (
  body: object,
  options: { readonly context: number | undefined; readonly reserved: number },
): SvirError.SvirError | undefined => {
  const context = options.context
  if (context === undefined) return undefined
  const bytes = utf8.encode(JSON.stringify(body)).length
  const reserved = options.reserved
  const over = bytes + reserved - context
  if (over <= 0) return undefined
  return SvirError.make(
    "ContextOverflow",
    `the request does not fit the context of ${context} tokens by ${over}: its body is ${bytes} bytes (counted as tokens) and ${reserved} tokens are reserved for the answer`,
  )
}
