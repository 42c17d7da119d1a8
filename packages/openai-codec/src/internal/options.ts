/** The decoder's options with every default filled in. */
export interface Resolved {
  readonly lenient: boolean
  readonly maxBytes: number
  readonly maxEventBytes: number
  readonly maxCalls: number
  readonly makeCallId: () => string
  /** D34: whether `<think>...</think>` in the content is split out as reasoning. */
  readonly splitThink: boolean
}

export const defaultMaxBytes = 64 * 1024 * 1024
export const defaultMaxEventBytes = 4 * 1024 * 1024
export const defaultMaxCalls = 128

const idAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

/**
 * D11: a generated call id is 9 random letters and digits, the only form Mistral-family templates
 * accept, and unique with overwhelming odds across turns too.
 */
export const randomCallId = (): string => {
  const bytes = new Uint8Array(9)
  globalThis.crypto.getRandomValues(bytes)
  let id = ""
  for (const byte of bytes) id += idAlphabet[byte % idAlphabet.length]
  return id
}

/**
 * An id not in `taken`, from `makeCallId`; a generator that keeps giving ids in use (a constant
 * one, say) is left for random ids after a few tries, so that it cannot hang the decoder.
 */
export const freshCallId = (makeCallId: () => string, taken: (id: string) => boolean): string => {
  let id = makeCallId()
  for (let tries = 1; id === "" || taken(id); tries++) {
    id = tries < 8 ? makeCallId() : randomCallId()
  }
  return id
}
