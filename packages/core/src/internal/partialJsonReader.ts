/**
 * The one pass behind `PartialJson`: a JSON text read as it arrives, piece by piece. Between
 * pieces it keeps what is open (the containers, a string or a number cut by the piece's end), so
 * that each character is read once however the text is cut, and the value so far is kept up to
 * date in place rather than built again.
 */
import { maxDepth } from "../Json.js"
import { stringEnd } from "./jsonSyntax.js"

/**
 * Sets a key as `JSON.parse` does: an own property, even one named `__proto__`. Assignment is the
 * fast way; only a key that `Object.prototype` has (`__proto__`'s setter, or a `toString` that a
 * frozen prototype would refuse to shadow) needs the property defined.
 */
const setKey = (target: Record<string, unknown>, key: string, value: unknown): void => {
  if (key in Object.prototype) {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  } else {
    target[key] = value
  }
}

const isSpace = (code: number): boolean => code === 32 || code === 10 || code === 13 || code === 9

/** The characters a number or a literal is read as: `[-+.0-9a-zA-Z]`. */
const isTokenChar = (code: number): boolean =>
  (code >= 97 && code <= 122) ||
  (code >= 48 && code <= 57) ||
  (code >= 65 && code <= 90) ||
  code === 45 ||
  code === 43 ||
  code === 46

/** What a one-letter escape stands for, by the letter's code; `undefined` where there is none. */
const simpleEscapes: ReadonlyArray<string | undefined> = (() => {
  const table: Array<string | undefined> = []
  for (const [letter, char] of Object.entries({
    '"': '"',
    "\\": "\\",
    "/": "/",
    b: "\b",
    f: "\f",
    n: "\n",
    r: "\r",
    t: "\t",
  })) {
    table[letter.charCodeAt(0)] = char
  }
  return table
})()

const hexDigit = (code: number): number =>
  code >= 48 && code <= 57
    ? code - 48
    : code >= 97 && code <= 102
      ? code - 87
      : code >= 65 && code <= 70
        ? code - 55
        : -1

const isDigit = (code: number): boolean => code >= 48 && code <= 57
const isE = (code: number): boolean => code === 101 || code === 69
const isSign = (code: number): boolean => code === 45 || code === 43

/**
 * A token that may still become a number, as `-?(0|[1-9][0-9]*)?(\.[0-9]*)?([eE][-+]?[0-9]*)?`
 * matches it (looser than JSON: `.5` passes here and fails once the token ends). States: 0 start,
 * 1 after `-`, 2 after a leading `0`, 3 in the integer, 4 in the fraction, 5 after `e`, 6 after
 * its sign, 7 in the exponent, 8 dead.
 */
const looseNext = (state: number, code: number): number => {
  switch (state) {
    case 0:
    case 1:
      if (state === 0 && code === 45) return 1
      if (code === 48) return 2
      if (isDigit(code)) return 3
      return code === 46 ? 4 : isE(code) ? 5 : 8
    case 2:
    case 3:
      if (state === 3 && isDigit(code)) return 3
      return code === 46 ? 4 : isE(code) ? 5 : 8
    case 4:
      return isDigit(code) ? 4 : isE(code) ? 5 : 8
    case 5:
      return isSign(code) ? 6 : isDigit(code) ? 7 : 8
    case 6:
    case 7:
      return isDigit(code) ? 7 : 8
    default:
      return 8
  }
}

/**
 * A JSON number: states 0 start, 1 after `-`, 2 a leading `0`, 3 in the integer, 4 after `.`,
 * 5 in the fraction, 6 after `e`, 7 after its sign, 8 in the exponent, 9 dead. The number is
 * whole in 2, 3, 5 and 8.
 */
const strictNext = (state: number, code: number): number => {
  switch (state) {
    case 0:
    case 1:
      if (state === 0 && code === 45) return 1
      return code === 48 ? 2 : isDigit(code) ? 3 : 9
    case 2:
    case 3:
      if (state === 3 && isDigit(code)) return 3
      return code === 46 ? 4 : isE(code) ? 6 : 9
    case 4:
    case 5:
      if (isDigit(code)) return 5
      return state === 5 && isE(code) ? 6 : 9
    case 6:
      return isSign(code) ? 7 : isDigit(code) ? 8 : 9
    case 7:
    case 8:
      return isDigit(code) ? 8 : 9
    default:
      return 9
  }
}

const isWholeNumber = (state: number): boolean =>
  state === 2 || state === 3 || state === 5 || state === 8

/** A number as JSON writes it: what `strictNext` ends whole on, for a token read at once. */
const numberPattern = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/

/** The value of a whole token: a number, `true`, `false` or `null`; `undefined` for another. */
const tokenValue = (token: string, whole: boolean): unknown => {
  if (whole) return Number(token)
  switch (token) {
    case "true":
      return true
    case "false":
      return false
    case "null":
      return null
    default:
      return undefined
  }
}

const literals = ["true", "false", "null"]

/** `indexOf`'s answer, with the text's length for none. */
const found = (at: number, length: number): number => (at === -1 ? length : at)

/** A character JSON refuses in a string, searched from `lastIndex`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON refuses raw control characters
const controlCharacter = /[\u0000-\u001f]/g

/** A whole JSON value, decoded; `undefined` when it is not JSON. */
const decode = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * Where each container that opens in `text` from `from` on closes in it, counting brackets
 * outside strings, with how deep it nests (capped at 255): `close * 256 + depth`, by where it
 * opens. One pass, so that each container of a piece finds its end without reading it again.
 */
const matchBrackets = (text: string, from: number): Map<number, number> => {
  const closes = new Map<number, number>()
  const opens: Array<number> = []
  const depths: Array<number> = []
  const length = text.length
  for (let i = from; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code === 34 /* " */) {
      i = stringEnd(text, i)
    } else if (code === 123 /* { */ || code === 91 /* [ */) {
      opens.push(i)
      depths.push(1)
    } else if ((code === 125 || code === 93) /* } ] */ && opens.length > 0) {
      const depth = depths.pop()!
      closes.set(opens.pop()!, i * 256 + Math.min(depth, 255))
      const outer = depths.length - 1
      if (outer >= 0 && depths[outer]! <= depth) depths[outer] = depth + 1
    }
  }
  return closes
}

/**
 * More significant digits than any double needs: past 767 of them, only whether one of the rest
 * is not 0 can change how a decimal rounds (engines keep 772 and such a mark, too).
 */
const keptDigits = 800

/** The exponent stops growing here: no number of digits can bring it back to a finite double. */
const exponentCap = 1e12

/** What the reader is in the middle of when a piece ends: a string (a value or a key), a token. */
type Within = "nothing" | "value" | "key" | "token"

/** What the reader expects next, outside strings and tokens. */
type Expect = "value" | "key" | "colon" | "after"

/**
 * Reads a JSON text piece by piece; `push` gives the value so far, what `PartialJson.parse`
 * gives for all the text pushed so far.
 */
export class Reader {
  /** The open containers, outermost first, and for each object the key whose value comes next. */
  private readonly stack: Array<Array<unknown> | Record<string, unknown>> = []
  private readonly keys: Array<string | undefined> = []
  private root: unknown = undefined
  private done = false
  private failed = false
  private expect: Expect = "value"
  private within: Within = "nothing"
  /** Pieces of the string or token in progress that came before the current piece's text. */
  private pieces: Array<string> = []
  /** The string in progress as placed so far, whether it is placed yet, and its key in an object. */
  private string = ""
  private placed = false
  private stringKey = ""
  /**
   * Where in the current piece the next quote, backslash and control character are at or after
   * where the reader is (-1 until looked for, the piece's length when there is none): each is
   * looked for again only once the reader has passed it, so that the piece is searched once.
   */
  private quoteAt = -1
  private backslashAt = -1
  private controlAt = -1
  /** An escape in progress: 0 none, 1 after the backslash, 2 to 5 after `\u` and that many - 2 hex digits. */
  private escape = 0
  private hex = 0
  /** The token in progress: its length and where it stands as a number (`looseNext`, `strictNext`). */
  private tokenLength = 0
  private loose = 0
  private strict = 0
  /** A number alone, kept small so that its value at each piece costs no more than the piece. */
  private alone = false
  private negative = false
  private digits = ""
  private sticky = false
  private point = 0
  private exponentNegative = false
  private exponent = 0
  private changedLast = false
  /** Where the containers that open in the current piece close in it (`matchBrackets`). */
  private closes: Map<number, number> | undefined = undefined

  /** Whether the last push may have changed the value; false when it is the same as before. */
  get changed(): boolean {
    return this.changedLast
  }

  /** Reads the next piece of the text, and gives the value so far. */
  push(piece: string): unknown {
    const before = this.value()
    this.changedLast = false
    if (!this.failed) this.read(piece)
    const after = this.value()
    if (!Object.is(before, after)) this.changedLast = true
    return after
  }

  private value(): unknown {
    if (this.failed) return undefined
    if (this.within === "token" && this.stack.length === 0) return this.aloneValue()
    return this.root
  }

  private fail(): void {
    this.failed = true
    this.stack.length = 0
    this.keys.length = 0
    this.pieces = []
    this.root = undefined
  }

  private read(text: string): void {
    const length = text.length
    this.closes = undefined
    this.quoteAt = -1
    this.backslashAt = -1
    this.controlAt = -1
    let i = 0
    while (i < length && !this.failed) {
      if (this.within === "value" || this.within === "key") {
        i = this.readString(text, i)
        continue
      }
      if (this.within === "token") {
        i = this.readToken(text, i)
        continue
      }
      const code = text.charCodeAt(i)
      if (isSpace(code)) {
        i++
        continue
      }
      if (!this.done && this.expect === "value") {
        if (isTokenChar(code)) {
          this.startToken()
          continue
        }
        if (code === 123 /* { */ || code === 91 /* [ */) {
          const end = this.readWholeContainer(text, i)
          if (end !== -1) {
            i = end
            continue
          }
        }
      }
      if (this.done || !this.readSyntax(code)) {
        this.fail()
        return
      }
      i++
    }
    if (this.failed) return
    if (this.within === "value") this.putString(this.takeString(""))
    if (this.within === "token" && !this.canGrow()) this.fail()
  }

  /** Reads one character outside strings and tokens; false if JSON has none there. */
  private readSyntax(code: number): boolean {
    const stack = this.stack
    const top = stack[stack.length - 1]
    const inObject = top !== undefined && !Array.isArray(top)
    switch (this.expect) {
      case "key":
        if (code === 125 /* } */ && inObject && Object.keys(top).length === 0) {
          this.close()
          return true
        }
        if (code !== 34 /* " */ || !inObject) return false
        this.startString("key")
        return true
      case "colon":
        if (code !== 58 /* : */) return false
        this.expect = "value"
        return true
      case "after":
        if (code === 44 /* , */) {
          this.expect = inObject ? "key" : "value"
          return true
        }
        if ((code === 93 /* ] */ && Array.isArray(top)) || (code === 125 /* } */ && inObject)) {
          this.close()
          return true
        }
        return false
      case "value":
        if (code === 93 /* ] */ && Array.isArray(top) && top.length === 0) {
          this.close()
          return true
        }
        if (code === 123 /* { */ || code === 91 /* [ */) {
          if (stack.length >= maxDepth) return false
          const container = code === 123 ? {} : []
          this.place(container)
          this.done = false
          stack.push(container)
          this.keys.push(undefined)
          this.expect = code === 123 ? "key" : "value"
          return true
        }
        if (code !== 34 /* " */) return false
        this.startString("value")
        return true
    }
  }

  /**
   * Reads a container that opens at `open` and closes in the same piece at once, with
   * `JSON.parse`: what it gives for a whole value is what reading it character by character
   * gives, and when it fails, so would that (the brackets match, so the text is not the start of
   * JSON). -1 when the container does not close in the piece.
   */
  private readWholeContainer(text: string, open: number): number {
    this.closes ??= matchBrackets(text, open)
    const found = this.closes.get(open)
    if (found === undefined) return -1
    const close = Math.floor(found / 256)
    const value =
      this.stack.length + (found % 256) > maxDepth ? undefined : decode(text.slice(open, close + 1))
    if (value === undefined) {
      this.fail()
      return text.length
    }
    this.place(value)
    this.expect = "after"
    return close + 1
  }

  private close(): void {
    this.stack.pop()
    this.keys.pop()
    this.expect = "after"
    if (this.stack.length === 0) this.done = true
  }

  /** Puts a value that has begun in the container that is open, or at the root. */
  private place(value: unknown): void {
    this.changedLast = true
    const depth = this.stack.length
    const top = this.stack[depth - 1]
    if (top === undefined) {
      this.root = value
      this.done = true
    } else if (Array.isArray(top)) {
      top.push(value)
    } else {
      setKey(top, this.keys[depth - 1]!, value)
      this.keys[depth - 1] = undefined
    }
  }

  private startString(within: "value" | "key"): void {
    this.within = within
    this.string = ""
    this.placed = false
    this.escape = 0
    if (within === "value") this.stringKey = this.keys[this.keys.length - 1] ?? ""
  }

  /**
   * Puts the string in progress as far as it has come: placed the first time (so that a string
   * cut by a piece's end shows), and put again where it stands each time it has grown.
   */
  private putString(string: string): void {
    if (!this.placed) {
      this.placed = true
      this.string = string
      this.place(string)
      return
    }
    if (string.length === this.string.length) return
    this.string = string
    this.changedLast = true
    const top = this.stack[this.stack.length - 1]
    if (top === undefined) this.root = string
    else if (Array.isArray(top)) top[top.length - 1] = string
    // The key is an own property by now: assigning it sets that, even for `__proto__`.
    else top[this.stringKey] = string
  }

  /** The string in progress so far: what earlier pieces gave, then `tail` from this one. */
  private takeString(tail: string): string {
    if (this.pieces.length === 0) return this.string === "" ? tail : this.string + tail
    return this.string + this.takePieces() + tail
  }

  private takePieces(): string {
    const pieces = this.pieces
    this.pieces = []
    return pieces.length === 1 ? pieces[0]! : pieces.join("")
  }

  /**
   * Reads a string's characters from `start`, up to its closing quote or the piece's end: the
   * text between escapes is found with `indexOf`, as the engine's own `JSON.parse` does.
   */
  private readString(text: string, start: number): number {
    const length = text.length
    let i = this.escape === 0 ? start : this.readEscape(text, start)
    while (i < length) {
      if (this.quoteAt < i) this.quoteAt = found(text.indexOf('"', i), length)
      if (this.backslashAt < i) this.backslashAt = found(text.indexOf("\\", i), length)
      if (this.controlAt < i) {
        controlCharacter.lastIndex = i
        this.controlAt = controlCharacter.test(text) ? controlCharacter.lastIndex - 1 : length
      }
      const stop = Math.min(this.quoteAt, this.backslashAt)
      if (this.controlAt < stop) {
        this.fail()
        return length
      }
      const run = text.slice(i, stop)
      if (stop === length) {
        if (run !== "") this.pieces.push(run)
        return length
      }
      if (stop === this.quoteAt) {
        this.endString(this.takeString(run))
        return stop + 1
      }
      if (run !== "") this.pieces.push(run)
      this.escape = 1
      i = this.readEscape(text, stop + 1)
    }
    return length
  }

  /** Reads what comes of an escape from `start`, until it is whole or the piece ends. */
  private readEscape(text: string, start: number): number {
    const length = text.length
    let i = start
    while (i < length && this.escape !== 0) {
      const code = text.charCodeAt(i)
      i++
      if (this.escape === 1) {
        if (code === 117 /* u */) {
          this.escape = 2
          this.hex = 0
          continue
        }
        const char = simpleEscapes[code]
        if (char === undefined) {
          this.fail()
          return length
        }
        this.pieces.push(char)
        this.escape = 0
        continue
      }
      const digit = hexDigit(code)
      if (digit < 0) {
        this.fail()
        return length
      }
      this.hex = this.hex * 16 + digit
      if (this.escape === 5) {
        this.pieces.push(String.fromCharCode(this.hex))
        this.escape = 0
      } else {
        this.escape++
      }
    }
    return i
  }

  private endString(string: string): void {
    if (this.within === "key") {
      this.keys[this.keys.length - 1] = string
      this.expect = "colon"
    } else {
      this.putString(string)
      this.expect = "after"
    }
    this.within = "nothing"
  }

  private startToken(): void {
    this.within = "token"
    this.tokenLength = 0
    this.loose = 0
    this.strict = 0
    this.alone = this.stack.length === 0
    if (this.alone) {
      this.negative = false
      this.digits = ""
      this.sticky = false
      this.point = 0
      this.exponentNegative = false
      this.exponent = 0
    }
  }

  /** Reads a number's or a literal's characters from `start`, up to its end or the piece's. */
  private readToken(text: string, start: number): number {
    const length = text.length
    let i = start
    while (i < length && isTokenChar(text.charCodeAt(i))) i++
    if (i < length && this.tokenLength === 0) {
      // The whole token is in this piece: read at once.
      const token = text.slice(start, i)
      return this.endToken(tokenValue(token, numberPattern.test(token)), i)
    }
    // Cut by a piece's end: read character by character, from where the last piece left it.
    let loose = this.loose
    let strict = this.strict
    for (let at = start; at < i; at++) {
      const code = text.charCodeAt(at)
      loose = looseNext(loose, code)
      strict = strictNext(strict, code)
      if (this.alone) this.keepDigit(strict, code)
    }
    this.loose = loose
    this.strict = strict
    if (i > start) {
      this.pieces.push(text.slice(start, i))
      this.tokenLength += i - start
    }
    if (i === length) return i
    return this.endToken(tokenValue(this.takePieces(), isWholeNumber(strict)), i)
  }

  private endToken(value: unknown, end: number): number {
    this.within = "nothing"
    if (value === undefined) {
      this.fail()
      return end
    }
    this.place(value)
    this.expect = "after"
    return end
  }

  /** Whether the token cut by the piece's end can still become a number or a literal. */
  private canGrow(): boolean {
    if (this.loose !== 8) return true
    if (this.tokenLength > 5) return false
    const token = this.pieces.join("")
    return literals.some((literal) => literal.startsWith(token))
  }
  /**
   * Keeps a number alone as its sign, its first significant digits (and whether a later one is
   * not 0), where its point falls, and its exponent: enough for its value, in bounded space.
   */
  private keepDigit(state: number, code: number): void {
    switch (state) {
      case 1:
        this.negative = true
        return
      case 3:
      case 5:
        if (this.digits === "" && code === 48) {
          this.point--
          return
        }
        if (this.digits.length < keptDigits) this.digits += String.fromCharCode(code)
        else if (code !== 48) this.sticky = true
        if (state === 3) this.point++
        return
      case 7:
        this.exponentNegative = code === 45
        return
      case 8:
        this.exponent = Math.min(this.exponent * 10 + code - 48, exponentCap)
        return
      default:
        return
    }
  }

  /** The value so far of a number or a literal that is the whole text, if it is whole. */
  private aloneValue(): unknown {
    if (isWholeNumber(this.strict)) {
      if (this.digits === "") return this.negative ? -0 : 0
      const exponent = this.point + (this.exponentNegative ? -this.exponent : this.exponent)
      return Number(
        `${this.negative ? "-" : ""}0.${this.digits}${this.sticky ? "1" : ""}e${exponent}`,
      )
    }
    return this.tokenLength > 5 ? undefined : tokenValue(this.pieces.join(""), false)
  }
}
