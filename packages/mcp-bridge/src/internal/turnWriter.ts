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

/**
 * A wait for `stream`'s next `drain`, shared by every write that hit backpressure before it: one
 * listener per episode, however many writes wait, where one each would pass the stream's listener
 * limit and print `MaxListenersExceededWarning` (D33). Writes go out in the order they were
 * made whatever order their waits end in; the wait only says when to send more.
 */
export const makeDrainWait = (stream: Writable): (() => Promise<void>) => {
  let drained: Promise<void> | undefined
  return () => {
    drained ??= new Promise((resolve) =>
      stream.once("drain", () => {
        drained = undefined
        resolve()
      }),
    )
    return drained
  }
}
