/**
 * The Chat Completions codec for svir: a pure encoder of requests and a decoder of answers and
 * streams, for any transport.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as OpenAiCodec from "./OpenAiCodec.js"
/** @since 0.1.0 */
export * as RequestBody from "./RequestBody.js"
/** @since 0.1.0 */
export * as ServerError from "./ServerError.js"
/** @since 0.2.0 */
export * as ToolSchema from "./ToolSchema.js"
