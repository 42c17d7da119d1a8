import type { Client } from "@modelcontextprotocol/client"
import { specTypeSchemas } from "@modelcontextprotocol/client"
import type { Redaction, SvirError } from "@svir/core"
import { Text } from "@svir/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { noTools, type OfferedTools, offerTools } from "./offeredTools.js"
import { outputCheckOf } from "./outputCheck.js"
import { cursorParams, listPages } from "./pages.js"
import { type SchemaValidator, uncheckedPatterns } from "./schemaValidator.js"
import type { SkippedTool } from "./skippedTool.js"

/** The bounds of one listing. */
interface Bounds {
  readonly maxPages: number
  readonly maxTools: number
  readonly timeoutMillis: number
}

/** The entries of a listing, and for how long the listing may be offered as it is (D53). */
interface Listed {
  readonly entries: ReadonlyArray<unknown>
  readonly ttlMillis: number | undefined
}

/**
 * Every entry of the server's lists of tools, page after page, each as the server sent it: the
 * SDK's `listTools` checks every tool of a page against its schema and refuses the whole page for
 * one tool (D20), so a page is read with the SDK's schema of a page alone, which lets `tools`
 * through as it is. The listing's time to live is the shortest of its pages' (D53).
 */
const listAll = (
  client: Client,
  bounds: Bounds,
  redaction: Redaction.Redaction,
): Effect.Effect<Listed, SvirError.SvirError> =>
  Effect.suspend(() => {
    let ttlMillis: number | undefined
    return listPages<unknown>(
      "tools",
      async (cursor, options) => {
        const answer = await client.request(
          { method: "tools/list", ...cursorParams(cursor) },
          specTypeSchemas.PaginatedResult,
          options,
        )
        if ("ttlMs" in answer) ttlMillis = Math.min(ttlMillis ?? maxTtlMillis, ttlOf(answer.ttlMs))
        return {
          items: Array.isArray(answer.tools) ? answer.tools : undefined,
          nextCursor: answer.nextCursor,
        }
      },
      { maxPages: bounds.maxPages, maxItems: bounds.maxTools, timeoutMillis: bounds.timeoutMillis },
      redaction,
      "maxTools",
    ).pipe(Effect.map((entries) => ({ entries, ttlMillis })))
  })

/**
 * The shortest time to live the bridge takes from a server (D53): a listing is never asked for
 * again sooner than this after the last one ended, whatever `ttlMs` says.
 */
const minTtlMillis = 1_000

/** The longest time to live the bridge takes from a server, the SDK's own cap (24 h, D53). */
const maxTtlMillis = 86_400_000

/**
 * A page's `ttlMs` within the bounds: a value that is not a number (a string, `null`, NaN) is
 * taken as `0`, "immediately stale", since the server did say the list expires (D53).
 */
const ttlOf = (ttlMs: unknown): number =>
  typeof ttlMs === "number" && !Number.isNaN(ttlMs)
    ? Math.min(Math.max(ttlMs, minTtlMillis), maxTtlMillis)
    : minTtlMillis

/** What one listing needs besides the Client. */
export interface ListingSettings extends Bounds {
  readonly prefix: string | undefined
  /** Applied to the listing's errors and warnings. */
  readonly redaction: Redaction.Redaction
  /** Compiles the output schemas: the bridge's, whatever Client is bridged (D42). */
  readonly validator: SchemaValidator
  /** Whether the connection is stdio, whose requests carry no headers (D51). */
  readonly overStdio: boolean
}

/**
 * The server's tools as offered, with a warning for each tool the server listed wrongly (D20), and
 * the listing's time to live when the server gave one (D53). A server without the tools capability
 * offers none. `timeoutMillis` bounds the whole listing:
 * a tool whose output schema would be looked at after it ran out is left out (D40).
 */
export const listTools = (
  client: Client,
  settings: ListingSettings,
): Effect.Effect<OfferedTools, SvirError.SvirError> =>
  client.getServerCapabilities()?.tools === undefined
    ? Effect.succeed(noTools)
    : Clock.clockWith((clock) => {
        const millis = () => Number(clock.monotonicTimeNanosUnsafe() / 1_000_000n)
        const deadline = millis() + settings.timeoutMillis
        const outOfTime = () => millis() > deadline
        return listAll(client, settings, settings.redaction).pipe(
          Effect.map(({ entries, ttlMillis }) => ({
            ...redactReasons(
              offerAndCompile(client, entries, settings, outOfTime),
              settings.redaction,
            ),
            ttlMillis,
          })),
          Effect.tap((offered) => warnSkipped(client, offered, settings.redaction)),
          Effect.tap((offered) => tellUnchecked(client, offered, settings.redaction)),
        )
      })

/**
 * The tools offered, each output schema made the check of that tool's structured content (D42),
 * which the bridge's validator compiles at the tool's first call (D50). A tool whose output schema
 * is over the bounds or would be refused by compiling is left out, and so is one whose turn comes
 * after the listing's time ran out (D40).
 */
const offerAndCompile = (
  client: Client,
  entries: ReadonlyArray<unknown>,
  settings: ListingSettings,
  outOfTime: () => boolean,
): OfferedTools =>
  offerTools(
    entries,
    settings.prefix,
    (tool) =>
      outOfTime()
        ? "its output schema is not compiled: the listing ran out of time (listTimeoutMillis) before its turn"
        : outputCheckOf(settings.validator, tool.outputSchema ?? {}),
    client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined,
    client.getProtocolEra() === "modern" && !settings.overStdio,
  )

/** The reasons quote the server's schemas, which may echo a secret (D3). */
const redactReasons = (offered: OfferedTools, redaction: Redaction.Redaction): OfferedTools => ({
  ...offered,
  skipped: offered.skipped.map((skipped) => ({
    ...skipped,
    reason: redaction.text(skipped.reason),
  })),
})

const maxNameChars = 100

/**
 * A warning line for each tool the server listed wrongly, naming the server, the tool and the
 * reason; a debug line for each tool left out because the bridge does not support it.
 */
const warnSkipped = (
  client: Client,
  offered: OfferedTools,
  redaction: Redaction.Redaction,
): Effect.Effect<void> =>
  Effect.forEach(
    offered.skipped,
    (skipped) => {
      const line = redaction.text(leftOutLine(client, skipped))
      return offered.refused.has(skipped.index) ? Effect.logWarning(line) : Effect.logDebug(line)
    },
    { discard: true },
  )

/**
 * A debug line for each offered tool whose output schema has patterns RE2 cannot run
 * (backreferences, lookaround): the tool is offered, and those patterns are not checked (D38).
 */
const tellUnchecked = (
  client: Client,
  offered: OfferedTools,
  redaction: Redaction.Redaction,
): Effect.Effect<void> =>
  Effect.forEach(
    offered.admitted,
    (tool) => {
      const unchecked = uncheckedPatterns(tool.outputSchema)
      if (unchecked.length === 0) return Effect.void
      const server = JSON.stringify(client.getServerVersion()?.name ?? "")
      const name = JSON.stringify(Text.shorten(tool.name, maxNameChars))
      const patterns = unchecked.map((pattern) =>
        JSON.stringify(Text.shorten(pattern, maxNameChars)),
      )
      return Effect.logDebug(
        redaction.text(
          `the MCP server ${server} lists the tool ${name}; the bridge does not check the patterns ${patterns.join(", ")} of its output schema, which need backtracking`,
        ),
      )
    },
    { discard: true },
  )

const leftOutLine = (client: Client, skipped: SkippedTool): string => {
  const server = JSON.stringify(client.getServerVersion()?.name ?? "")
  const tool =
    skipped.name === undefined
      ? `number ${skipped.index + 1}, which has no name,`
      : JSON.stringify(Text.shorten(skipped.name, maxNameChars))
  return `the MCP server ${server} lists the tool ${tool} and the bridge leaves it out: ${skipped.reason}`
}
