/**
 * One step of the loop: a request sent, the answer, and the results of the calls it made.
 *
 * @since 0.2.0
 * @module
 */
import { Completion, type Request, type ToolCall, type ToolResult } from "@svir/core"

/**
 * What one step did: the request sent, the completion that came back, the calls answered (as
 * the model made them, or as the repair hook mended them) and one result per call, in the order
 * of the calls. A step whose answer made no calls has none of either.
 *
 * @since 0.2.0
 * @category models
 */
export interface Step {
  /** The step's place in the loop, 0 for the first. */
  readonly index: number
  readonly request: Request.Request
  readonly completion: Completion.Completion
  readonly calls: ReadonlyArray<ToolCall.ToolCall>
  readonly results: ReadonlyArray<ToolResult.ToolResult>
}

/**
 * The usage of every step, summed with `Completion.addUsage`; `undefined` when no step reported
 * any. A step the server sent no usage for counts as nothing (a streamed answer reports usage
 * only when the request asks with `Request.includeUsage(true)`).
 *
 * @example
 * ```ts
 * import { Completion, Request } from "@svir/core"
 * import { Step } from "@svir/loop"
 *
 * const request = Request.make("qwen3")
 * const step = (index: number, input: number, output: number): Step.Step => ({
 *   index,
 *   request,
 *   completion: Completion.make({ finish: "stop", usage: { input, output, total: input + output } }),
 *   calls: [],
 *   results: [],
 * })
 * Step.totalUsage([step(0, 100, 20), step(1, 130, 10)]) // { input: 230, output: 30, total: 260 }
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const totalUsage = (steps: ReadonlyArray<Step>): Completion.Usage | undefined => {
  let sum: Completion.Usage | undefined
  for (const step of steps) {
    const usage = step.completion.usage
    if (usage !== undefined) sum = sum === undefined ? usage : Completion.addUsage(sum, usage)
  }
  return sum
}
