import type { Codec, Completion, Event } from "@svir/core"
import { SvirError } from "@svir/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Case from "../Case.js"

/** The text and reasoning deltas an answer delivered before its error, each joined. */
export interface Partial {
  readonly text: string
  readonly reasoning: string
}

const nothingDelivered: Partial = { text: "", reasoning: "" }

/** What a codec made of one input, reduced to what cases compare. */
export type Outcome =
  | { readonly _tag: "Completed"; readonly completion: Completion.Completion }
  | {
      readonly _tag: "Failed"
      readonly kind: Case.ErrorKind
      readonly message: string
      readonly serverMessage: string | undefined
      /** A `Completed` event (and so its calls) came out before the error. */
      readonly released: boolean
      readonly partial: Partial
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
  Attachment: "attachment",
}

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ")

export const describeThrown = (cause: unknown): string =>
  oneLine(cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause))

/**
 * Reads an error as a `SvirError` by `SvirError.isSvirError`, which goes by the error's marker,
 * not its class: a codec built against another copy of `@svir/core` still has its errors
 * recognised. A kind this copy does not know is not a SvirError to it.
 */
export const failedOutcome = (
  error: unknown,
  released: boolean,
  partial: Partial = nothingDelivered,
): Exclude<Outcome, { readonly _tag: "Completed" }> => {
  if (SvirError.isSvirError(error)) {
    // Another copy may be newer and know a kind this one does not.
    const kind: Case.ErrorKind | undefined = errorKinds[error.reason._tag]
    if (kind !== undefined) {
      // Read from the reason, as the getter does: an older copy's error may lack the getter.
      const reason = error.reason as { readonly serverMessage?: unknown }
      const serverMessage =
        typeof reason.serverMessage === "string" ? reason.serverMessage : undefined
      return {
        _tag: "Failed",
        kind,
        // A codec of another copy may leave the message out: it is shown, never thrown over.
        message: oneLine(String(error.message)),
        serverMessage,
        released,
        partial,
      }
    }
  }
  return {
    _tag: "Broken",
    problem: `the codec failed with a value that is not a SvirError: ${describeThrown(error)}`,
  }
}

/** The outcome of a fed answer, and per push whether it delivered visible text or reasoning. */
export interface Fed {
  readonly outcome: Outcome
  readonly visible: ReadonlyArray<boolean>
}

const isVisible = (event: Event.Event): boolean =>
  (event._tag === "TextDelta" || event._tag === "ReasoningDelta") && event.text !== ""

const joined = (events: ReadonlyArray<Event.Event>, tag: "TextDelta" | "ReasoningDelta") =>
  events.flatMap((event) => (event._tag === tag ? [event.text] : [])).join("")

/**
 * Feeds the chunks to a fresh decoder and finishes it, as core's `Codec.decodeChunks` does: no
 * chunk is pushed once the decoder is done, and an error ends the answer.
 */
const feed = (
  codec: Codec.Codec,
  chunks: ReadonlyArray<Uint8Array>,
): Codec.DecodeStep & { readonly visible: ReadonlyArray<boolean> } => {
  const decoder = codec.decoder()
  const events: Array<Event.Event> = []
  const visible: Array<boolean> = []
  for (const chunk of chunks) {
    if (decoder.done()) break
    const step = decoder.push(chunk)
    events.push(...step.events)
    visible.push(step.events.some(isVisible))
    if (step.error !== undefined) return { events, error: step.error, visible }
  }
  if (decoder.done()) return { events, error: undefined, visible }
  const last = decoder.finish()
  events.push(...last.events)
  return { events, error: last.error, visible }
}

/** The outcome of a streamed answer fed in the given chunks. */
export const streamOutcome = (codec: Codec.Codec, chunks: ReadonlyArray<Uint8Array>): Fed => {
  let step: ReturnType<typeof feed>
  try {
    step = feed(codec, chunks)
  } catch (cause) {
    return {
      outcome: { _tag: "Broken", problem: `the decoder threw ${describeThrown(cause)}` },
      visible: [],
    }
  }
  return { outcome: stepOutcome(step), visible: step.visible }
}

const stepOutcome = (step: Codec.DecodeStep): Outcome => {
  const completedAt = step.events.flatMap((event, i) => (event._tag === "Completed" ? [i] : []))
  if (step.error !== undefined) {
    return failedOutcome(step.error, completedAt.length > 0, {
      text: joined(step.events, "TextDelta"),
      reasoning: joined(step.events, "ReasoningDelta"),
    })
  }
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

/**
 * What encoding a request gave: the body as JSON (`text`, and `again` from encoding the same
 * request a second time, to see that it is the same), or a failure.
 */
export type EncodeOutcome =
  | {
      readonly _tag: "Encoded"
      readonly body: unknown
      readonly text: string
      readonly again: string
    }
  | Exclude<Outcome, { readonly _tag: "Completed" }>

const bodyText = (body: unknown): string | undefined => {
  try {
    return JSON.stringify(body)
  } catch {
    return undefined
  }
}

/** Runs an encoding twice: the body, as sent (JSON), or the error. */
export const encodeOutcome = (
  encode: () => Effect.Effect<unknown, unknown>,
): Effect.Effect<EncodeOutcome> =>
  Effect.all([Effect.suspend(encode), Effect.suspend(encode)]).pipe(
    Effect.matchCause({
      onSuccess: ([first, second]): EncodeOutcome => {
        const text = bodyText(first)
        const again = bodyText(second)
        if (text === undefined || again === undefined) {
          return { _tag: "Broken", problem: "the body is not JSON (JSON.stringify failed)" }
        }
        return { _tag: "Encoded", body: JSON.parse(text) as unknown, text, again }
      },
      onFailure: (cause): EncodeOutcome => {
        const found = Cause.findError(cause)
        if (found._tag === "Success") return failedOutcome(found.success, false)
        return {
          _tag: "Broken",
          problem: `encoding died: ${describeThrown(Cause.squash(cause))}`,
        }
      },
    }),
  )

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
