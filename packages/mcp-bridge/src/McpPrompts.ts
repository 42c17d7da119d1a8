/**
 * An MCP server's prompts: listed, and got with their arguments, beside its tools.
 *
 * @since 0.2.0
 * @module
 */
import type { Client, GetPromptResult, Prompt } from "@modelcontextprotocol/client"
import { Redaction, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import { cursorParams, listFeature, pageBounds } from "./internal/pages.js"
import { sdkRequest } from "./internal/request.js"

/**
 * Bounds of the requests. Every bound has a default.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** How long one request (one page of the listing, one get) may take. Default 30 000. */
  readonly timeoutMillis?: number | undefined
  /** The most pages of the listing followed. Default 100. */
  readonly maxPages?: number | undefined
  /** The most prompts listed. Default 1 000. */
  readonly maxItems?: number | undefined
}

/**
 * A server's prompts. `list` follows `nextCursor`; `get` fills a prompt's arguments (strings, as
 * MCP has them) and gives its messages. A server without the `prompts` capability lists none, and
 * getting one from it is an Unsupported error. Every failure is a typed error, redacted like the
 * toolbox's, the server's own words in `serverMessage` (a missing required argument is the
 * server's error).
 *
 * @since 0.2.0
 * @category models
 */
export interface McpPrompts {
  /** An Effect that lists the server's prompts, following `nextCursor`. */
  readonly list: Effect.Effect<ReadonlyArray<Prompt>, SvirError.SvirError>
  readonly get: (
    name: string,
    args?: Readonly<Record<string, string>>,
  ) => Effect.Effect<GetPromptResult, SvirError.SvirError>
}

/**
 * The prompts of the server `getClient` reaches, asked for anew at every request, so that they
 * follow a connection that is replaced. `redaction` is applied to every error. An `McpToolbox`
 * has one as `prompts`; this constructor is for a Client of your own.
 *
 * @example
 * ```ts
 * import type { Client } from "@modelcontextprotocol/client"
 * import { McpPrompts } from "@svir/mcp-bridge"
 *
 * declare const client: Client
 * const weather = McpPrompts.make(() => client).get("args-prompt", { city: "Paris" })
 * // Effect<GetPromptResult, SvirError>
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  getClient: () => Client,
  redaction: Redaction.Redaction = Redaction.none,
  options: Options = {},
): McpPrompts => {
  const bounds = pageBounds(options)
  return {
    list: listFeature(
      getClient,
      "prompts",
      "prompts",
      async (client, cursor, request) => {
        const page = await client.request(
          { method: "prompts/list", ...cursorParams(cursor) },
          request,
        )
        return { items: page.prompts, nextCursor: page.nextCursor }
      },
      bounds,
      redaction,
    ),
    get: (name, args) =>
      Effect.suspend(() => {
        const doing = `getting the prompt ${name}`
        const client = getClient()
        if (client.getServerCapabilities()?.prompts === undefined) {
          return Effect.fail(
            redaction.error(
              SvirError.make("Unsupported", `${doing}: the server offers no prompts`),
            ),
          )
        }
        return sdkRequest(doing, redaction, (signal) =>
          client.getPrompt(
            { name, ...(args === undefined ? {} : { arguments: { ...args } }) },
            { signal, timeout: bounds.timeoutMillis },
          ),
        )
      }),
  }
}
