import type { Redaction, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as DebugLog from "./debugLog.js"

/** How a strict server says it does not know a field: a refusal that explains nothing else. */
const isRefusal = (error: SvirError.SvirError): boolean =>
  error.kind === "Unsupported" && (error.status === 400 || error.status === 422)

/**
 * A request's two bodies: as the request sets it, and lean, without the fields the codec counts
 * as optional. The lean one is written only when it is needed, and is `undefined` when it would
 * be the same as the full one.
 */
export interface Bodies {
  readonly full: unknown
  readonly lean: Effect.Effect<unknown, SvirError.SvirError>
}

/**
 * The bodies of a request: the lean one is the codec's (`encode` with `lean: true`), so the
 * knowledge of which fields are optional stays in the codec. A codec that leaves nothing out
 * gives no lean body, and no lean retry.
 */
export const bodies = (
  encode: (lean: boolean) => Effect.Effect<unknown, SvirError.SvirError>,
): Effect.Effect<Bodies, SvirError.SvirError> =>
  Effect.map(encode(false), (full) => ({
    full,
    lean: Effect.map(encode(true), (lean) =>
      JSON.stringify(lean) === JSON.stringify(full) ? undefined : lean,
    ),
  }))

/**
 * The lean retry of one client (D6): a strict server refuses optional fields it does not know, so
 * a request refused with them is sent once more without them, and the server is remembered as
 * strict: later requests go without them from the start.
 */
export interface LeanRetry {
  /** Sends the full body with `send`, or the lean one as above. */
  readonly send: <A, R>(
    bodies: Bodies,
    send: (body: unknown) => Effect.Effect<A, SvirError.SvirError, R>,
  ) => Effect.Effect<A, SvirError.SvirError, R>
  /** Whether the server refused optional fields once. */
  readonly isStrict: Effect.Effect<boolean>
}

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
        Effect.catch(() => Effect.fail(refusal)),
      )
    return {
      isStrict: Ref.get(strict),
      send: (bodies, send) =>
        Effect.gen(function* () {
          if (!enabled) return yield* send(bodies.full)
          if (yield* Ref.get(strict)) return yield* send((yield* bodies.lean) ?? bodies.full)
          return yield* Effect.catch(send(bodies.full), (error) =>
            // A context overflow or the content filter has a kind of its own, and is reported
            // at once: sent again, the same prompt would be evaluated and billed twice.
            isRefusal(error)
              ? Effect.flatMap(bodies.lean, (lean) =>
                  lean === undefined ? Effect.fail(error) : retryLean(error, lean, send),
                )
              : Effect.fail(error),
          )
        }),
    }
  })
