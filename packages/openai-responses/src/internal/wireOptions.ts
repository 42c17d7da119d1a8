import { Json, Request, SvirError } from "@svir/core"
import * as Result from "effect/Result"
import type * as RequestBody from "../RequestBody.js"
import { codecName } from "./options.js"

/**
 * D8: the options only the Responses API has, as a request gives them to this codec with
 * `ResponsesCodec.options`. Each one left out is not sent (`store`: false, D10; `encryptedReasoning`:
 * asked for whenever `store` is false, D11).
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 * import { ResponsesCodec } from "@svir/openai-responses"
 *
 * Request.make("gpt-5").pipe(
 *   ResponsesCodec.options({ reasoningSummary: "auto", textVerbosity: "low", store: true }),
 *   Request.user("Plan a trip to Oslo."),
 * )
 * ```
 */
export interface Options {
  /** Whether the server keeps the response (`store`). Default: false, or true with `previousResponseId` (D10). */
  readonly store?: boolean | undefined
  /** Continue from a stored response (`previous_response_id`): only what came after it is sent (D10). */
  readonly previousResponseId?: string | undefined
  /** Ask for the reasoning items' `encrypted_content` (`include`). Default: when `store` is false (D11). */
  readonly encryptedReasoning?: boolean | undefined
  /** Summaries of the reasoning in the answer (`reasoning.summary`). */
  readonly reasoningSummary?: "auto" | "concise" | "detailed" | undefined
  /** How long the answer's text is (`text.verbosity`). */
  readonly textVerbosity?: "low" | "medium" | "high" | undefined
  /** The log probabilities of the answer's tokens (`include: ["message.output_text.logprobs"]`). */
  readonly logprobs?: boolean | undefined
  /** How many likeliest tokens at each position, 0 to 20 (`top_logprobs`); needs `logprobs`. */
  readonly topLogprobs?: number | undefined
  /** What the server does with input longer than the context (`truncation`). */
  readonly truncation?: "auto" | "disabled" | undefined
  /** The service tier (`service_tier`). */
  readonly serviceTier?: RequestBody.ServiceTier | undefined
  /** Up to 16 pairs of texts kept with the response (`metadata`). */
  readonly metadata?: Readonly<Record<string, string>> | undefined
  /** The end user, for abuse detection (`safety_identifier`, up to 64 characters). */
  readonly safetyIdentifier?: string | undefined
  /** The key of the prompt cache (`prompt_cache_key`, up to 64 characters). */
  readonly promptCacheKey?: string | undefined
  /** The end user, in the older field OpenAI still reads (`user`). */
  readonly user?: string | undefined
}

type Mutable = { -readonly [K in keyof Options]: Options[K] }

const none: Options = {}

const names = [
  "store",
  "previousResponseId",
  "encryptedReasoning",
  "reasoningSummary",
  "textVerbosity",
  "logprobs",
  "topLogprobs",
  "truncation",
  "serviceTier",
  "metadata",
  "safetyIdentifier",
  "promptCacheKey",
  "user",
] as const

const serviceTiers: ReadonlyArray<RequestBody.ServiceTier> = [
  "auto",
  "default",
  "flex",
  "scale",
  "priority",
  "fast",
  "ultrafast",
]

const invalid = (message: string): Result.Result<never, SvirError.SvirError> =>
  Result.fail(SvirError.make("Unsupported", `the ${codecName} option ${message}`))

/** The kind of a value, for an error that must not repeat the value itself. */
const kindOf = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "object"
        ? "an object"
        : `a ${typeof value}`

const oneOf = <A extends string>(
  name: string,
  allowed: ReadonlyArray<A>,
  value: unknown,
): Result.Result<A, SvirError.SvirError> =>
  allowed.some((entry) => entry === value)
    ? Result.succeed(value as A)
    : invalid(`${name} must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}`)

const boolean = (name: string, value: unknown): Result.Result<boolean, SvirError.SvirError> =>
  typeof value === "boolean"
    ? Result.succeed(value)
    : invalid(`${name} must be a boolean, not ${kindOf(value)}`)

/** D8: a text that is not blank, of at most `max` characters when the API bounds it. */
const text = (
  name: string,
  value: unknown,
  max?: number,
): Result.Result<string, SvirError.SvirError> => {
  if (typeof value !== "string") return invalid(`${name} must be a text, not ${kindOf(value)}`)
  if (value.trim() === "") return invalid(`${name} must be a text that is not blank`)
  if (max !== undefined && value.length > max) {
    return invalid(`${name} must be at most ${max} characters, not ${value.length}`)
  }
  return Result.succeed(value)
}

/** D8: the API's bounds of metadata: 16 pairs, keys of 64 characters, values of 512. */
const metadataOf = (
  value: unknown,
): Result.Result<Readonly<Record<string, string>>, SvirError.SvirError> => {
  if (!Json.isObject(value))
    return invalid(`metadata must be an object of texts, not ${kindOf(value)}`)
  const entries = Object.entries(value)
  if (entries.length > 16) return invalid(`metadata holds at most 16 pairs, not ${entries.length}`)
  for (const [key, entry] of entries) {
    if (key.length > 64)
      return invalid(`metadata keys are at most 64 characters, not ${key.length}`)
    if (typeof entry !== "string") {
      return invalid(
        `metadata values must be texts, not ${kindOf(entry)} (key ${JSON.stringify(key)})`,
      )
    }
    if (entry.length > 512) {
      return invalid(
        `metadata values are at most 512 characters, not ${entry.length} (key ${JSON.stringify(key)})`,
      )
    }
  }
  return Result.succeed({ ...(value as Record<string, string>) })
}

const readOne = (
  key: (typeof names)[number],
  value: unknown,
  options: Mutable,
): SvirError.SvirError | undefined => {
  let read: Result.Result<unknown, SvirError.SvirError>
  switch (key) {
    case "store":
    case "encryptedReasoning":
    case "logprobs":
      read = boolean(key, value)
      break
    case "previousResponseId":
      read = text(key, value)
      break
    case "safetyIdentifier":
    case "promptCacheKey":
      read = text(key, value, 64)
      break
    case "user":
      read = text(key, value)
      break
    case "reasoningSummary":
      read = oneOf(key, ["auto", "concise", "detailed"], value)
      break
    case "textVerbosity":
      read = oneOf(key, ["low", "medium", "high"], value)
      break
    case "truncation":
      read = oneOf(key, ["auto", "disabled"], value)
      break
    case "serviceTier":
      read = oneOf(key, serviceTiers, value)
      break
    case "topLogprobs":
      read =
        typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 20
          ? Result.succeed(value)
          : invalid(`topLogprobs must be a whole number from 0 to 20, not ${JSON.stringify(value)}`)
      break
    case "metadata":
      read = metadataOf(value)
      break
  }
  if (Result.isFailure(read)) return read.failure
  ;(options as Record<string, unknown>)[key] = read.success
  return undefined
}

/**
 * D8: the request's options for this codec, checked: a key this codec does not know, or a value
 * of the wrong type or out of the API's range, is Unsupported before anything is sent (core's
 * `Request.codecOptions`: a codec refuses what it does not know). An option given as `undefined`
 * is not given.
 */
export const read = (request: Request.Request): Result.Result<Options, SvirError.SvirError> => {
  const given = Request.codecOptionsOf(request, codecName)
  if (given === undefined) return Result.succeed(none)
  if (!Json.isObject(given)) {
    return Result.fail(
      SvirError.make("Unsupported", `ResponsesCodec.options takes an object, not ${kindOf(given)}`),
    )
  }
  const options: Mutable = {}
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue
    const known = names.find((name) => name === key)
    if (known === undefined) {
      return invalid(
        `${JSON.stringify(key)} is not one this codec knows (${names.join(", ")}); a field of a server's own goes in Request.extra`,
      )
    }
    const refused = readOne(known, value, options)
    if (refused !== undefined) return Result.fail(refused)
  }
  if (options.topLogprobs !== undefined && options.logprobs !== true) {
    return invalid("topLogprobs needs logprobs: set ResponsesCodec.options({ logprobs: true })")
  }
  return Result.succeed(options)
}
