import {
  type ElicitResult,
  type InputResponse,
  isSpecType,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/client"
import { Toolbox, type ToolResult } from "@svir/core"
import * as Effect from "effect/Effect"
import { type ElicitationSettings, formAnswer } from "./elicitationHandler.js"
import type { SchemaValidator } from "./schemaValidator.js"

/**
 * How many times a call answers a server's `input_required` result before it gives up: the SDK's
 * own default, which the bridge also gives the Client for `prompts/get` and `resources/read` (D51).
 */
export const maxInputRounds = 10

/** Why a call cannot answer what its server asked, and the failure of its result. */
export class InputNotGiven {
  constructor(
    readonly why: string,
    readonly failure: ToolResult.Failure,
  ) {}
}

/**
 * The answers to one round of a 2026-07-28 server's `input_required` result, by the server's
 * keys, or why they cannot be given. Built by the Client's maker, where the features are.
 */
export type InputAnswerer = (
  requests: Readonly<Record<string, unknown>>,
) => Effect.Effect<Record<string, InputResponse>, InputNotGiven>

/**
 * Answers a round's requests one after the other (one person answers them): a form through the
 * `Elicitation` service, with the checks of a 2025 `elicitation/create` (D25, D26, D27), while
 * the time limit of the call stands still (`Toolbox.paused`); `roots/list` with the roots, when
 * they are given (D28). Anything else, or a form that gets an error in place of an answer, ends
 * the call: a 2026-07-28 server cannot be sent an error for one input (D51).
 */
export const inputAnswerer = (
  elicitation: ElicitationSettings,
  roots: ReadonlyArray<{ readonly uri: string; readonly name?: string | undefined }> | undefined,
  validator: SchemaValidator,
  serverName: () => string | undefined,
): InputAnswerer => {
  const answerOne = (request: unknown): Effect.Effect<InputResponse, InputNotGiven> => {
    if (isSpecType.ElicitRequest(request)) {
      const asked = Effect.provideContext(
        formAnswer(elicitation, validator, serverName(), request.params),
        elicitation.context,
      )
      return Effect.flatMap(Toolbox.paused(asked), formResponse)
    }
    if (isSpecType.ListRootsRequest(request) && roots !== undefined) {
      return Effect.succeed({ roots: roots.map((root) => ({ ...root })) })
    }
    return Effect.fail(
      new InputNotGiven(`its server asked for ${asked(request)}`, "server_refused"),
    )
  }
  return (requests) =>
    Effect.map(
      Effect.forEach(Object.entries(requests), ([key, request]) =>
        Effect.map(answerOne(request), (response) => [key, response] as const),
      ),
      Object.fromEntries,
    )
}

/** What a server asked that this client does not offer, in the bridge's words: none of the server's. */
const asked = (request: unknown): string => {
  const method =
    typeof request === "object" && request !== null && "method" in request
      ? request.method
      : undefined
  if (method === "elicitation/create") return "a form in a mode this client does not answer"
  if (method === "roots/list") return "roots, which this client does not declare"
  if (method === "sampling/createMessage") return "sampling, which this client does not offer"
  return "input of a kind the protocol does not define"
}

/**
 * A form's answer, or the end of the call when the server would have got an error in its place:
 * a request the client refuses (-32602, the server's fault), or content that does not fit, or an
 * Elicitation service that died (-32603, the client's).
 */
const formResponse = (
  answer: ElicitResult | ProtocolError,
): Effect.Effect<ElicitResult, InputNotGiven> =>
  answer instanceof ProtocolError
    ? Effect.fail(
        new InputNotGiven(
          `its server's form could not be answered: ${answer.message}`,
          answer.code === ProtocolErrorCode.InvalidParams ? "server_refused" : "handler_failed",
        ),
      )
    : Effect.succeed(answer)
