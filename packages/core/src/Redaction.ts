/**
 * Keeps secrets (an API key, the values of configured headers) out of errors. A server can echo a
 * request back in any form: as given, JSON-escaped (`\/`, `\u0073`), percent-encoded, or cut short
 * at a length limit. A redaction is made once, where the secrets are known (a client, an MCP
 * connection), and every error that leaves that place goes through it.
 *
 * @since 0.1.0
 */
import * as SvirError from "./SvirError.js"

/**
 * What a secret is replaced with.
 *
 * @since 0.1.0
 * @category models
 */
export const placeholder = "[redacted]"

/**
 * The shortest value treated as a secret. A shorter one cannot guard anything, and replacing every
 * "on" or "1" in a message would make it unreadable.
 *
 * @since 0.1.0
 * @category models
 */
export const minSecretLength = 4

/**
 * Takes secrets out of texts and errors.
 *
 * @since 0.1.0
 * @category models
 */
export interface Redaction {
  /** The text with every secret, in any form above, replaced by {@link placeholder}. */
  readonly text: (text: string) => string
  /** Whether the text holds a secret in any form above. */
  readonly reveals: (text: string) => boolean
  /** The error with its message, the server's message and code, and its cause redacted. */
  readonly error: (error: SvirError.SvirError) => SvirError.SvirError
}

const escapeRegExp = (char: string): string => char.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")

/** Every way one character of a secret can be written in an echo: as is, `\uXXXX`, `\c`, `%XX`. */
const charPattern = (char: string): string => {
  const code = char.charCodeAt(0)
  const hex = code.toString(16).padStart(4, "0")
  const forms = [escapeRegExp(char), `\\\\+u${hex}`, `\\\\+${escapeRegExp(char)}`]
  if (code < 0x80) forms.push(`%${hex.slice(2)}`)
  return `(?:${forms.join("|")})`
}

/** A pattern for the whole secret, and one for a prefix of it left at the end of a cut text. */
const patternsOf = (secret: string): { readonly whole: string; readonly cutTail: string } => {
  const chars = [...secret].map(charPattern)
  const whole = chars.join("")
  // The first `minSecretLength` characters, then as many more as are there: a text cut in the
  // middle of an echoed key (`sk-abc…`) still shows no part of it worth having.
  const head = chars.slice(0, minSecretLength).join("")
  const rest = chars.slice(minSecretLength).reduceRight((inner, char) => `(?:${char}${inner})?`, "")
  return { whole, cutTail: `${head}${rest}(?=…?$)` }
}

/**
 * Makes a redaction for the given secrets. Values shorter than {@link minSecretLength} and
 * duplicates are left out.
 *
 * @example
 * ```ts
 * import { Redaction } from "@svir/core"
 *
 * const redaction = Redaction.make(["sk-secret-1234"])
 * redaction.text('{"echo":"Bearer sk\\u002dsecret-1234"}') // '{"echo":"Bearer [redacted]"}'
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (secrets: Iterable<string>): Redaction => {
  const kept = [...new Set(secrets)].filter((secret) => secret.length >= minSecretLength)
  if (kept.length === 0) return none
  // Longest first, so a secret that contains another is replaced whole.
  kept.sort((a, b) => b.length - a.length)
  const patterns = kept.map(patternsOf)
  const any = new RegExp(
    [...patterns.map((p) => p.whole), ...patterns.map((p) => p.cutTail)].join("|"),
    "giu",
  )
  const text = (input: string): string => input.replace(any, placeholder)
  const reveals = (input: string): boolean => {
    any.lastIndex = 0
    return any.test(input)
  }
  const error = (e: SvirError.SvirError): SvirError.SvirError => {
    const reason = e.reason
    const message = text(e.message)
    const serverMessage = e.serverMessage === undefined ? undefined : text(e.serverMessage)
    // A server's code is its words too: it is redacted like its message.
    const code = "code" in reason && typeof reason.code === "string" ? text(reason.code) : undefined
    const cause = redactCause(e.cause, text, reveals, 0)
    if (
      message === e.message &&
      serverMessage === e.serverMessage &&
      (code === undefined || ("code" in reason && code === reason.code)) &&
      cause === e.cause
    ) {
      return e
    }
    // The reason's other data (status, retry-after, limits) is kept as it was.
    return SvirError.make(e.reason._tag, message, {
      ...reason,
      serverMessage,
      ...(code === undefined ? {} : { code }),
      cause,
    })
  }
  return { text, reveals, error }
}

/**
 * The redaction with no secrets: it changes nothing.
 *
 * @since 0.1.0
 * @category constructors
 */
export const none: Redaction = {
  text: (text) => text,
  reveals: () => false,
  error: (error) => error,
}

const causeDepth = 4

/**
 * A cause with secrets taken out. An Error is copied with its name, code, message and cause
 * redacted (and no stack, whose first line repeats the message); a string is redacted; any other
 * value is kept only if no string in it reveals a secret.
 */
const redactCause = (
  cause: unknown,
  text: (input: string) => string,
  reveals: (input: string) => boolean,
  depth: number,
): unknown => {
  if (cause === undefined || cause === null) return cause
  if (typeof cause === "string") return text(cause)
  if (depth >= causeDepth) return undefined
  if (cause instanceof Error) {
    const message = safeString(() => cause.message)
    const inner = safeRead(() => cause.cause)
    const redactedInner = redactCause(inner, text, reveals, depth + 1)
    if (
      !reveals(message) &&
      !reveals(safeString(() => cause.stack)) &&
      !revealsOwnData(cause, reveals) &&
      redactedInner === inner
    ) {
      return cause
    }
    const copy = new Error(
      text(message),
      redactedInner === undefined ? {} : { cause: redactedInner },
    )
    copy.name = safeString(() => cause.name)
    const code = safeRead(() => (cause as { readonly code?: unknown }).code)
    if (typeof code === "string") Object.assign(copy, { code: text(code) })
    copy.stack = `${copy.name}: ${copy.message}`
    return copy
  }
  if (typeof cause !== "object") return cause
  const shown = safeString(() => JSON.stringify(cause))
  return shown === "" || reveals(shown) ? placeholder : cause
}

/** The own properties an error carries besides its message, stack and cause. */
const shownBeyondMessage = new Set(["message", "stack", "cause"])

/**
 * Whether an error's own data reveals a secret: Bun's fetch errors, for one, carry the whole URL
 * in an own `path` (DECISIONS.md D20). Data that cannot be shown counts as revealing, so the copy,
 * which keeps only the name, the code and the message, takes its place.
 */
const revealsOwnData = (cause: Error, reveals: (input: string) => boolean): boolean => {
  const names = safeRead(() => Object.getOwnPropertyNames(cause))
  if (!Array.isArray(names)) return true
  const own: Record<string, unknown> = {}
  for (const name of names) {
    if (!shownBeyondMessage.has(name)) own[name] = safeRead(() => Reflect.get(cause, name))
  }
  const shown = safeString(() => JSON.stringify(own))
  return shown === "" || reveals(shown)
}

const safeRead = (read: () => unknown): unknown => {
  try {
    return read()
  } catch {
    return undefined
  }
}

const safeString = (read: () => unknown): string => {
  const value = safeRead(read)
  return typeof value === "string" ? value : ""
}
