import * as Effect from "effect/Effect"

/**
 * A callback of the caller's: a plain function or one that returns an Effect, so that code that
 * only prints needs no Effect and code that needs services or waits can have them.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a callback that only prints returns nothing, and `(event) => console.log(event)` returns `void`, not `undefined`
export type Callback<A, R> = (value: A) => void | Effect.Effect<unknown, never, R>

/** Runs the callback, if there is one, inside the Effect: what it throws is a defect. */
export const notify = <A, R>(
  callback: Callback<A, R> | undefined,
  value: A,
): Effect.Effect<void, never, R> =>
  callback === undefined
    ? Effect.void
    : Effect.suspend(() => {
        const returned = callback(value)
        return Effect.isEffect(returned) ? Effect.asVoid(returned) : Effect.void
      })
