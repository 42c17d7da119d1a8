/**
 * svir's tool-calling loop as a durable workflow on Effect's workflow engine.
 *
 * @since 0.2.0
 */
export * as DurableLoop from "./DurableLoop.js"
