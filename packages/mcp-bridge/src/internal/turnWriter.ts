import type { Writable } from "node:stream"

/** The most messages written together; the next go out in a further write (D32). */
export const batchSize = 16

/**
 * A writer to `stream` that sends what is written in one turn of the event loop together: up to
 * {@link batchSize} texts in one write (a `writev` for a pipe or socket), the next ones in further
 * writes, the last of them when the turn ends. Each call gives `stream.write`'s answer: `false`
 * says to wait for `drain`.
 */
export const makeTurnWriter = (stream: Writable): ((text: string) => boolean) => {
  let sentThisTurn = 0
  const endTurn = (): void => {
    sentThisTurn = 0
    stream.uncork()
  }
  return (text) => {
    if (sentThisTurn === 0) {
      stream.cork()
      process.nextTick(endTurn)
    } else if (sentThisTurn % batchSize === 0) {
      stream.uncork()
      stream.cork()
    }
    sentThisTurn++
    return stream.write(text)
  }
}
