import type { Redaction, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as DebugLog from "./debugLog.js"

/** How a strict server says it does not know a field: a refusal that explains nothing else. */
const isRefusal = (error: SvirError.SvirError): boolean =>
  error.reason._tag === "Unsupported" && (error.status === 400 || error.status === 422)

/**
 * Writes a request's body: as the request sets it, or lean, without the fields the codec counts
 * as optional (`encode` with `lean: true`), so the knowledge of which fields are optional stays in
 * the codec.
 */
type Encode = (lean: boolean) => Effect.Effect<unknown, SvirError.SvirError>

/**
 * The lean retry of one client (D6): a strict server refuses optional fields it does not know, so
 * a request refused with them is sent once more without them, and the server is remembered as
 * strict: later requests go without them from the start.
 */
export interface LeanRetry {
  /**
   * Writes the full body and sends it with `send`, or the lean one as above. Only the body that
   * is sent is written: the lean one only for a strict server or after a refusal (D6).
   */
  readonly send: <A, R>(
    encode: Encode,
    send: (body: unknown) => Effect.Effect<A, SvirError.SvirError, R>,
  ) => Effect.Effect<A, SvirError.SvirError, R>
  /** Whether the server refused optional fields once. */
  readonly isStrict: Effect.Effect<boolean>
}

/**
 * The lean body, or `undefined` when it is the same as the full one: a codec that leaves nothing
 * out gives no lean retry.
 */
const leanBody = (encode: Encode, full: unknown): Effect.Effect<unknown, SvirError.SvirError> =>
  Effect.map(encode(true), (lean) =>
    JSON.stringify(lean) === JSON.stringify(full) ? undefined : lean,
  )

/** The lean retry, or, when `enabled` is false, requests always sent as given. */
export const make = (enabled: boolean, redaction: Redaction.Redaction): Effect.Effect<LeanRetry> =>
  Effect.map(Ref.make(false), (strict) => {
    const retryLean = <A, R>(
      refusal: SvirError.SvirError,
      lean: unknown,
      send: (body: unknown) => Effect.Effect<A, SvirError.SvirError, R>,
    ) =>
      DebugLog.aboutError(
        redaction,
        refusal,
        (message) =>
          `svir client: the server refused the request (${message}); sending it again without optional fields`,
      ).pipe(
        Effect.andThen(send(lean)),
        Effect.tap(() => Ref.set(strict, true)),
        // The lean body was refused too: the fields were not the problem, and the first refusal
        // is the one about the request as the caller wrote it.
        Effect.mapError(() => refusal),
      )
    const sendFull = <A, R>(
      encode: Encode,
      send: (body: unknown) => Effect.Effect<A, SvirError.SvirError, R>,
    ) =>
      Effect.flatMap(encode(false), (full) =>
        Effect.catch(send(full), (error) =>
          // A context overflow or the content filter has a kind of its own, and is reported
          // at once: sent again, the same prompt would be evaluated and billed twice.
          isRefusal(error)
            ? Effect.flatMap(leanBody(encode, full), (lean) =>
                lean === undefined ? Effect.fail(error) : retryLean(error, lean, send),
              )
            : Effect.fail(error),
        ),
      )
    return {
      isStrict: Ref.get(strict),
      send: (encode, send) =>
        !enabled
          ? Effect.flatMap(encode(false), send)
          : Effect.flatMap(Ref.get(strict), (isStrict) =>
              // A strict server is sent the lean body alone; where it is the same as the full
              // one, it is the same request.
              isStrict ? Effect.flatMap(encode(true), send) : sendFull(encode, send),
            ),
    }
  })
