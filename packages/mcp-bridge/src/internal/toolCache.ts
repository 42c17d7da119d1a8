import type { Redaction, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { noTools, type OfferedTools } from "./offeredTools.js"

/**
 * The tools last listed, listed again once the server has said they changed
 * (`notifications/tools/list_changed`).
 */
export interface ToolCache {
  /**
   * The tools, listed again first when the server reported a change since the last listing. A
   * listing that fails keeps the tools listed before, until the server reports a change again.
   */
  readonly current: Effect.Effect<OfferedTools>
  /** Lists the tools now. A listing that fails leaves the cache as it was. */
  readonly refresh: Effect.Effect<OfferedTools, SvirError.SvirError>
  /** The server said its tools changed. Called from the SDK's notification handler. */
  readonly listChanged: () => void
}

/** A listing, with the count of changes reported before it was asked for. */
interface Cached {
  readonly version: number
  readonly offered: OfferedTools
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
  const cache = SynchronizedRef.makeUnsafe<Cached>({ version: 0, offered: noTools })
  const isCurrent = (cached: Cached) => cached.version === changes || isClosed()
  const listAt = (version: number): Effect.Effect<Cached, SvirError.SvirError> =>
    Effect.map(list, (offered) => ({ version, offered }))
  const listAgain = (cached: Cached): Effect.Effect<Cached> => {
    if (isCurrent(cached)) return Effect.succeed(cached)
    // A change reported while listing is listed for next time, whether this listing succeeds or not.
    const version = changes
    return listAt(version).pipe(
      Effect.catch((error) =>
        Effect.logWarning(
          redaction.text(
            `MCP tools could not be listed again; keeping the earlier list: ${error.message}`,
          ),
        ).pipe(Effect.as({ ...cached, version })),
      ),
    )
  }
  return {
    current: Effect.suspend(() => {
      const cached = SynchronizedRef.getUnsafe(cache)
      return isCurrent(cached)
        ? Effect.succeed(cached.offered)
        : Effect.map(SynchronizedRef.updateAndGetEffect(cache, listAgain), (next) => next.offered)
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
