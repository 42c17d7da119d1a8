import type { Client } from "@modelcontextprotocol/client"
import { type Redaction, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import { sdkRequest } from "./request.js"

/** The bounds of one listing of resources, resource templates or prompts. */
export interface PageBounds {
  readonly maxPages: number
  readonly maxItems: number
  readonly timeoutMillis: number
}

/** The bounds with their defaults: 100 pages, 1 000 items, 30 s a page (as for tools). */
export const pageBounds = (options: {
  readonly maxPages?: number | undefined
  readonly maxItems?: number | undefined
  readonly timeoutMillis?: number | undefined
}): PageBounds => ({
  maxPages: options.maxPages ?? 100,
  maxItems: options.maxItems ?? 1_000,
  timeoutMillis: options.timeoutMillis ?? 30_000,
})

/**
 * One page as the SDK gives it: the items under the listing's own key (`undefined` when the
 * answer holds no list there), and the next cursor.
 */
export interface Page<A> {
  readonly items: ReadonlyArray<A> | undefined
  readonly nextCursor?: string | undefined
}

/** Asks for the page after `cursor` (the first without one), within `timeout` milliseconds. */
export type FetchPage<A> = (
  cursor: string | undefined,
  options: { readonly signal: AbortSignal; readonly timeout: number },
) => Promise<Page<A>>

/**
 * Every item of a listing (tools, resources, resource templates, prompts), page after page: a
 * page without a list or a cursor seen before (the pages would never end) is a Protocol error,
 * and more pages or items than the bounds allow is a ResponseLimit error. `what` names the items
 * in errors, and `itemLimit` the option that bounds them.
 */
export const listPages = <A>(
  what: string,
  fetchPage: FetchPage<A>,
  bounds: PageBounds,
  redaction: Redaction.Redaction,
  itemLimit = "maxItems",
): Effect.Effect<ReadonlyArray<A>, SvirError.SvirError> =>
  Effect.gen(function* () {
    const items: Array<A> = []
    const seenCursors = new Set<string>()
    let cursor: string | undefined
    for (let page = 1; ; page++) {
      if (page > bounds.maxPages) {
        return yield* SvirError.make(
          "ResponseLimit",
          `listing ${what} stopped after ${bounds.maxPages} pages: the server has more`,
          { limit: "maxPages", max: bounds.maxPages },
        )
      }
      const answer = yield* sdkRequest(`listing ${what} (page ${page})`, redaction, (signal) =>
        fetchPage(cursor, { signal, timeout: bounds.timeoutMillis }),
      )
      if (answer.items === undefined) {
        return yield* SvirError.make(
          "Protocol",
          `listing ${what} (page ${page}): the answer holds no list of ${what}`,
        )
      }
      items.push(...answer.items)
      if (items.length > bounds.maxItems) {
        return yield* SvirError.make(
          "ResponseLimit",
          `listing ${what} stopped at ${items.length}: more than the limit of ${bounds.maxItems}`,
          { limit: itemLimit, max: bounds.maxItems },
        )
      }
      if (answer.nextCursor === undefined) return items
      if (seenCursors.has(answer.nextCursor)) {
        // The cursor is the server's text: it goes in serverMessage (D5).
        return yield* redaction.error(
          SvirError.make(
            "Protocol",
            `listing ${what}: the server gave a cursor again on page ${page}, so its pages would never end`,
            { serverMessage: answer.nextCursor },
          ),
        )
      }
      seenCursors.add(answer.nextCursor)
      cursor = answer.nextCursor
    }
  })

/** The server features whose listings are paged here, as its capabilities name them. */
export type Feature = "resources" | "prompts"

/**
 * The listing of the Client `getClient` gives now (every page from that one Client, so that a
 * cursor is never sent over another connection), or none from a server that does not declare
 * the feature: the SDK does not check (without `enforceStrictCapabilities`), and the server would
 * answer -32601.
 */
export const listFeature = <A>(
  getClient: () => Client,
  feature: Feature,
  what: string,
  fetchPage: (client: Client, ...page: Parameters<FetchPage<A>>) => Promise<Page<A>>,
  bounds: PageBounds,
  redaction: Redaction.Redaction,
): Effect.Effect<ReadonlyArray<A>, SvirError.SvirError> =>
  Effect.suspend(() => {
    const client = getClient()
    return client.getServerCapabilities()?.[feature] === undefined
      ? Effect.succeed([])
      : listPages(what, (cursor, options) => fetchPage(client, cursor, options), bounds, redaction)
  })

/**
 * The params of a page request: the cursor, when there is one. Pages are asked for one at a time
 * with `request`: the SDK's `list*` methods walk every page themselves when given no cursor, past
 * the bounds above (D48).
 */
export const cursorParams = (
  cursor: string | undefined,
): { readonly params?: { cursor: string } } => (cursor === undefined ? {} : { params: { cursor } })
