import { GenAi, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"
import type * as Step from "../Step.js"

/** What the span reads of the loop's result. */
interface Ran {
  readonly steps: ReadonlyArray<Step.Step>
  readonly usage: Step.Step["completion"]["usage"]
}

/**
 * D10: the loop in one `invoke_agent` span, with its steps and their usage summed; the model
 * calls and tool calls of its steps are its children. With no tracer that exports, the loop runs
 * as it is.
 */
export const invokeAgent = <A extends Ran, E, R>(
  loop: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => {
    if (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) return loop
    const { Attribute } = GenAi
    return Effect.useSpan(
      GenAi.Operation.invokeAgent,
      { attributes: { [Attribute.operationName]: GenAi.Operation.invokeAgent } },
      (span) =>
        Effect.withParentSpan(loop, span).pipe(
          Effect.tap((result) =>
            Effect.sync(() => {
              span.attribute(Attribute.agentSteps, result.steps.length)
              if (result.usage !== undefined) {
                span.attribute(Attribute.usageInputTokens, result.usage.input)
                span.attribute(Attribute.usageOutputTokens, result.usage.output)
              }
            }),
          ),
          Effect.tapError((error) =>
            Effect.sync(() =>
              span.attribute(
                Attribute.errorType,
                SvirError.isSvirError(error) ? error.reason._tag : "_OTHER",
              ),
            ),
          ),
        ),
    )
  })
