/**
 * Any MCP server's tools as a svir Toolbox, through the official MCP SDK.
 *
 * @since 0.2.0
 * @packageDocumentation
 */

export * as Content from "./Content.js"
export * as Elicitation from "./Elicitation.js"
export * as McpPrompts from "./McpPrompts.js"
export * as McpResources from "./McpResources.js"
export * as McpToolbox from "./McpToolbox.js"
export * as ToolName from "./ToolName.js"
