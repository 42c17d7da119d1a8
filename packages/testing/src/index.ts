/**
 * A scripted OpenAI-compatible server for testing tool-calling loops without a model.
 *
 * @since 0.2.0
 * @packageDocumentation
 */

export * as Answer from "./Answer.js"
export * as ScriptedServer from "./ScriptedServer.js"
