/**
 * The Anthropic Messages codec for svir: a pure encoder of requests and a chunking-proof decoder
 * of answers and streams, with the wire's auth headers, error bodies and model listing, for any
 * transport.
 *
 * @since 0.2.0
 * @packageDocumentation
 */

/** @since 0.2.0 */
export * as AnthropicCodec from "./AnthropicCodec.js"
/** @since 0.2.0 */
export * as RequestBody from "./RequestBody.js"
/** @since 0.2.0 */
export * as ServerError from "./ServerError.js"
/** @since 0.2.0 */
export * as Thinking from "./Thinking.js"
