import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import { Json, type Redaction, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import { toSvirError } from "./failure.js"
import { noTools, type OfferedTools, offerTools } from "./offeredTools.js"

/** The bounds of one listing. */
export interface Bounds {
  readonly maxPages: number
  readonly maxTools: number
  readonly timeoutMillis: number
}

/**
 * Every tool of the server, page after page. A cursor seen before means the pages would never
 * end; more pages or tools than the bounds allow is a ResponseLimit error.
 */
export const listAll = (
  client: Client,
  bounds: Bounds,
): Effect.Effect<ReadonlyArray<McpTool>, SvirError.SvirError> =>
  Effect.gen(function* () {
    const tools: Array<McpTool> = []
    const seenCursors = new Set<string>()
    let cursor: string | undefined
    for (let page = 1; ; page++) {
      if (page > bounds.maxPages) {
        return yield* SvirError.make(
          "ResponseLimit",
          `listing tools stopped after ${bounds.maxPages} pages: the server has more`,
          { limit: "maxPages", max: bounds.maxPages },
        )
      }
      const params = cursor === undefined ? undefined : { cursor }
      const answer = yield* Effect.tryPromise({
        try: (signal) => client.listTools(params, { signal, timeout: bounds.timeoutMillis }),
        catch: (error) => toSvirError(`listing tools (page ${page})`, error),
      })
      tools.push(...answer.tools)
      if (tools.length > bounds.maxTools) {
        return yield* SvirError.make(
          "ResponseLimit",
          `listing tools stopped at ${tools.length} tools: more than the limit of ${bounds.maxTools}`,
          { limit: "maxTools", max: bounds.maxTools },
        )
      }
      if (answer.nextCursor === undefined) return tools
      if (seenCursors.has(answer.nextCursor)) {
        return yield* SvirError.make(
          "Protocol",
          `listing tools: the server gave the cursor ${JSON.stringify(answer.nextCursor)} again on page ${page}, so its pages would never end`,
        )
      }
      seenCursors.add(answer.nextCursor)
      cursor = answer.nextCursor
    }
  })

/** What one listing needs besides the Client. */
export interface ListingSettings extends Bounds {
  readonly prefix: string | undefined
  /** Applied to the listing's errors and warnings. */
  readonly redaction: Redaction.Redaction
}

/**
 * The server's tools as offered, with a warning for the tools left out. A server without the
 * tools capability offers none.
 */
export const listTools = (
  client: Client,
  settings: ListingSettings,
): Effect.Effect<OfferedTools, SvirError.SvirError> =>
  client.getServerCapabilities()?.tools === undefined
    ? Effect.succeed(noTools)
    : listAll(client, settings).pipe(
        Effect.mapError(settings.redaction.error),
        Effect.map((tools) => offerTools(tools, settings.prefix)),
        Effect.tap((offered) => warnLeftOut(offered, settings.redaction)),
      )

const warnLeftOut = (offered: OfferedTools, redaction: Redaction.Redaction): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (offered.duplicates.length > 0) {
      yield* Effect.logWarning(
        redaction.text(
          `MCP tools offered under a name already taken were left out: ${offered.duplicates.join(", ")}`,
        ),
      )
    }
    if (offered.tooDeep.length > 0) {
      yield* Effect.logWarning(
        redaction.text(
          `MCP tools whose input schema nests deeper than ${Json.maxDepth} levels were left out: ${offered.tooDeep.join(", ")}`,
        ),
      )
    }
  })
