/**
 * The pure types of svir: tools, calls, results, requests, completions, events, errors, and the
 * Toolbox and Codec contracts.
 *
 * @since 0.2.0
 * @packageDocumentation
 */

export * as Body from "./Body.js"
export * as Codec from "./Codec.js"
export * as Completion from "./Completion.js"
export * as Event from "./Event.js"
export * as GenAi from "./GenAi.js"
export * as Guard from "./Guard.js"
export * as HttpError from "./HttpError.js"
export * as IdempotencyKey from "./IdempotencyKey.js"
export * as Json from "./Json.js"
export * as JsonEvents from "./JsonEvents.js"
export * as JsonSchema from "./JsonSchema.js"
export * as Message from "./Message.js"
export * as PartialJson from "./PartialJson.js"
export * as Pieces from "./Pieces.js"
export * as Received from "./Received.js"
export * as Redaction from "./Redaction.js"
export * as Request from "./Request.js"
export * as Sse from "./Sse.js"
export * as SvirError from "./SvirError.js"
export * as Text from "./Text.js"
export * as Tool from "./Tool.js"
export * as Toolbox from "./Toolbox.js"
export * as ToolCall from "./ToolCall.js"
export * as ToolChoice from "./ToolChoice.js"
export * as ToolInput from "./ToolInput.js"
export * as ToolResult from "./ToolResult.js"
