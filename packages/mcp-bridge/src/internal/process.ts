/** Keeps the last characters written to a stream, for error messages. */
export const makeTail = (limit: number) => {
  let kept = ""
  return {
    push: (chunk: string): void => {
      kept = (kept + chunk).slice(-limit)
    },
    text: (): string => kept.trim(),
  }
}
