import type { Redaction, SvirError } from "@svir/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { noTools, type OfferedTools } from "./offeredTools.js"

/**
 * The tools last listed, listed again once the server has said they changed
 * (`notifications/tools/list_changed`), or, for the tools a model is offered, once the listing's
 * `ttlMs` has run out (D53).
 */
export interface ToolCache {
  /**
   * The tools, listed again first when the server reported a change since the last listing. A
   * listing that fails keeps the tools listed before, until the server reports a change again.
   * What a call maps its name with: an expired `ttlMs` alone does not make a call wait for a
   * listing (D53).
   */
  readonly current: Effect.Effect<OfferedTools>
  /**
   * The tools as `current` gives them, listed again first as well when the listing's `ttlMs`
   * has run out (D53). A listing that fails keeps the tools listed before for as long again.
   */
  readonly fresh: Effect.Effect<OfferedTools>
  /** Lists the tools now. A listing that fails leaves the cache as it was. */
  readonly refresh: Effect.Effect<OfferedTools, SvirError.SvirError>
  /** The server said its tools changed. Called from the SDK's notification handler. */
  readonly listChanged: () => void
}

/**
 * A listing, with the count of changes reported before it was asked for, and until when (on the
 * monotonic clock, in milliseconds) its `ttlMs` lets it be offered without listing again.
 */
interface Cached {
  readonly version: number
  readonly offered: OfferedTools
  readonly freshUntil: number | undefined
}

/**
 * A cache that lists with `list`, which starts empty: run `refresh` once to fill it. After the
 * connection `isClosed`, no listing is asked for again.
 */
export const makeToolCache = (
  list: Effect.Effect<OfferedTools, SvirError.SvirError>,
  isClosed: () => boolean,
  redaction: Redaction.Redaction,
): ToolCache => {
  // Counted by the SDK's notification handler, which runs outside any effect: a plain field.
  let changes = 0
  // Listings are taken one at a time, under the ref's lock.
  const cache = SynchronizedRef.makeUnsafe<Cached>({
    version: 0,
    offered: noTools,
    freshUntil: undefined,
  })
  const isCurrent = (cached: Cached) => cached.version === changes || isClosed()
  const isFresh = (cached: Cached, now: number) =>
    isClosed() ||
    (cached.version === changes && (cached.freshUntil === undefined || now < cached.freshUntil))
  // The time to live counts from the end of the listing, so that a slow server is not listed
  // back to back (D53).
  const listAt = (version: number): Effect.Effect<Cached, SvirError.SvirError> =>
    Effect.flatMap(list, (offered) =>
      Effect.map(monotonicMillis, (now) => ({
        version,
        offered,
        freshUntil: freshUntil(offered, now),
      })),
    )
  const listAgain =
    (stale: (cached: Cached, now: number) => boolean) =>
    (cached: Cached): Effect.Effect<Cached> =>
      Effect.flatMap(monotonicMillis, (now) => {
        if (!stale(cached, now)) return Effect.succeed(cached)
        // A change reported while listing is listed for next time, whether this listing succeeds
        // or not.
        const version = changes
        return listAt(version).pipe(
          Effect.catch((error) =>
            Effect.logWarning(
              redaction.text(
                `MCP tools could not be listed again; keeping the earlier list: ${error.message}`,
              ),
            ).pipe(
              Effect.andThen(monotonicMillis),
              // Kept for as long again as the earlier listing allowed, counted from this failure.
              Effect.map((failedAt) => ({
                ...cached,
                version,
                freshUntil: freshUntil(cached.offered, failedAt),
              })),
            ),
          ),
        )
      })
  const notCurrent = (cached: Cached) => !isCurrent(cached)
  const notFresh = (cached: Cached, now: number) => !isFresh(cached, now)
  return {
    current: Effect.suspend(() => {
      const cached = SynchronizedRef.getUnsafe(cache)
      return isCurrent(cached)
        ? Effect.succeed(cached.offered)
        : Effect.map(
            SynchronizedRef.updateAndGetEffect(cache, listAgain(notCurrent)),
            (next) => next.offered,
          )
    }),
    fresh: Effect.flatMap(monotonicMillis, (now) => {
      const cached = SynchronizedRef.getUnsafe(cache)
      return isFresh(cached, now)
        ? Effect.succeed(cached.offered)
        : Effect.map(
            SynchronizedRef.updateAndGetEffect(cache, listAgain(notFresh)),
            (next) => next.offered,
          )
    }),
    refresh: Effect.map(
      SynchronizedRef.updateAndGetEffect(cache, () => listAt(changes)),
      (next) => next.offered,
    ),
    listChanged: () => {
      changes++
    },
  }
}

const monotonicMillis: Effect.Effect<number> = Effect.map(Clock.monotonicTimeNanos, (nanos) =>
  Number(nanos / 1_000_000n),
)

const freshUntil = (offered: OfferedTools, now: number): number | undefined =>
  offered.ttlMillis === undefined ? undefined : now + offered.ttlMillis
