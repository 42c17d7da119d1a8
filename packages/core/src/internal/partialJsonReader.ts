/**
 * The one pass behind `PartialJson`: a JSON text read as it arrives, piece by piece. Between
 * pieces it keeps what is open (the containers, a string or a number cut by the piece's end), so
 * that each character is read once however the text is cut, and the value so far is kept up to
 * date in place rather than built again.
 */
import { maxDepth } from "../Json.js"

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

/** The value of a token read whole: a number, `true`, `false` or `null`; `undefined` for another. */
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

/**
 * The value of the token at `start` to `end` of `text`, read where it stands: a number as JSON
 * writes it, `true`, `false` or `null`; `undefined` for another. The character at `end` is not
 * one a token is read as, so reading it ends each run of digits without a bound check. An integer
 * of up to 15 digits is added up as it is read, exactly: no text is cut out for it.
 */
const wholeTokenValue = (text: string, start: number, end: number): unknown => {
  const first = text.charCodeAt(start)
  const length = end - start
  switch (first) {
    case 116 /* t */:
      return length === 4 && text.startsWith("true", start) ? true : undefined
    case 102 /* f */:
      return length === 5 && text.startsWith("false", start) ? false : undefined
    case 110 /* n */:
      return length === 4 && text.startsWith("null", start) ? null : undefined
  }
  let i = first === 45 /* - */ ? start + 1 : start
  let code = text.charCodeAt(i)
  let integer = 0
  if (code === 48 /* 0 */) {
    code = text.charCodeAt(++i)
  } else if (isDigit(code)) {
    do {
      integer = integer * 10 + code - 48
      code = text.charCodeAt(++i)
    } while (isDigit(code))
  } else {
    return undefined
  }
  if (i === end && length <= 15) return first === 45 ? -integer : integer
  if (code === 46 /* . */) {
    const point = i
    code = text.charCodeAt(++i)
    if (!isDigit(code)) return undefined
    do {
      integer = integer * 10 + code - 48
      code = text.charCodeAt(++i)
    } while (isDigit(code))
    // Up to 15 digits in all, the digits make an exact integer and one division by an exact
    // power of ten rounds once, as reading the text does: no text is cut out for it.
    if (i === end && length <= 16) {
      const value = integer / powersOfTen[i - point - 1]!
      return first === 45 ? -value : value
    }
  }
  if (isE(code)) {
    code = text.charCodeAt(++i)
    if (isSign(code)) code = text.charCodeAt(++i)
    if (!isDigit(code)) return undefined
    while (isDigit(code)) code = text.charCodeAt(++i)
  }
  return i === end ? Number(text.slice(start, end)) : undefined
}

const literals = ["true", "false", "null"]

/** 10 to the power of 0 to 15, each exact. */
const powersOfTen = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
]

/** `indexOf`'s answer, with the text's length for none. */
const found = (at: number, length: number): number => (at === -1 ? length : at)

/** A character JSON refuses in a string, searched from `lastIndex`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON refuses raw control characters
const controlCharacter = /[\u0000-\u001f]/g

/**
 * More significant digits than any double needs: past 767 of them, only whether one of the rest
 * is not 0 can change how a decimal rounds (engines keep 772 and such a mark, too).
 */
const keptDigits = 800

/** The exponent stops growing here: no number of digits can bring it back to a finite double. */
const exponentCap = 1e12

/** Slots of the cache of keys: the keys of an answer's records are few, and come again. */
const keySlots = 256

// What the reader expects next, outside strings and tokens. The first value of an array and the
// first key of an object are their own states, because only there may the container close.
const expectValue = 0
const expectFirstValue = 1
const expectKey = 2
const expectFirstKey = 3
const expectColon = 4
const expectAfter = 5

// What the reader is in the middle of when a piece ends: a string (a value or a key), a token.
const withinNothing = 0
const withinValue = 1
const withinKey = 2
const withinToken = 3

/**
 * Reads a JSON text piece by piece; `push` gives the value so far, what `PartialJson.parse`
 * gives for all the text pushed so far.
 */
export class Reader {
  /** The open containers, outermost first, and for each object the key whose value comes next. */
  private readonly stack: Array<Array<unknown> | Record<string, unknown>> = []
  private readonly keys: Array<string> = []
  /** The innermost open container, and whether it is an array. */
  private top: Array<unknown> | Record<string, unknown> | undefined = undefined
  private topIsArray = false
  /**
   * How many of the open containers were open before this piece. An array opened in this piece
   * is not yet shown, so its items are kept in `items` (from `bases` at its depth, -1 for the
   * others) and it is made at once when it closes or the piece ends: the length `JSON.parse`
   * gives it, rather than the room that pushing item by item grows it to.
   */
  private settled = 0
  private readonly items: Array<unknown> = []
  /**
   * How many of `items` are in use. The array is not shortened when an array is made from its
   * end: the engine frees the storage of an array set to length 0, so every array opened in a
   * piece would allocate it anew.
   */
  private itemCount = 0
  private readonly bases: Array<number> = []
  private topBase = -1
  private root: unknown = undefined
  private done = false
  private failed = false
  private expect = expectValue
  private within = withinNothing
  /**
   * The string in progress (a value or a key), decoded as far as earlier pieces took it; for a
   * value, how long it was when last put, and its key in an object.
   */
  private string = ""
  private placed = false
  private putLength = 0
  private stringKey = ""
  /**
   * Where in the current piece the next quote, backslash and control character are at or after
   * where the reader is (-1 until looked for, the piece's length when there is none): each is
   * looked for again only once the reader has passed it, so that the piece is searched once.
   */
  private quoteAt = -1
  private backslashAt = -1
  private controlAt = -1
  /** An escape cut by a piece's end: 0 none, 1 after the backslash, 2 to 5 after `\u` and that many - 2 hex digits. */
  private escape = 0
  private hex = 0
  /** A token cut by a piece's end: its text so far, and where it stands as a number (`looseNext`, `strictNext`). */
  private token = ""
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
  /**
   * Keys seen, by a slot of their length and first and last characters: a key that comes again
   * is the same string, compared where it stands rather than cut out of the piece anew.
   */
  private readonly keyCache: Array<string> = new Array<string>(keySlots).fill("")
  /** Whether the key awaited was found in, or put in, the cache: then it is simply assigned. */
  private keyPlain = false

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
    if (this.within === withinToken && this.stack.length === 0) return this.aloneValue()
    return this.root
  }

  private fail(): void {
    this.failed = true
    this.stack.length = 0
    this.keys.length = 0
    this.items.length = 0
    this.itemCount = 0
    this.bases.length = 0
    this.top = undefined
    this.string = ""
    this.token = ""
    this.root = undefined
  }

  private read(text: string): void {
    const length = text.length
    this.quoteAt = -1
    this.backslashAt = -1
    this.controlAt = -1
    this.settled = this.stack.length
    let i = 0
    if (this.within === withinToken) i = this.readToken(text, 0)
    else if (this.within !== withinNothing) i = this.readString(text, 0)
    while (i < length && !this.failed) {
      const code = text.charCodeAt(i)
      if (code === 32 || code === 10 || code === 13 || code === 9) {
        i++
        continue
      }
      if (this.done) {
        this.fail()
        return
      }
      switch (this.expect) {
        case expectAfter:
          if (code === 44 /* , */) {
            this.expect = this.topIsArray ? expectValue : expectKey
          } else if (code === (this.topIsArray ? 93 /* ] */ : 125) /* } */) {
            this.close()
          } else {
            this.fail()
            return
          }
          i++
          continue
        case expectColon:
          if (code !== 58 /* : */) {
            this.fail()
            return
          }
          this.expect = expectValue
          i++
          continue
        case expectKey:
        case expectFirstKey:
          if (code === 34 /* " */) {
            this.within = withinKey
            this.keyPlain = false
            this.string = ""
            i = this.readString(text, i + 1)
          } else if (code === 125 /* } */ && this.expect === expectFirstKey) {
            this.close()
            i++
          } else {
            this.fail()
            return
          }
          continue
        default:
          if (code === 34 /* " */) {
            this.within = withinValue
            this.string = ""
            this.placed = false
            this.stringKey = this.topIsArray ? "" : this.keys[this.keys.length - 1]!
            i = this.readString(text, i + 1)
          } else if (isTokenChar(code)) {
            i = this.readToken(text, i)
          } else if (code === 123 /* { */ || code === 91 /* [ */) {
            if (!this.open(code === 91)) return
            i++
          } else if (code === 93 /* ] */ && this.expect === expectFirstValue) {
            this.close()
            i++
          } else {
            this.fail()
            return
          }
      }
    }
    if (this.failed) return
    if (this.within === withinToken && !this.canGrow()) this.fail()
    else if (this.settled < this.stack.length) this.settle()
  }

  /** Opens an array or an object where a value starts; false (failed) past `maxDepth`. */
  private open(isArray: boolean): boolean {
    const stack = this.stack
    if (stack.length >= maxDepth) {
      this.fail()
      return false
    }
    const container = isArray ? [] : {}
    this.place(container)
    this.done = false
    stack.push(container)
    this.keys.push("")
    const base = isArray ? this.itemCount : -1
    this.bases.push(base)
    this.top = container
    this.topIsArray = isArray
    this.topBase = base
    this.expect = isArray ? expectFirstValue : expectFirstKey
    return true
  }

  private close(): void {
    const stack = this.stack
    stack.pop()
    this.keys.pop()
    const base = this.bases.pop()!
    const depth = stack.length
    if (base >= 0 && this.itemCount > base) {
      // An array opened in this piece: made at once from its items.
      const array = this.items.slice(base, this.itemCount)
      this.itemCount = base
      this.putLast(depth, array)
    }
    if (depth < this.settled) this.settled = depth
    const top = stack[depth - 1]
    this.top = top
    this.topIsArray = Array.isArray(top)
    this.topBase = depth === 0 ? -1 : this.bases[depth - 1]!
    this.expect = expectAfter
    if (top === undefined) this.done = true
  }

  /**
   * Makes the arrays opened in this piece and still open, from their items, so that the value
   * shows them; from then on they grow in place. Innermost first: each goes into the items of
   * the one around it.
   */
  private settle(): void {
    const stack = this.stack
    const bases = this.bases
    for (let depth = stack.length - 1; depth >= this.settled; depth--) {
      const base = bases[depth]!
      if (base < 0) continue
      if (this.itemCount > base) {
        const array = this.items.slice(base, this.itemCount)
        this.itemCount = base
        this.putLast(depth, array)
        stack[depth] = array
      }
      bases[depth] = -1
    }
    this.settled = stack.length
    this.top = stack[stack.length - 1]
    this.topBase = -1
  }

  /** Puts `value` in place of the last value put in the container at `depth - 1`, or the root. */
  private putLast(depth: number, value: unknown): void {
    const top = this.stack[depth - 1]
    if (top === undefined) {
      this.root = value
    } else if (Array.isArray(top)) {
      if (this.bases[depth - 1]! >= 0) this.items[this.itemCount - 1] = value
      else top[top.length - 1] = value
    } else {
      // The key is an own property by now: assigning it sets that, even for `__proto__`.
      top[this.keys[depth - 1]!] = value
    }
  }

  /** Puts a value that has begun in the container that is open, or at the root. */
  private place(value: unknown): void {
    this.changedLast = true
    const top = this.top
    if (top === undefined) {
      this.root = value
      this.done = true
    } else if (this.topIsArray) {
      if (this.topBase >= 0) this.items[this.itemCount++] = value
      else (top as Array<unknown>).push(value)
    } else if (this.keyPlain) {
      ;(top as Record<string, unknown>)[this.keys[this.keys.length - 1]!] = value
    } else {
      setKey(top as Record<string, unknown>, this.keys[this.keys.length - 1]!, value)
    }
  }

  /**
   * Puts the string in progress as far as it has come: placed the first time (so that a string
   * cut by a piece's end shows), and put again where it stands each time it has grown.
   */
  private putString(string: string): void {
    if (!this.placed) {
      this.placed = true
      this.putLength = string.length
      this.place(string)
      return
    }
    if (string.length === this.putLength) return
    this.putLength = string.length
    this.changedLast = true
    const top = this.top
    if (top === undefined) {
      this.root = string
    } else if (this.topIsArray) {
      if (this.topBase >= 0) this.items[this.itemCount - 1] = string
      else (top as Array<unknown>)[(top as Array<unknown>).length - 1] = string
    }
    // The key is an own property by now: assigning it sets that, even for `__proto__`.
    else (top as Record<string, unknown>)[this.stringKey] = string
  }

  /**
   * Reads a string's characters from `start`, up to its closing quote or the piece's end. The
   * quotes and backslashes are found with `indexOf`; the text between is taken whole, a run
   * without escapes cut out as it is and one with escapes decoded by the engine at once.
   */
  private readString(text: string, start: number): number {
    const length = text.length
    // Whether the string opened in this piece, just before `start`.
    const opened = start > 0
    let i = start
    if (this.escape !== 0) {
      i = this.readEscape(text, i)
      if (this.failed) return length
      if (this.escape !== 0) {
        if (this.within === withinValue) this.putString(this.string)
        return length
      }
    }
    const from = i
    // The text decoded so far between `from` and `run`, where the run not yet taken begins.
    let decoded = ""
    let run = i
    let end = length
    let closed = false
    for (;;) {
      if (this.quoteAt < i) this.quoteAt = found(text.indexOf('"', i), length)
      if (this.backslashAt < i) this.backslashAt = found(text.indexOf("\\", i), length)
      const quote = this.quoteAt
      const backslash = this.backslashAt
      if (quote < backslash) {
        end = quote
        closed = true
        break
      }
      if (backslash === length) break
      const letter = backslash + 1
      if (letter === length) {
        this.escape = 1
        end = backslash
        break
      }
      const code = text.charCodeAt(letter)
      if (code === 34 /* " */ || code === 92 /* \\ */ || code === 47 /* / */) {
        // The escape stands for its letter: the run goes on from there.
        decoded += text.slice(run, backslash)
        run = letter
        i = letter + 1
        continue
      }
      if (code !== 117 /* u */) {
        const char = simpleEscapes[code]
        if (char === undefined) {
          this.fail()
          return length
        }
        decoded += text.slice(run, backslash) + char
        run = letter + 1
        i = run
        continue
      }
      if (letter + 4 >= length) {
        // A `\u` escape cut by the piece's end: the hex digits it has so far must be hex.
        this.escape = 2
        this.hex = 0
        end = backslash
        this.readEscape(text, letter + 1)
        if (this.failed) return length
        break
      }
      const unit =
        (hexDigit(text.charCodeAt(letter + 1)) << 12) |
        (hexDigit(text.charCodeAt(letter + 2)) << 8) |
        (hexDigit(text.charCodeAt(letter + 3)) << 4) |
        hexDigit(text.charCodeAt(letter + 4))
      if (unit < 0) {
        this.fail()
        return length
      }
      decoded += text.slice(run, backslash) + String.fromCharCode(unit)
      run = letter + 5
      i = run
    }
    if (this.controlAt < from) {
      controlCharacter.lastIndex = from
      this.controlAt = controlCharacter.test(text) ? controlCharacter.lastIndex - 1 : length
    }
    if (this.controlAt < end) {
      this.fail()
      return length
    }
    // A key whole in the piece, without escapes, is looked up where it stands.
    const keyHere = run === from && opened && closed && this.within === withinKey
    const part =
      run !== from
        ? decoded + text.slice(run, end)
        : keyHere
          ? this.keyAt(text, from, end)
          : text.slice(from, end)
    const string = this.string === "" ? part : part === "" ? this.string : this.string + part
    if (!closed) {
      this.string = string
      if (this.within === withinValue) this.putString(string)
      return length
    }
    if (this.within === withinKey) {
      // Any other key is looked up once whole, so that it too is simply assigned.
      this.keys[this.keys.length - 1] = keyHere ? string : this.keyAt(string, 0, string.length)
      this.expect = expectColon
    } else {
      this.putString(string)
      this.expect = expectAfter
    }
    this.within = withinNothing
    this.string = ""
    return end + 1
  }

  /** The key at `start` to `end` of `text`: the same string as the last key like it, if it is that key. */
  private keyAt(text: string, start: number, end: number): string {
    const length = end - start
    if (length === 0) {
      this.keyPlain = true
      return ""
    }
    const slot =
      (length * 31 + text.charCodeAt(start) * 7 + text.charCodeAt(end - 1)) & (keySlots - 1)
    const cached = this.keyCache[slot]!
    if (cached.length === length && text.startsWith(cached, start)) {
      this.keyPlain = true
      return cached
    }
    const key = text.slice(start, end)
    // Only a key that `Object.prototype` lacks is kept, so that one found here is assigned.
    if (!(key in Object.prototype)) {
      this.keyCache[slot] = key
      this.keyPlain = true
    }
    return key
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
        this.string += char
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
        this.string += String.fromCharCode(this.hex)
        this.escape = 0
      } else {
        this.escape++
      }
    }
    return i
  }

  /** Reads a number's or a literal's characters from `start`, up to its end or the piece's. */
  private readToken(text: string, start: number): number {
    const length = text.length
    let i = start
    while (i < length && isTokenChar(text.charCodeAt(i))) i++
    if (this.within !== withinToken) {
      if (i < length) return this.endToken(wholeTokenValue(text, start, i), i)
      this.startToken()
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
    if (i > start) this.token += text.slice(start, i)
    if (i === length) return i
    const token = this.token
    this.token = ""
    return this.endToken(tokenValue(token, isWholeNumber(strict)), i)
  }

  private startToken(): void {
    this.within = withinToken
    this.token = ""
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

  private endToken(value: unknown, end: number): number {
    this.within = withinNothing
    if (value === undefined) {
      this.fail()
      return end
    }
    this.place(value)
    this.expect = expectAfter
    return end
  }

  /** Whether the token cut by the piece's end can still become a number or a literal. */
  private canGrow(): boolean {
    if (this.loose !== 8) return true
    const token = this.token
    if (token.length > 5) return false
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
    return this.token.length > 5 ? undefined : tokenValue(this.token, false)
  }
}
