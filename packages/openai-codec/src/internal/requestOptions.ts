import { Json, SvirError } from "@svir/core"
import * as Result from "effect/Result"

/** D66: the tiers of the official client's `service_tier`. */
const serviceTiers = ["auto", "default", "flex", "scale", "priority", "fast"] as const

type ServiceTier = (typeof serviceTiers)[number]

/** D66: the codec's options of a request, checked: each one `undefined` unless given. */
export interface Checked {
  readonly logitBias: Readonly<Record<string, number>> | undefined
  readonly logprobs: boolean | undefined
  readonly topLogprobs: number | undefined
  readonly serviceTier: ServiceTier | undefined
  readonly prediction: string | undefined
  readonly user: string | undefined
}

/** What a request with no options of this codec gives. */
const none: Checked = {
  logitBias: undefined,
  logprobs: undefined,
  topLogprobs: undefined,
  serviceTier: undefined,
  prediction: undefined,
  user: undefined,
}

/** The option names, in the order they are checked (and written, D48). */
const names: ReadonlyArray<keyof Checked> = Object.keys(none) as Array<keyof Checked>

const refused = (message: string): Result.Result<never, SvirError.SvirError> =>
  Result.fail(SvirError.make("Unsupported", message))

/** The kind of a value, for an error that must not repeat the value itself. */
const kindOf = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "object"
        ? "an object"
        : `a ${typeof value}`

const wrongType = (name: string, wanted: string, value: unknown) =>
  refused(`the option ${name} of OpenAiCodec.options must be ${wanted}, not ${kindOf(value)}`)

const tokenId = /^\d{1,15}$/

const isTier = (value: unknown): value is ServiceTier => serviceTiers.some((tier) => tier === value)

/**
 * D66: reads the options a request gives this codec (`Request.codecOptionsOf`), as the caller
 * gave them: anything but an object of the known options, each of its type and in its range
 * (the ranges core's D12 gave them), is an Unsupported error before anything is sent. An option
 * given as `undefined` is not given.
 */
export const read = (given: unknown): Result.Result<Checked, SvirError.SvirError> => {
  if (given === undefined) return Result.succeed(none)
  if (!Json.isObject(given)) {
    return refused(`OpenAiCodec.options takes an object of options, not ${kindOf(given)}`)
  }
  for (const key of Object.keys(given)) {
    if (!(names as ReadonlyArray<string>).includes(key)) {
      return refused(
        `OpenAiCodec.options has no option ${key}; it takes ${names.join(", ")}; a field of a server's own goes in Request.extra`,
      )
    }
  }
  const { logitBias, logprobs, topLogprobs, serviceTier, prediction, user } = given
  if (logitBias !== undefined) {
    if (!Json.isObject(logitBias)) {
      return wrongType("logitBias", "an object of token ids to biases", logitBias)
    }
    for (const [token, bias] of Object.entries(logitBias)) {
      if (!tokenId.test(token)) {
        return refused(`logit bias is keyed by token ids (whole numbers), not ${token}`)
      }
      if (typeof bias !== "number") {
        return refused(`the logit bias of token ${token} must be a number, not ${kindOf(bias)}`)
      }
      if (!(bias >= -100 && bias <= 100)) {
        return refused(`the logit bias of token ${token} must be between -100 and 100, not ${bias}`)
      }
    }
  }
  if (logprobs !== undefined && typeof logprobs !== "boolean") {
    return wrongType("logprobs", "a boolean", logprobs)
  }
  if (topLogprobs !== undefined) {
    if (typeof topLogprobs !== "number") return wrongType("topLogprobs", "a number", topLogprobs)
    if (!(Number.isInteger(topLogprobs) && topLogprobs >= 0 && topLogprobs <= 20)) {
      return refused(`top logprobs must be a whole number from 0 to 20, not ${topLogprobs}`)
    }
    if (logprobs !== true) {
      return refused("top logprobs needs logprobs: set OpenAiCodec.options({ logprobs: true })")
    }
  }
  if (serviceTier !== undefined && !isTier(serviceTier)) {
    return refused(
      `the option serviceTier of OpenAiCodec.options must be one of ${serviceTiers.join(", ")}; a tier of another server's goes in Request.extra`,
    )
  }
  if (prediction !== undefined && typeof prediction !== "string") {
    return wrongType("prediction", "a string", prediction)
  }
  if (user !== undefined) {
    if (typeof user !== "string") return wrongType("user", "a string", user)
    if (user.trim() === "") return refused("the end user id is empty")
  }
  return Result.succeed({
    logitBias: logitBias as Checked["logitBias"],
    logprobs,
    topLogprobs,
    serviceTier,
    prediction,
    user,
  })
}
