/**
 * The idempotency key of the tool call under way: a string that stays the same each time one
 * call runs, so that a handler can tell a run it already did from a new one. A durable run
 * (`@svir/workflow`) runs a tool call as an activity, which may run again after a crash; it sets
 * `<executionId>/<step>/<callId>` around the call. `@svir/registry` gives the key to handlers as
 * `idempotencyKey`, and `@svir/mcp-bridge` sends it to the server in `params._meta`. Outside such
 * a run there is none.
 *
 * @since 0.2.0
 * @module
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"

/**
 * The key of the call the current fiber works for; `undefined` outside any {@link within}.
 *
 * @example
 * ```ts
 * import { IdempotencyKey } from "@svir/core"
 * import { Effect } from "effect"
 *
 * declare const call: Effect.Effect<void>
 * const keyed = call.pipe(Effect.provideService(IdempotencyKey.Current, "run-1/3/call_1"))
 * ```
 *
 * @since 0.2.0
 * @category references
 */
export const Current: Context.Reference<string | undefined> = Context.Reference<string | undefined>(
  "@svir/core/IdempotencyKey",
  { defaultValue: () => undefined },
)

/**
 * The key of the call under way, `undefined` when there is none.
 *
 * @example
 * ```ts
 * import { IdempotencyKey } from "@svir/core"
 * import { Effect } from "effect"
 *
 * const charge = Effect.gen(function* () {
 *   const key = yield* IdempotencyKey.get
 *   // Pass `key` on to the payment API, which charges once per key.
 *   return key
 * })
 * ```
 *
 * @since 0.2.0
 * @category accessors
 */
export const get: Effect.Effect<string | undefined> = Effect.service(Current)

/**
 * Runs `effect` with `key` as the idempotency key; inside it, a nested `within` wins. The key does
 * not reach what runs after `effect`.
 *
 * @example
 * ```ts
 * import { IdempotencyKey } from "@svir/core"
 * import { Effect } from "effect"
 *
 * const keyed = IdempotencyKey.get.pipe(IdempotencyKey.within("run-1/3/call_1"))
 * Effect.runSync(keyed) // "run-1/3/call_1"
 * Effect.runSync(IdempotencyKey.within(IdempotencyKey.get, "run-1/4/call_2")) // "run-1/4/call_2"
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const within: {
  (key: string): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(effect: Effect.Effect<A, E, R>, key: string): Effect.Effect<A, E, R>
} = dual(
  2,
  <A, E, R>(effect: Effect.Effect<A, E, R>, key: string): Effect.Effect<A, E, R> =>
    Effect.provideService(effect, Current, key),
)
