import { Codec, type Completion, SvirError } from "@svir/core"
import { Cause, Effect } from "effect"
import type * as Case from "../Case.js"

/** What a codec made of one input, reduced to what cases compare. */
export type Outcome =
  | { readonly _tag: "Completed"; readonly completion: Completion.Completion }
  | {
      readonly _tag: "Failed"
      readonly kind: Case.ErrorKind
      readonly message: string
      /** A `Completed` event (and so its calls) came out before the error. */
      readonly released: boolean
    }
  /** The codec broke the contract itself: it threw, or its events were out of shape. */
  | { readonly _tag: "Broken"; readonly problem: string }

/** The snake_case kind cases use for each core `SvirError.Kind`. */
const errorKinds: Record<SvirError.Kind, Case.ErrorKind> = {
  Unsupported: "unsupported",
  TruncatedStream: "truncated_stream",
  Protocol: "protocol",
  Server: "server",
  ContextOverflow: "context_overflow",
  ContentFilter: "content_filter",
  ResponseLimit: "response_limit",
  Transport: "transport",
  Timeout: "timeout",
  RateLimited: "rate_limited",
  Authentication: "authentication",
  Config: "config",
}

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ")

export const describeThrown = (cause: unknown): string =>
  oneLine(cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause))

/**
 * Reads an error as a `SvirError` by `SvirError.isSvirError`, which goes by the error's marker,
 * not its class: a codec built against another copy of `@svir/core` still has its errors
 * recognised. A kind this copy does not know is not a SvirError to it.
 */
export const failedOutcome = (error: unknown, released: boolean): Outcome => {
  if (SvirError.isSvirError(error)) {
    // Another copy may be newer and know a kind this one does not.
    const kind: Case.ErrorKind | undefined = errorKinds[error.reason._tag]
    if (kind !== undefined) {
      return { _tag: "Failed", kind, message: oneLine(error.message), released }
    }
  }
  return {
    _tag: "Broken",
    problem: `the codec failed with a value that is not a SvirError: ${describeThrown(error)}`,
  }
}

/** The outcome of a streamed answer fed in the given chunks. */
export const streamOutcome = (codec: Codec.Codec, chunks: ReadonlyArray<Uint8Array>): Outcome => {
  let step: Codec.DecodeStep
  try {
    step = Codec.decodeChunks(codec, chunks)
  } catch (cause) {
    return { _tag: "Broken", problem: `the decoder threw ${describeThrown(cause)}` }
  }
  const completedAt = step.events.flatMap((event, i) => (event._tag === "Completed" ? [i] : []))
  if (step.error !== undefined) return failedOutcome(step.error, completedAt.length > 0)
  const last = step.events[step.events.length - 1]
  if (completedAt.length === 0 || last === undefined) {
    return {
      _tag: "Broken",
      problem: "the answer ended with neither a Completed event nor an error",
    }
  }
  if (completedAt.length > 1) {
    return {
      _tag: "Broken",
      problem: `${completedAt.length} Completed events, expected exactly one`,
    }
  }
  if (last._tag !== "Completed") {
    return { _tag: "Broken", problem: `a ${last._tag} event came after Completed` }
  }
  return { _tag: "Completed", completion: last.completion }
}

/** The outcome of a whole, non-streamed response body. */
export const responseOutcome = (codec: Codec.Codec, body: string): Effect.Effect<Outcome> =>
  Effect.suspend(() => codec.decodeResponse(body)).pipe(
    Effect.matchCause({
      onSuccess: (completion): Outcome => ({ _tag: "Completed", completion }),
      onFailure: (cause): Outcome => {
        const found = Cause.findError(cause)
        return found._tag === "Success"
          ? failedOutcome(found.success, false)
          : {
              _tag: "Broken",
              problem: `decodeResponse died: ${describeThrown(Cause.squash(cause))}`,
            }
      },
    }),
  )
