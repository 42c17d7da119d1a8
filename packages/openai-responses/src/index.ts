/**
 * The OpenAI Responses codec for svir (the wire the Open Responses specification describes): a
 * pure encoder of requests and a chunking-proof decoder of answers and streams, with the wire's
 * error bodies, in-stream errors and model listing, for any transport.
 *
 * @since 0.2.0
 * @packageDocumentation
 */

/** @since 0.2.0 */
export * as Reasoning from "./Reasoning.js"
/** @since 0.2.0 */
export * as RequestBody from "./RequestBody.js"
/** @since 0.2.0 */
export * as ResponsesCodec from "./ResponsesCodec.js"
/** @since 0.2.0 */
export * as ServerError from "./ServerError.js"
