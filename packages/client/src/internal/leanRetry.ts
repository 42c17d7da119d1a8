import { Json, type Redaction, type SvirError } from "@svir/core"
import { Effect, Ref } from "effect"
import * as DebugLog from "./debugLog.js"

/** The fields a strict server may refuse; the lean retry sends the request again without them. */
export const optionalFields: ReadonlyArray<string> = [
  "temperature",
  "max_tokens",
  "max_completion_tokens",
  "reasoning_effort",
  "response_format",
  "stream_options",
]

/** The body without its optional fields, or `undefined` when it has none. */
export const leanBody = (body: unknown): unknown => {
  if (!Json.isObject(body) || !optionalFields.some((field) => field in body)) return undefined
  const lean: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) {
    if (!optionalFields.includes(key)) lean[key] = value
  }
  return lean
}

/** How a strict server says it does not know a field. */
const isRefusal = (error: SvirError.SvirError): boolean =>
  error.kind === "Unsupported" && (error.status === 400 || error.status === 422)

/**
 * The lean retry of one client (D6): a strict server refuses optional fields it does not know, so
 * a request refused with them is sent once more without them, and the server is remembered as
 * strict: later requests go without them from the start.
 */
export interface LeanRetry {
  /** Sends `body` with `send`, or its lean form as above. */
  readonly send: <A, R>(
    body: unknown,
    send: (body: unknown) => Effect.Effect<A, SvirError.SvirError, R>,
  ) => Effect.Effect<A, SvirError.SvirError, R>
  /** Whether the server refused optional fields once. */
  readonly isStrict: Effect.Effect<boolean>
}

/** The lean retry, or, when `enabled` is false, requests always sent as given. */
export const make = (enabled: boolean, redaction: Redaction.Redaction): Effect.Effect<LeanRetry> =>
  Effect.map(Ref.make(false), (strict) => ({
    isStrict: Ref.get(strict),
    send: (body, send) =>
      Effect.gen(function* () {
        const lean = enabled ? leanBody(body) : undefined
        if (lean === undefined) return yield* send(body)
        if (yield* Ref.get(strict)) return yield* send(lean)
        return yield* Effect.catch(send(body), (error) =>
          isRefusal(error)
            ? DebugLog.aboutError(
                redaction,
                error,
                (message) =>
                  `svir client: the server refused the request (${message}); sending it again without optional fields`,
              ).pipe(
                Effect.andThen(send(lean)),
                Effect.tap(() => Ref.set(strict, true)),
              )
            : Effect.fail(error),
        )
      }),
  }))
