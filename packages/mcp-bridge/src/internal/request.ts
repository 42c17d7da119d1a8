import type { Redaction, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import { toSvirError } from "./failure.js"

/**
 * One request through the SDK as an effect: interrupting it aborts the request (the SDK then
 * tells the server it was cancelled), and a rejection is a typed error, the server's words in
 * `serverMessage` (D5), redacted (D3).
 */
export const sdkRequest = <A>(
  doing: string,
  redaction: Redaction.Redaction,
  send: (signal: AbortSignal) => Promise<A>,
): Effect.Effect<A, SvirError.SvirError> =>
  Effect.tryPromise({
    try: send,
    catch: (error) => redaction.error(toSvirError(doing, error)),
  })
