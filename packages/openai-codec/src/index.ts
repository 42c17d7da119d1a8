/**
 * The Chat Completions codec for svir: a pure encoder of requests and a decoder of answers and
 * streams, for any transport.
 *
 * @since 0.2.0
 * @packageDocumentation
 */

export * as OpenAiCodec from "./OpenAiCodec.js"
export * as RequestBody from "./RequestBody.js"
export * as ServerError from "./ServerError.js"
export * as ToolSchema from "./ToolSchema.js"
