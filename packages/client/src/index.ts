/**
 * A client of any wire a codec speaks (Chat Completions by default): a core Request in, a
 * Completion or a stream of Events out, every failure typed.
 *
 * @since 0.2.0
 * @packageDocumentation
 */

export * as Client from "./Client.js"
