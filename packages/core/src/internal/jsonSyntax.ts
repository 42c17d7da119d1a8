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

  // Each reader returns true when the value at `at` was read whole, leaving `at` after it.
  const value = (): boolean => {
    space()
    const char = text[at]
    if (char === "{") return object()
    if (char === "[") return array()
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

  const object = (): boolean => {
    at++
    space()
    if (text[at] === "}") {
      at++
      return true
    }
    for (;;) {
      space()
      if (text[at] !== '"' || !string()) return false
      space()
      if (text[at] !== ":") return false
      at++
      if (!value()) return false
      space()
      if (text[at] === ",") {
        at++
        continue
      }
      if (text[at] !== "}") return false
      at++
      return true
    }
  }

  const array = (): boolean => {
    at++
    space()
    if (text[at] === "]") {
      at++
      return true
    }
    for (;;) {
      if (!value()) return false
      space()
      if (text[at] === ",") {
        at++
        continue
      }
      if (text[at] !== "]") return false
      at++
      return true
    }
  }

  if (!value()) return Math.min(at, text.length)
  space()
  return at
}
