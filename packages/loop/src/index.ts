/**
 * The tool loop of svir, opt-in: send, stream events, answer the calls with a Toolbox, append,
 * repeat; with stop conditions, approval, repair and abort.
 *
 * @since 0.2.0
 * @packageDocumentation
 */

/**
 * Approval of calls before they run, for any Toolbox.
 *
 * @since 0.2.0
 */
export * as Approval from "./Approval.js"

/**
 * The loop: `run` for its result, `stream` for its events.
 *
 * @since 0.2.0
 */
export * as Loop from "./Loop.js"

/**
 * The loop's state as data, and the step function over it.
 *
 * @since 0.2.0
 */
export * as LoopState from "./LoopState.js"

/**
 * One step of the loop, and the usage of several summed.
 *
 * @since 0.2.0
 */
export * as Step from "./Step.js"

/**
 * Stop conditions, and why a loop stopped.
 *
 * @since 0.2.0
 */
export * as Stop from "./Stop.js"

/**
 * One streamed answer: events to a callback, the completion at the end.
 *
 * @since 0.2.0
 */
export * as StreamCompletion from "./StreamCompletion.js"
