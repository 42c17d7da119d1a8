/**
 * Keeps secrets (an API key, the values of configured headers, an OAuth client's secret) out of
 * errors. A server can echo a request back in any form: as given, JSON-escaped (`\/`, `\u0073`),
 * percent- or form-encoded, as HTML character references (`&#43;`, `&#x2B;`, `&plus;`), broken over
 * lines, or cut short at a length limit. A redaction is made once, where the secrets are known (a
 * client, an MCP connection), and every error that leaves that place goes through it.
 *
 * @since 0.2.0
 * @module
 */
import * as Base64 from "effect/encoding/Base64"
import * as Base64Url from "effect/encoding/Base64Url"
import * as SvirError from "./SvirError.js"

/**
 * What a secret is replaced with.
 *
 * @since 0.2.0
 * @category models
 */
export const placeholder = "[redacted]"

/**
 * The shortest value treated as a secret. A shorter one cannot guard anything, and replacing every
 * "on" or "1" in a message would make it unreadable.
 *
 * @since 0.2.0
 * @category models
 */
export const minSecretLength = 4

/**
 * Takes secrets out of texts and errors.
 *
 * @since 0.2.0
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

/** The HTML names of the characters keys are made of; numeric references cover every other. */
const namedReferences: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  plus: "+",
  sol: "/",
  equals: "=",
}

/**
 * The escapes read at a `\`, `&`, CR or LF: a run of backslashes (any number, for a JSON text
 * inside a JSON text) before `uXXXX`, a line break or any other character; an HTML character
 * reference, decimal, hexadecimal or named; a line break, which a reader joining an event
 * stream's data lines leaves (`\n`) and a raw stream shows (`\ndata: `). Sticky, and read once at
 * each place the scan stops, so a text is read in linear time (D25).
 */
const escapeAt =
  /\\+(?:u([0-9a-fA-F]{4})|[nr](?:data:)? ?|([\s\S]))|&#(?:([0-9]{1,8})|[xX]([0-9a-fA-F]{1,8}));?|&([a-zA-Z]{2,6});|(?:\r\n?|\n)(?:data:)? ?/y

/** The byte of `%XX` at `at`, or -1. */
const percentByte = (text: string, at: number): number => {
  const digits = text.slice(at + 1, at + 3)
  return text.charCodeAt(at) === 37 && /^[0-9a-fA-F]{2}$/.test(digits)
    ? Number.parseInt(digits, 16)
    : -1
}

/** The character a run of `%XX` at `at` writes in UTF-8, and where the run ends. */
const readPercent = (text: string, at: number): Escape | undefined => {
  const lead = percentByte(text, at)
  if (lead < 0) return undefined
  if (lead < 0x80) return { chars: String.fromCharCode(lead), end: at + 3 }
  const more = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0
  if (more === 0) return undefined
  let code = lead & (0x3f >> more)
  for (let k = 1; k <= more; k++) {
    const byte = percentByte(text, at + 3 * k)
    if (byte < 0x80 || byte > 0xbf) return undefined
    code = (code << 6) | (byte & 0x3f)
  }
  return code > 0x10ffff
    ? undefined
    : { chars: String.fromCodePoint(code), end: at + 3 * (more + 1) }
}

interface Escape {
  /** What the escape stands for: "" for a line break. */
  readonly chars: string
  readonly end: number
}

/** The escape at `at`, if one starts there. */
const readEscape = (text: string, at: number): Escape | undefined => {
  if (text.charCodeAt(at) === 37) return readPercent(text, at)
  escapeAt.lastIndex = at
  const found = escapeAt.exec(text)
  if (found === null) return undefined
  const end = escapeAt.lastIndex
  const [, unit, char, decimal, hexadecimal, name] = found
  if (unit !== undefined) return { chars: String.fromCharCode(Number.parseInt(unit, 16)), end }
  if (char !== undefined) return { chars: char, end }
  if (decimal !== undefined || hexadecimal !== undefined) {
    const code =
      decimal === undefined ? Number.parseInt(hexadecimal!, 16) : Number.parseInt(decimal, 10)
    return code > 0x10ffff ? undefined : { chars: String.fromCodePoint(code), end }
  }
  if (name !== undefined) {
    const named = namedReferences[name.toLowerCase()]
    return named === undefined ? undefined : { chars: named, end }
  }
  return { chars: "", end }
}

/** A text as the characters its escapes stand for, and where each of them is in the text. */
interface Decoded {
  readonly chars: string
  /** Where in the text each code unit of `chars` starts, and where it ends. */
  readonly starts: Int32Array
  readonly ends: Int32Array
}

/** Whether the code unit starts an escape: `%`, `&`, `\`, CR, LF. */
const mayEscape = (code: number): boolean =>
  code === 37 || code === 38 || code === 92 || code === 13 || code === 10

/**
 * The text with every escape read (one level of each: `%2541` is `%41`), and every line break left
 * out. A text is shorter or as long decoded, so the maps fit in its length.
 */
const decode = (text: string): Decoded => {
  const starts = new Int32Array(text.length)
  const ends = new Int32Array(text.length)
  const parts: Array<string> = []
  let length = 0
  const putPlain = (start: number, end: number) => {
    for (let k = start; k < end; k++, length++) {
      starts[length] = k
      ends[length] = k + 1
    }
    parts.push(text.slice(start, end))
  }
  let plain = 0
  let at = 0
  while (at < text.length) {
    const read = mayEscape(text.charCodeAt(at)) ? readEscape(text, at) : undefined
    if (read === undefined) {
      at++
      continue
    }
    putPlain(plain, at)
    for (let k = 0; k < read.chars.length; k++, length++) {
      starts[length] = at
      ends[length] = read.end
    }
    parts.push(read.chars)
    at = read.end
    plain = at
  }
  putPlain(plain, text.length)
  return { chars: parts.join(""), starts, ends }
}

/**
 * What a secret is looked for as in a decoded text: itself (echoed in any escaped form), itself
 * decoded (echoed as is, when it holds what reads as an escape: `%41`, `\s`, `&amp;`), and with
 * its spaces as a form writes them (`+`), which is not read as an escape since keys hold `+`.
 */
const targetsOf = (secret: string): ReadonlyArray<string> =>
  [secret, decode(secret).chars, secret.replaceAll(" ", "+")].filter(
    (target) => target.length >= minSecretLength,
  )

/**
 * The start of an escape that a cut text may end in (`\u00`, `%2`, `%E2%82`, `&#4`, `&am`),
 * looked for in the text's last characters only.
 */
const cutEscape =
  /(?:\\+(?:u[0-9a-fA-F]{0,3})?|(?:%[c-fC-F][0-9a-fA-F](?:%[89abAB][0-9a-fA-F]){0,2})?%[0-9a-fA-F]?|%[c-fC-F][0-9a-fA-F](?:%[89abAB][0-9a-fA-F]){0,2}|&#?[xX]?[0-9a-fA-F]{0,7}|&[a-zA-Z]{1,6})$/

/** Where a text ends once a `…` a cut left is set aside, and where it ends before a cut escape. */
const cutEnds = (text: string): ReadonlyArray<number> => {
  const end = text.endsWith("…") ? text.length - 1 : text.length
  const tail = text.slice(Math.max(0, end - 24), end)
  const partial = cutEscape.exec(tail)
  return partial === null ? [end] : [end, end - partial[0].length]
}

/** Every place `target` is in `text`, each skipped whole, so that a text is read once per target. */
const placesOf = (text: string, target: string): Array<number> => {
  const places: Array<number> = []
  for (let at = text.indexOf(target); at >= 0; at = text.indexOf(target, at + target.length)) {
    places.push(at)
  }
  return places
}

/**
 * The ranges of `text` that hold a secret: as it is, each target in the decoded text, and a cut
 * one at the end.
 */
const foundIn = (
  text: string,
  secrets: ReadonlyArray<string>,
  targets: ReadonlyArray<string>,
): Array<[number, number]> => {
  const decoded = decode(text)
  const { chars, starts, ends } = decoded
  const found: Array<[number, number]> = []
  // Looked for as it is too: where a secret meets the text around it, the two can read as an
  // escape (`50%` then `a1b2…` reads as `%a1`).
  for (const secret of secrets) {
    for (const at of placesOf(text, secret)) found.push([at, at + secret.length])
  }
  for (const target of targets) {
    for (const at of placesOf(chars, target)) {
      found.push([starts[at]!, ends[at + target.length - 1]!])
    }
    // The same for an echo whose first character was read into an escape begun before it.
    const rest = target.slice(1)
    for (const at of placesOf(chars, rest)) {
      const start = at > 0 && ends[at - 1]! - starts[at - 1]! > 1 ? ends[at - 1]! - 1 : -1
      if (start >= 0 && text[start] === target[0]) found.push([start, ends[at + rest.length - 1]!])
    }
  }
  const cut = cutTail(text, decoded, targets)
  if (cut !== undefined) found.push(cut)
  return found
}

/**
 * The secret's first `minSecretLength` characters, or more, at the very end of the text (before
 * a `…` and an escape cut in two): a text cut in the middle of an echoed key (`sk-abc…`) still
 * shows no part of it worth having.
 */
const cutTail = (
  text: string,
  { chars, starts, ends }: Decoded,
  targets: ReadonlyArray<string>,
): [number, number] | undefined => {
  const cutAt = cutEnds(text)
  for (const end of cutAt) {
    let charsEnd = chars.length
    while (charsEnd > 0 && ends[charsEnd - 1]! > end) charsEnd--
    for (const target of targets) {
      const from = Math.max(0, charsEnd - target.length + 1)
      const tail = chars.slice(from, charsEnd)
      for (let at = tail.indexOf(target[0]!); at >= 0; at = tail.indexOf(target[0]!, at + 1)) {
        if (tail.length - at < minSecretLength) break
        if (target.startsWith(tail.slice(at))) return [starts[from + at]!, cutAt[0]!]
      }
    }
  }
  return undefined
}

/** The text with the ranges replaced by the placeholder, ranges that overlap as one. */
const replaced = (text: string, found: Array<[number, number]>): string => {
  found.sort((a, b) => a[0] - b[0])
  let out = ""
  let done = 0
  for (const [start, end] of found) {
    if (end <= done) continue
    out +=
      start > done ? `${text.slice(done, start)}${placeholder}` : start === done ? placeholder : ""
    done = end
  }
  return out + text.slice(done)
}

/** A text as an HTML form writes it (`application/x-www-form-urlencoded`): a space is `+`. */
const formEncoded = (text: string): string => new URLSearchParams([["", text]]).toString().slice(1)

/** The bytes of a text each of whose characters is one byte (Latin-1), as `btoa` reads it. */
const latin1 = (text: string): Uint8Array<ArrayBuffer> | undefined => {
  const codes = Array.from(text, (char) => char.charCodeAt(0))
  return codes.every((code) => code <= 0xff) ? Uint8Array.from(codes) : undefined
}

/**
 * The forms a client's id and secret take in HTTP Basic authentication, to give to {@link make}
 * with the secret: the base64 of `id:secret` as RFC 6749 2.3.1 writes it (each form-urlencoded
 * first), and as the MCP SDK sends it (not encoded, `btoa`), in UTF-8 too, each in base64 and
 * base64url. The secret sits in the middle of the token, and an echo of the header holds the whole
 * token, so the whole token is the secret. The padding is left out: a token echoed without it
 * still decodes, and one with it has it left after the placeholder.
 *
 * @example
 * ```ts
 * import { Redaction } from "@svir/core"
 *
 * const redaction = Redaction.make(["s3cret-value", ...Redaction.basicCredentials("app", "s3cret-value")])
 * redaction.text("got Basic YXBwOnMzY3JldC12YWx1ZQ==") // "got Basic [redacted]=="
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const basicCredentials = (id: string, secret: string): ReadonlyArray<string> => {
  const sent = `${id}:${secret}`
  const utf8 = new TextEncoder()
  const bytes = [utf8.encode(sent), utf8.encode(`${formEncoded(id)}:${formEncoded(secret)}`)]
  const asBtoa = latin1(sent)
  if (asBtoa !== undefined) bytes.push(asBtoa)
  const tokens = bytes.flatMap((b) => [Base64.encode(b).replace(/=+$/, ""), Base64Url.encode(b)])
  return [...new Set(tokens)]
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
 * @since 0.2.0
 * @category constructors
 */
export const make = (secrets: Iterable<string>): Redaction => {
  const kept = [...new Set(secrets)].filter((secret) => secret.length >= minSecretLength)
  const targets = [...new Set(kept.flatMap(targetsOf))]
  if (targets.length === 0) return none
  const text = (input: string): string => {
    const found = foundIn(input, kept, targets)
    return found.length === 0 ? input : replaced(input, found)
  }
  const reveals = (input: string): boolean => foundIn(input, kept, targets).length > 0
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
 * @since 0.2.0
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
