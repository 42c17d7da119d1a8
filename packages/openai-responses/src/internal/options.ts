/** The codec's name, under which a request gives it options (`Request.codecOptions`). */
export const codecName = "openai-responses"

/** The codec's options with every default filled in. */
export interface Resolved {
  readonly lenient: boolean
  readonly maxBytes: number
  readonly maxEventBytes: number
  readonly maxCalls: number
}

export const defaultMaxBytes = 64 * 1024 * 1024
export const defaultMaxEventBytes = 4 * 1024 * 1024
export const defaultMaxCalls = 128
