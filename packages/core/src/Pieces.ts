/**
 * A text that arrives in pieces, as a streamed answer's text and a call's arguments do, kept
 * so that a long answer holds about its own size (DECISIONS.md, D35).
 *
 * @since 0.2.0
 * @module
 */

/**
 * A text that arrives in pieces: each run of 256 pieces is appended to one string with `+=`
 * (which only links the pieces, a rope) and made flat as it fills, and the runs are linked at
 * the end. One flat string holds the same characters in much less memory than a rope node per
 * piece (each has its own header); the whole is handed out as a rope, copied once, and only if
 * it is read.
 *
 * @example
 * ```ts
 * import { Pieces } from "@svir/core"
 *
 * const text = Pieces.make()
 * text.empty // true
 * text.add("Kyo")
 * text.add("to")
 * text.join() // "Kyoto"
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Pieces {
  /** Whether no piece that is not empty was added. */
  readonly empty: boolean
  /** Adds the next piece; an empty one changes nothing. */
  add(piece: string): void
  /** The whole text so far. */
  join(): string
}

/**
 * A text with nothing in it yet, or `first` as its first piece.
 *
 * @example
 * ```ts
 * import { Pieces } from "@svir/core"
 *
 * Pieces.make("{").join() // "{"
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (first = ""): Pieces => {
  const pieces = new Runs()
  pieces.add(first)
  return pieces
}

/** How many pieces a run holds before it is made flat. */
const runLength = 256

class Runs implements Pieces {
  private runs: Array<string> | undefined
  private recent = ""
  private count = 0

  get empty(): boolean {
    return this.runs === undefined && this.count === 0
  }

  add(piece: string): void {
    if (piece === "") return
    this.recent += piece
    if (++this.count === runLength) {
      this.runs ??= []
      this.runs.push(flat(this.recent))
      this.recent = ""
      this.count = 0
    }
  }

  join(): string {
    if (this.runs === undefined) return this.recent
    let whole = ""
    for (const run of this.runs) whole += run
    return whole + this.recent
  }
}

/**
 * The same string, made flat (one block of characters) in place. Reading a rope as a number
 * flattens it in V8 (the `flatstr` trick); the number is thrown away.
 */
const flat = (text: string): string => {
  Number(text)
  return text
}
