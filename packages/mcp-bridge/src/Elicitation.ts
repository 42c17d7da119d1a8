/**
 * Elicitation: a server asks the user for a few values, in a form, in the middle of a tool call
 * (`elicitation/create`, form mode). Whoever can ask the user provides the {@link Elicitation}
 * service; without it, every request is declined.
 *
 * @since 0.2.0
 * @module
 */
import type { ElicitRequestFormParams } from "@modelcontextprotocol/client"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * The form a server asks for: a flat object of string, number, boolean and enum fields, with
 * the names of the required ones (MCP's restricted subset of JSON Schema).
 *
 * @since 0.2.0
 * @category models
 */
export type RequestedSchema = ElicitRequestFormParams["requestedSchema"]

/**
 * What a server asks: `message` is the server's text for the user, `requestedSchema` the form.
 * `server` is the name the server gave itself, so that the user can see who asks.
 *
 * @since 0.2.0
 * @category models
 */
export interface Request {
  readonly message: string
  readonly requestedSchema: RequestedSchema
  readonly server: string | undefined
}

/**
 * The values of a filled form, by field name.
 *
 * @since 0.2.0
 * @category models
 */
export type Content = Readonly<Record<string, string | number | boolean | ReadonlyArray<string>>>

/**
 * The user's answer: `accept` with the form's values, `decline` (the user said no) or `cancel`
 * (the user dismissed the form without choosing).
 *
 * @since 0.2.0
 * @category models
 */
export type Answer =
  | { readonly action: "accept"; readonly content: Content }
  | { readonly action: "decline" }
  | { readonly action: "cancel" }

/**
 * The user filled the form with `content`. Content that does not fit the requested schema is not
 * sent: the server gets an error instead (DECISIONS.md D26).
 *
 * @example
 * ```ts
 * import { Elicitation } from "@svir/mcp-bridge"
 *
 * Elicitation.accept({ name: "Ada", subscribe: true })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const accept = (content: Content): Answer => ({ action: "accept", content })

/**
 * The user said no.
 *
 * @since 0.2.0
 * @category constructors
 */
export const decline: Answer = { action: "decline" }

/**
 * The user dismissed the form without choosing.
 *
 * @since 0.2.0
 * @category constructors
 */
export const cancel: Answer = { action: "cancel" }

/**
 * Asks the user what a server wants to know. The toolboxes made by `McpToolbox.stdio` and
 * `McpToolbox.http` read this service when they are made, if it is there, and run `ask` with
 * the services they were made with. An answer that takes longer than the toolbox's
 * `elicitationTimeoutMillis` becomes `cancel`; an `ask` that dies gives the server an error
 * (DECISIONS.md D27). Without the service, every request is declined.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { Elicitation, McpToolbox } from "@svir/mcp-bridge"
 *
 * // A user who always gives the same name, and declines any other form.
 * const user = Layer.succeed(Elicitation.Elicitation, {
 *   ask: (request) =>
 *     Effect.succeed(
 *       "name" in request.requestedSchema.properties
 *         ? Elicitation.accept({ name: "Ada" })
 *         : Elicitation.decline,
 *     ),
 * })
 * const toolbox = McpToolbox.stdio({ command: "mcp-server-everything" }).pipe(Effect.provide(user))
 * ```
 *
 * @since 0.2.0
 * @category services
 */
export class Elicitation extends Context.Service<
  Elicitation,
  { readonly ask: (request: Request) => Effect.Effect<Answer> }
>()("@svir/mcp-bridge/Elicitation") {}
