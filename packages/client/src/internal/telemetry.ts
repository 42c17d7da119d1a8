import type { Completion, Event, Message, Redaction, Request } from "@svir/core"
import { GenAi, SvirError } from "@svir/core"
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Pull from "effect/Pull"
import * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"

/** What the `chat` spans of one client share, worked out once (D20). */
export interface Telemetry {
  /** `gen_ai.provider.name`. */
  readonly providerName: string
  readonly serverAddress: string
  readonly serverPort: number
  /** Applied to content, when it is recorded: a server can echo a key in its answer. */
  readonly redaction: Redaction.Redaction
}

/** D20, D24: the provider's name is the codec's (`openai` for Chat Completions), or the caller's. */
export const make = (
  baseUrl: string,
  providerName: string,
  redaction: Redaction.Redaction,
): Telemetry => {
  const url = new URL(baseUrl)
  return {
    providerName,
    serverAddress: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    serverPort: url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port),
    redaction,
  }
}

/** The attributes known before the request is sent; content only when it is recorded. */
const requestAttributes = (
  telemetry: Telemetry,
  request: Request.Request,
  content: boolean,
): Record<string, unknown> => {
  const { Attribute } = GenAi
  const attributes: Record<string, unknown> = {
    [Attribute.operationName]: GenAi.Operation.chat,
    [Attribute.providerName]: telemetry.providerName,
    [Attribute.requestModel]: request.model,
    [Attribute.serverAddress]: telemetry.serverAddress,
    [Attribute.serverPort]: telemetry.serverPort,
  }
  if (request.maxTokens !== undefined) attributes[Attribute.requestMaxTokens] = request.maxTokens
  if (request.temperature !== undefined) {
    attributes[Attribute.requestTemperature] = request.temperature
  }
  if (request.topP !== undefined) attributes[Attribute.requestTopP] = request.topP
  if (request.seed !== undefined) attributes[Attribute.requestSeed] = request.seed
  if (request.stop !== undefined) attributes[Attribute.requestStopSequences] = [request.stop].flat()
  if (request.presencePenalty !== undefined) {
    attributes[Attribute.requestPresencePenalty] = request.presencePenalty
  }
  if (request.frequencyPenalty !== undefined) {
    attributes[Attribute.requestFrequencyPenalty] = request.frequencyPenalty
  }
  if (content) {
    attributes[Attribute.inputMessages] = telemetry.redaction.text(
      JSON.stringify(inputMessages(request)),
    )
  }
  return attributes
}

/** A text part, as the conventions' message schema writes it. */
const text = (content: string) => ({ type: "text", content })

/** The conventions' input messages (their JSON schema, v1.41): roles and parts, files named. */
const inputMessages = (request: Request.Request): ReadonlyArray<unknown> => {
  const messages: Array<unknown> = []
  if (request.system !== undefined) {
    messages.push({ role: "system", parts: [text(request.system)] })
  }
  for (const message of request.messages) messages.push(inputMessage(message))
  return messages
}

const inputMessage = (message: Message.Message): unknown => {
  switch (message._tag) {
    case "User":
      return {
        role: "user",
        parts: message.parts.map((part) =>
          part._tag === "Text"
            ? text(part.text)
            : {
                type: part._tag === "Image" ? "image" : "file",
                name: "name" in part ? part.name : undefined,
              },
        ),
      }
    case "Assistant":
      return { role: "assistant", parts: assistantParts(message.text, message.calls) }
    case "Tool":
      return {
        role: "tool",
        parts: [
          { type: "tool_call_response", id: message.result.callId, result: message.result.content },
        ],
      }
  }
}

const assistantParts = (
  answer: string,
  calls: Completion.Completion["calls"],
): ReadonlyArray<unknown> => [
  ...(answer === "" ? [] : [text(answer)]),
  ...calls.map((call) => ({
    type: "tool_call",
    id: call.id,
    name: call.name,
    arguments: call.arguments,
  })),
]

/** Adds what the answer tells: its id, model, finish reason, usage; its content when recorded. */
const recordCompletion = (
  span: Tracer.Span,
  completion: Completion.Completion,
  telemetry: Telemetry,
  content: boolean,
): void => {
  const { Attribute } = GenAi
  if (completion.id !== undefined) span.attribute(Attribute.responseId, completion.id)
  if (completion.model !== undefined) span.attribute(Attribute.responseModel, completion.model)
  span.attribute(Attribute.responseFinishReasons, [completion.finish])
  if (completion.usage !== undefined) {
    span.attribute(Attribute.usageInputTokens, completion.usage.input)
    span.attribute(Attribute.usageOutputTokens, completion.usage.output)
  }
  if (content) {
    const output = [
      {
        role: "assistant",
        parts: assistantParts(completion.text, completion.calls),
        finish_reason: completion.finish,
      },
    ]
    span.attribute(Attribute.outputMessages, telemetry.redaction.text(JSON.stringify(output)))
  }
}

const spanName = (request: Request.Request) => `${GenAi.Operation.chat} ${request.model}`

const recordError = (span: Tracer.Span, error: SvirError.SvirError): void => {
  span.attribute(GenAi.Attribute.errorType, error.reason._tag)
}

/**
 * A whole answer in a `chat {model}` span. With no tracer that exports, the effect runs as it is:
 * the attributes are not even made.
 */
export const complete = (
  telemetry: Telemetry,
  request: Request.Request,
  effect: Effect.Effect<Completion.Completion, SvirError.SvirError>,
): Effect.Effect<Completion.Completion, SvirError.SvirError> =>
  Effect.withFiber((fiber) => {
    if (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) return effect
    const content = fiber.getRef(GenAi.RecordContent)
    return Effect.useSpan(
      spanName(request),
      { kind: "client", attributes: requestAttributes(telemetry, request, content) },
      (span) =>
        Effect.withParentSpan(effect, span).pipe(
          Effect.tap((completion) =>
            Effect.sync(() => recordCompletion(span, completion, telemetry, content)),
          ),
          Effect.tapError((error) => Effect.sync(() => recordError(span, error))),
        ),
    )
  })

/**
 * The span of a streamed answer, from its start to its end: `open` is run with it as the parent
 * (the HTTP request's span is its child), the pull it gives is watched for the `Completed` event
 * and for an error, and `scope`, the stream's, ends it. Without a tracer that exports, `open` is
 * run as it is.
 */
export const stream = <R>(
  telemetry: Telemetry,
  request: Request.Request,
  scope: Scope.Scope,
  open: Effect.Effect<
    Pull.Pull<Arr.NonEmptyReadonlyArray<Event.Event>, SvirError.SvirError>,
    SvirError.SvirError,
    R
  >,
): Effect.Effect<
  Pull.Pull<Arr.NonEmptyReadonlyArray<Event.Event>, SvirError.SvirError>,
  SvirError.SvirError,
  R
> =>
  Effect.withFiber((fiber) => {
    if (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) return open
    const content = fiber.getRef(GenAi.RecordContent)
    return Effect.flatMap(
      Effect.makeSpan(spanName(request), {
        kind: "client",
        attributes: requestAttributes(telemetry, request, content),
      }),
      (span) => {
        let failure: SvirError.SvirError | undefined
        const failed = (error: SvirError.SvirError) =>
          Effect.sync(() => {
            failure = error
            recordError(span, error)
          })
        const end = (exit: Exit.Exit<unknown, unknown>) =>
          Effect.clockWith((clock) =>
            Effect.sync(() =>
              span.end(
                clock.currentTimeNanosUnsafe(),
                failure === undefined ? exit : Exit.fail(failure),
              ),
            ),
          )
        return Effect.withParentSpan(open, span).pipe(
          Effect.tapError(failed),
          Effect.onExit((exit) =>
            Exit.isFailure(exit) ? end(exit) : Scope.addFinalizerExit(scope, end),
          ),
          Effect.map((pull) =>
            pull.pipe(
              Effect.tap((events) =>
                Effect.sync(() => {
                  for (const event of events) {
                    if (event._tag === "Completed") {
                      recordCompletion(span, event.completion, telemetry, content)
                    }
                  }
                }),
              ),
              Effect.tapError((error) =>
                Cause.isDone(error) || !SvirError.isSvirError(error) ? Effect.void : failed(error),
              ),
            ),
          ),
        )
      },
    )
  })
