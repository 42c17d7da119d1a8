/**
 * Finds where a text stops being JSON. Used only after `JSON.parse` failed, to tell a model where
 * its arguments broke: the engines' own messages do not always give a position.
 */

/** The offset of the first character that is not valid JSON (the text's length at its end). */
export const errorOffset = (text: string): number => {
  let at = 0

  const space = (): void => {
    while (at < text.length && " \t\n\r".includes(text[at]!)) at++
  }

  // Each reader returns true when what it reads at `at` was read whole, leaving `at` after it.
  const key = (): boolean => {
    space()
    if (text[at] !== '"' || !string()) return false
    space()
    if (text[at] !== ":") return false
    at++
    return true
  }

  const scalar = (): boolean => {
    const char = text[at]
    if (char === '"') return string()
    if (char === "t") return word("true")
    if (char === "f") return word("false")
    if (char === "n") return word("null")
    return number()
  }

  const word = (expected: string): boolean => {
    for (const char of expected) {
      if (text[at] !== char) return false
      at++
    }
    return true
  }

  const string = (): boolean => {
    at++
    while (at < text.length) {
      const char = text[at]!
      if (char === '"') {
        at++
        return true
      }
      if (char < " ") return false
      if (char === "\\") {
        at++
        const escaped = text[at]
        if (escaped === "u") {
          for (let i = 0; i < 4; i++) {
            at++
            if (!/[0-9a-fA-F]/.test(text[at] ?? "")) return false
          }
        } else if (escaped === undefined || !'"\\/bfnrt'.includes(escaped)) {
          return false
        }
      }
      at++
    }
    return false
  }

  const number = (): boolean => {
    const rest = text.slice(at, at + 400)
    const strict = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(rest)?.[0] ?? ""
    const loose = /^-?\d*(\.\d*)?([eE][+-]?\d*)?/.exec(rest)?.[0] ?? ""
    // A number cut off at the end of the text (`1.`, `2e`) broke where the text ends.
    if (loose.length > strict.length && at + loose.length === text.length) {
      at = text.length
      return false
    }
    if (strict.length === 0) return false
    at += strict.length
    return true
  }

  const broke = (): number => Math.min(at, text.length)

  // The closers of the arrays and objects still open, innermost last: a stack in place of
  // recursion, so that no nesting, however deep, can overflow the call stack.
  const open: Array<"]" | "}"> = []
  for (;;) {
    // A value starts here.
    space()
    const char = text[at]
    if (char === "[" || char === "{") {
      at++
      space()
      const closer = char === "[" ? "]" : "}"
      if (text[at] !== closer) {
        if (closer === "}" && !key()) return broke()
        open.push(closer)
        continue
      }
      at++
    } else if (!scalar()) {
      return broke()
    }
    // A value ended here: close what it ends, until a comma starts the next value.
    for (;;) {
      space()
      const closer = open.at(-1)
      if (closer === undefined) return at
      if (text[at] === ",") {
        at++
        if (closer === "}" && !key()) return broke()
        break
      }
      if (text[at] !== closer) return broke()
      at++
      open.pop()
    }
  }
}

/** The offset of the quote that closes the string opened at `open` (the text's end if none). */
export const stringEnd = (text: string, open: number): number => {
  let quote = text.indexOf('"', open + 1)
  while (quote !== -1) {
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === 92 /* \\ */) backslashes++
    if (backslashes % 2 === 0) return quote
    quote = text.indexOf('"', quote + 1)
  }
  return text.length
}
