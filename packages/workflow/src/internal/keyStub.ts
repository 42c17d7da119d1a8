import type * as Effect from "effect/Effect"
export const within =
  (_key: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>) =>
    self
