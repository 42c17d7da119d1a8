/**
 * Any MCP server's tools as a svir Toolbox, through the official MCP SDK.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Content from "./Content.js"
/** @since 0.1.0 */
export * as Elicitation from "./Elicitation.js"
/** @since 0.1.0 */
export * as McpPrompts from "./McpPrompts.js"
/** @since 0.1.0 */
export * as McpResources from "./McpResources.js"
/** @since 0.1.0 */
export * as McpToolbox from "./McpToolbox.js"
/** @since 0.1.0 */
export * as ToolName from "./ToolName.js"
