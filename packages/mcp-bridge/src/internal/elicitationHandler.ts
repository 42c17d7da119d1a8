import {
  type ElicitRequest,
  type ElicitResult,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/client"
import type { Redaction } from "@svir/core"
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Elicitation from "../Elicitation.js"
import type { SchemaCheck, SchemaValidator } from "./schemaValidator.js"

/** How `elicitation/create` is answered, fixed when the toolbox is made. */
export interface ElicitationSettings {
  /** The user's service, if one was provided. */
  readonly service: Option.Option<Elicitation.Elicitation["Service"]>
  /** The services the toolbox was made with, which the user's `ask` runs with. */
  readonly context: Context.Context<never>
  /** How long the user may take; then the answer is `cancel` (D27). */
  readonly timeoutMillis: number
  readonly redaction: Redaction.Redaction
}

const declined: ElicitResult = { action: "decline" }
const cancelled: ElicitResult = { action: "cancel" }

/**
 * The handler of `elicitation/create` for one Client, on a 2025 connection. The SDK has already
 * checked the request's shape and refused the URL mode this client does not declare; it does not
 * check accepted content against the requested schema (an SDK server that calls `elicitInput`
 * does, on its side), so {@link formAnswer} does it before anything is sent (D26). `serverName` is
 * read when a request comes.
 */
export const answerElicitation =
  (
    settings: ElicitationSettings,
    validator: SchemaValidator,
    serverName: () => string | undefined,
  ) =>
  async (
    request: ElicitRequest,
    context: { readonly mcpReq: { readonly signal: AbortSignal } },
  ): Promise<ElicitResult> => {
    // The server's cancellation, or the connection's end, aborts the signal: the SDK then sends
    // nothing, and the user's effect is interrupted.
    const outcome = await Effect.runPromiseWith(settings.context)(
      formAnswer(settings, validator, serverName(), request.params),
      { signal: context.mcpReq.signal },
    )
    if (outcome instanceof ProtocolError) throw outcome
    return outcome
  }

/**
 * The answer to one form a server asks for, or the error that stands in its place: a request in
 * URL mode (not declared, D25) or whose schema cannot be compiled is refused before the user is
 * asked; without an `Elicitation` service the answer is `decline`; the user's content is checked
 * against the form (D26) within `timeoutMillis` (D27). The same for a 2025 connection's
 * `elicitation/create` and a 2026-07-28 `input_required` result (D51).
 */
export const formAnswer = (
  settings: ElicitationSettings,
  validator: SchemaValidator,
  server: string | undefined,
  params: ElicitRequest["params"],
): Effect.Effect<ElicitResult | ProtocolError> => {
  // URL mode: on a 2025 connection the SDK refuses it before this handler, as it is not declared.
  if (!("requestedSchema" in params)) {
    return Effect.succeed(
      new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "this client answers form elicitation only",
      ),
    )
  }
  const check = compile(validator, params.requestedSchema)
  if (check instanceof ProtocolError) return Effect.succeed(check)
  if (Option.isNone(settings.service)) return Effect.succeed(declined)
  const asked = settings.service.value.ask({
    message: params.message,
    requestedSchema: params.requestedSchema,
    server,
  })
  return answerOf(asked, check, params.requestedSchema, settings)
}

/** The form's check; a schema that cannot be compiled is the server's fault, told before asking. */
const compile = (
  validator: SchemaValidator,
  schema: Elicitation.RequestedSchema,
): SchemaCheck | ProtocolError => {
  try {
    // The SDK's form schema is a JSON Schema object; its type is only narrower.
    return validator.compile(schema)
  } catch (error) {
    return new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `the requested schema cannot be checked: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

/**
 * The user's answer as the server gets it: a result, or the error sent in its place (D27). An
 * interruption from outside (the signal) is left to end the run.
 */
const answerOf = (
  asked: Effect.Effect<Elicitation.Answer>,
  check: SchemaCheck,
  schema: Elicitation.RequestedSchema,
  settings: ElicitationSettings,
): Effect.Effect<ElicitResult | ProtocolError> =>
  asked.pipe(
    Effect.timeoutOption(settings.timeoutMillis),
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.succeed(cancelled),
        onSome: (answer) => checked(answer, check, schema, settings.redaction),
      }),
    ),
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause)
        : Effect.as(
            Effect.logError(
              settings.redaction.text(
                `the Elicitation service failed; the server is told so: ${Cause.pretty(cause)}`,
              ),
            ),
            new ProtocolError(ProtocolErrorCode.InternalError, "the client failed to ask the user"),
          ),
    ),
  )

/**
 * The content with the form's default for each field the user left out (D26): the client
 * declares `applyDefaults`, and a required field that has a default may be left out. A form's
 * fields are flat (the spec's `requestedSchema` holds primitive properties only).
 */
const withDefaults = (
  content: Elicitation.Content,
  schema: Elicitation.RequestedSchema,
): Elicitation.Content => {
  const filled: Record<string, unknown> = { ...content }
  for (const [name, property] of Object.entries(schema.properties)) {
    if (filled[name] === undefined && "default" in property) filled[name] = property.default
  }
  return filled as Elicitation.Content
}

/** The content as the SDK's result holds it: the same values, its lists copied. */
const sendable = (content: Elicitation.Content) =>
  Object.fromEntries(
    Object.entries(content).map(([name, value]) => [
      name,
      typeof value === "object" ? [...value] : value,
    ]),
  )

/** Accepted content, with the form's defaults, is sent only when it fits the requested schema. */
const checked = (
  answer: Elicitation.Answer,
  check: SchemaCheck,
  schema: Elicitation.RequestedSchema,
  redaction: Redaction.Redaction,
): Effect.Effect<ElicitResult | ProtocolError> => {
  if (answer.action !== "accept") return Effect.succeed({ action: answer.action })
  const content = withDefaults(answer.content, schema)
  const result = check(content)
  if (result.valid) {
    return Effect.succeed({ action: "accept", content: sendable(content) })
  }
  // Ajv's message names the fields and the rules they broke, not the values given.
  const why = `does not fit the requested schema (${result.errorMessage})`
  return Effect.as(
    Effect.logWarning(redaction.text(`the Elicitation service's answer ${why}; it was not sent`)),
    new ProtocolError(ProtocolErrorCode.InternalError, `the client's answer ${why}`),
  )
}
