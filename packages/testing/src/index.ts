/**
 * A scripted OpenAI-compatible server for testing tool-calling loops without a model.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Answer from "./Answer.js"
/** @since 0.1.0 */
export * as ScriptedServer from "./ScriptedServer.js"
