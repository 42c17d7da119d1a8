/**
 * A text that arrives in pieces, as openai-codec's assembly keeps one (its D45, D47): each run of
 * 256 pieces is appended to one string with `+=` and made flat as it fills, and the runs are
 * linked at the end. A long answer then holds about its own size, not a rope node per piece.
 */
export class Pieces {
  private runs: Array<string> | undefined
  private recent = ""
  private count = 0

  /** Whether no piece that is not empty was added. */
  get empty(): boolean {
    return this.runs === undefined && this.recent === ""
  }

  add(piece: string): void {
    if (piece === "") return
    this.recent += piece
    if (++this.count === 256) {
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

/** The same string, made flat in place: reading a rope as a number flattens it in V8. */
const flat = (text: string): string => {
  Number(text)
  return text
}
