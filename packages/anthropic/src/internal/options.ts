import type { Request } from "@svir/core"

/** The codec's name, under which a request gives it options (`Request.codecOptions`). */
export const codecName = "anthropic-messages"

/** A reasoning effort that asks for thinking: every one but `none`. */
export type ThinkingEffort = Exclude<Request.ReasoningEffort, "none">

/** The codec's options with every default filled in. */
export interface Resolved {
  readonly lenient: boolean
  readonly maxBytes: number
  readonly maxEventBytes: number
  readonly maxCalls: number
  /** D3: `max_tokens` when the request sets none (the answer's share, thinking added on top). */
  readonly defaultMaxTokens: number
  /** D4: the thinking budget of each reasoning effort. */
  readonly thinkingBudgets: Readonly<Record<ThinkingEffort, number>>
}

export const defaultMaxBytes = 64 * 1024 * 1024
export const defaultMaxEventBytes = 4 * 1024 * 1024
export const defaultMaxCalls = 128

/** D3: the smallest output limit of any Claude model, and what both SDKs fall back to. */
export const defaultMaxTokens = 4096

/** D4: LiteLLM's budgets, with `minimal` at the API's minimum of 1024. */
export const defaultThinkingBudgets: Readonly<Record<ThinkingEffort, number>> = {
  minimal: 1024,
  low: 1024,
  medium: 2048,
  high: 4096,
}

/** The API's smallest thinking budget ("Must be ≥1024 and less than `max_tokens`"). */
export const minThinkingBudget = 1024
