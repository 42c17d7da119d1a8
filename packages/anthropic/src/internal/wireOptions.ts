import { Request, SvirError } from "@svir/core"
import * as Result from "effect/Result"
import { codecName, minThinkingBudget } from "./options.js"

/** D8: the options only the Messages API has, as a request gives them to this codec. */
export interface Options {
  readonly user?: string | undefined
  readonly serviceTier?: "auto" | "standard_only" | undefined
  readonly thinkingBudget?: number | undefined
  readonly topK?: number | undefined
}

const none: Options = {}

const invalid = (message: string): Result.Result<never, SvirError.SvirError> =>
  Result.fail(SvirError.make("Unsupported", `the ${codecName} option ${message}`))

/**
 * D8: the request's options for this codec, checked: a key this codec does not know, or a value
 * out of its range, is Unsupported before anything is sent (core's `Request.codecOptions`: a
 * codec refuses what it does not know).
 */
export const read = (request: Request.Request): Result.Result<Options, SvirError.SvirError> => {
  const given = Request.codecOptionsOf(request, codecName)
  if (given === undefined) return Result.succeed(none)
  const options: { -readonly [K in keyof Options]: Options[K] } = {}
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue
    switch (key) {
      case "user":
        if (typeof value !== "string" || value.trim() === "")
          return invalid("user must be a text that is not empty")
        options.user = value
        break
      case "serviceTier":
        if (value !== "auto" && value !== "standard_only") {
          return invalid(
            `serviceTier must be "auto" or "standard_only", not ${JSON.stringify(value)}`,
          )
        }
        options.serviceTier = value
        break
      case "thinkingBudget":
        if (
          typeof value !== "number" ||
          !Number.isSafeInteger(value) ||
          value < minThinkingBudget
        ) {
          return invalid(
            `thinkingBudget must be a whole number of at least ${minThinkingBudget}, not ${JSON.stringify(value)}`,
          )
        }
        options.thinkingBudget = value
        break
      case "topK":
        if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
          return invalid(`topK must be a whole number of at least 1, not ${JSON.stringify(value)}`)
        }
        options.topK = value
        break
      default:
        return invalid(
          `${JSON.stringify(key)} is not one this codec knows (user, serviceTier, thinkingBudget, topK)`,
        )
    }
  }
  return Result.succeed(options)
}
