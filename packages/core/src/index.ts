/**
 * The pure types of svir: tools, calls, results, requests, completions, events, errors, and the
 * Toolbox and Codec contracts.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Codec from "./Codec.js"
/** @since 0.1.0 */
export * as Completion from "./Completion.js"
/** @since 0.1.0 */
export * as Event from "./Event.js"
/** @since 0.2.0 */
export * as GenAi from "./GenAi.js"
/** @since 0.2.0 */
export * as HttpError from "./HttpError.js"
/** @since 0.1.0 */
export * as Json from "./Json.js"
/** @since 0.2.0 */
export * as JsonSchema from "./JsonSchema.js"
/** @since 0.1.0 */
export * as Message from "./Message.js"
/** @since 0.2.0 */
export * as PartialJson from "./PartialJson.js"
/** @since 0.1.0 */
export * as Redaction from "./Redaction.js"
/** @since 0.1.0 */
export * as Request from "./Request.js"
/** @since 0.1.0 */
export * as SvirError from "./SvirError.js"
/** @since 0.1.0 */
export * as Text from "./Text.js"
/** @since 0.1.0 */
export * as Tool from "./Tool.js"
/** @since 0.1.0 */
export * as Toolbox from "./Toolbox.js"
/** @since 0.1.0 */
export * as ToolCall from "./ToolCall.js"
/** @since 0.1.0 */
export * as ToolChoice from "./ToolChoice.js"
/** @since 0.1.0 */
export * as ToolResult from "./ToolResult.js"
