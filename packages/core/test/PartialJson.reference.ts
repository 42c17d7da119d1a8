/**
 * `PartialJson.parse` as it was before it read in one pass (it went back over the rest of the
 * text at each escape): the tests check that the one-pass reader gives the same for every text.
 * Only for small texts.
 */
import * as Result from "effect/Result"
import { Json } from "../src/index.js"

/** A container being filled, and, in an object, the key whose value comes next. */
type Open =
  | { readonly kind: "array"; readonly value: Array<unknown> }
  | { readonly kind: "object"; readonly value: Record<string, unknown>; key: string | undefined }

/** Sets a key as `JSON.parse` does: an own property, even one named `__proto__`. */
const setKey = (target: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  })
}

const isSpace = (code: number): boolean => code === 32 || code === 10 || code === 13 || code === 9

const simpleEscapes: { readonly [letter: string]: string } = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
}

/**
 * Reads the string that opens at `open`: its text as far as it goes, whether it ended, and where
 * reading stopped; `undefined` for an escape or character JSON does not allow. An escape cut short
 * at the end is left out.
 */
const readString = (
  text: string,
  open: number,
): { readonly value: string; readonly closed: boolean; readonly end: number } | undefined => {
  let value = ""
  let i = open + 1
  while (i < text.length) {
    const char = text[i]!
    if (char === '"') return { value, closed: true, end: i + 1 }
    if (char.charCodeAt(0) < 0x20) return undefined
    if (char !== "\\") {
      const next = text.indexOf('"', i)
      const backslash = text.indexOf("\\", i)
      const stop = Math.min(
        next === -1 ? text.length : next,
        backslash === -1 ? text.length : backslash,
      )
      const run = text.slice(i, stop)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: JSON refuses raw control characters
      if (/[\u0000-\u001f]/.test(run)) return undefined
      value += run
      i = stop
      continue
    }
    if (i + 1 >= text.length) return { value, closed: false, end: text.length }
    const letter = text[i + 1]!
    if (letter === "u") {
      const hex = text.slice(i + 2, i + 6)
      if (!/^[0-9a-fA-F]*$/.test(hex)) return undefined
      if (hex.length < 4) return { value, closed: false, end: text.length }
      value += String.fromCharCode(Number.parseInt(hex, 16))
      i += 6
    } else if (Object.hasOwn(simpleEscapes, letter)) {
      value += simpleEscapes[letter]
      i += 2
    } else {
      return undefined
    }
  }
  return { value, closed: false, end: text.length }
}

const literals = ["true", "false", "null"]

/**
 * The old one-call reader: what `PartialJson` must still give. A whole text is read here too,
 * not taken from `JSON.parse`, whose V8 on Node 24 misreads a key with an escape once a key like
 * it was read (core D47); only the depth bound is the engine's.
 */
export const parse = (text: string): unknown => {
  const whole = Json.parse(text)
  if (Result.isFailure(whole)) return whole.failure.reason === "TooDeep" ? undefined : walk(text)
  // A space after a whole text tells the walk that its last number or literal is whole too.
  return walk(`${text} `)
}

/** The walk of a text as far as it goes. */
const walk = (text: string): unknown => {
  const stack: Array<Open> = []
  let root: unknown
  let done = false
  const place = (value: unknown): void => {
    const top = stack[stack.length - 1]
    if (top === undefined) {
      root = value
      done = true
    } else if (top.kind === "array") {
      top.value.push(value)
    } else {
      setKey(top.value, top.key!, value)
      top.key = undefined
    }
  }
  /** What the reader expects next. */
  let expect: "value" | "key" | "colon" | "after" = "value"
  let i = 0
  while (i < text.length) {
    const code = text.charCodeAt(i)
    if (isSpace(code)) {
      i++
      continue
    }
    if (done) return undefined
    const char = text[i]!
    const top = stack[stack.length - 1]
    if (expect === "key") {
      if (char === "}" && top?.kind === "object" && Object.keys(top.value).length === 0) {
        stack.pop()
        expect = "after"
        if (stack.length === 0) done = true
        i++
        continue
      }
      if (char !== '"' || top?.kind !== "object") return undefined
      const key = readString(text, i)
      if (key === undefined) return undefined
      if (!key.closed) break
      top.key = key.value
      expect = "colon"
      i = key.end
      continue
    }
    if (expect === "colon") {
      if (char !== ":") return undefined
      expect = "value"
      i++
      continue
    }
    if (expect === "after") {
      if (char === ",") {
        expect = top?.kind === "object" ? "key" : "value"
        i++
        continue
      }
      if ((char === "]" && top?.kind === "array") || (char === "}" && top?.kind === "object")) {
        stack.pop()
        if (stack.length === 0) done = true
        i++
        continue
      }
      return undefined
    }
    // A value.
    if (char === "]" && top?.kind === "array" && top.value.length === 0) {
      stack.pop()
      expect = "after"
      if (stack.length === 0) done = true
      i++
      continue
    }
    if (char === "{" || char === "[") {
      if (stack.length >= Json.maxDepth) return undefined
      const value = char === "{" ? {} : []
      const open: Open =
        char === "{"
          ? { kind: "object", value: value as Record<string, unknown>, key: undefined }
          : { kind: "array", value: value as Array<unknown> }
      place(value)
      done = false
      stack.push(open)
      expect = char === "{" ? "key" : "value"
      i++
      continue
    }
    if (char === '"') {
      const string = readString(text, i)
      if (string === undefined) return undefined
      place(string.value)
      if (!string.closed) break
      expect = "after"
      i = string.end
      continue
    }
    let end = i
    while (end < text.length && /[-+.0-9a-zA-Z]/.test(text[end]!)) end++
    const token = text.slice(i, end)
    if (end === text.length) {
      // Not yet whole: left out, if it can still become a number or a literal.
      const canGrow =
        /^-?(0|[1-9][0-9]*)?(\.[0-9]*)?([eE][-+]?[0-9]*)?$/.test(token) ||
        literals.some((literal) => literal.startsWith(token))
      if (!canGrow || token === "") return undefined
      break
    }
    const value = Json.parse(token)
    if (Result.isFailure(value) || (typeof value.success === "object" && value.success !== null)) {
      return undefined
    }
    place(value.success)
    expect = "after"
    i = end
  }
  return root
}
