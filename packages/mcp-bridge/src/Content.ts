/**
 * An MCP `tools/call` result as one svir result: content blocks become one string.
 *
 * @since 0.2.0
 * @module
 */
import type { Message } from "@svir/core"
import { Json, ToolResult } from "@svir/core"
import { cut } from "./internal/cut.js"

/**
 * A `tools/call` result as the server sent it, read field by field: a block of a type this
 * package does not know still gives a placeholder, never a failure.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallResult {
  readonly content?: ReadonlyArray<Block> | undefined
  readonly structuredContent?: unknown
  readonly isError?: boolean | undefined
}

/**
 * One content block: its `type` and the fields of that type.
 *
 * @since 0.2.0
 * @category models
 */
export interface Block {
  readonly type: string
  readonly [field: string]: unknown
}

/**
 * What an image or audio block (and an embedded binary resource) becomes: a `placeholder` such
 * as `[image image/png, 1138 bytes]`, a `dataUrl` in the text, or an `attachment` of the result
 * (for wires that carry images and files) with the placeholder in the text.
 *
 * @since 0.2.0
 * @category models
 */
export type Media = "placeholder" | "dataUrl" | "attachment"

/**
 * Options of {@link toToolResult}.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** What binary blocks become. Default `"placeholder"`. */
  readonly media?: Media | undefined
  /** The most characters of content kept; the rest is cut with a note. Default 100 000. */
  readonly maxChars?: number | undefined
}

/**
 * The most characters of a result's content kept unless told otherwise.
 *
 * @since 0.2.0
 * @category models
 */
export const defaultMaxChars = 100_000

/**
 * Turns a `tools/call` result into a svir result. Text blocks are joined with a line break; an
 * image or audio block becomes what `media` says; a resource link gives its name and URI; an
 * embedded resource gives its URI and text; `structuredContent` is written as JSON when no block
 * gave text (structured content nested deeper than `Json.maxDepth` gives a failed result).
 * `isError: true` gives a failed result with the server's text (its `failure` is
 * `invalid_arguments` when the text is the SDKs' refusal of the arguments, else
 * `handler_failed`). Content longer than
 * `maxChars` is cut, and the cut says how much was left out.
 *
 * @example
 * ```ts
 * import { Content } from "@svir/mcp-bridge"
 *
 * Content.toToolResult("call_1", { content: [{ type: "text", text: "no such file" }], isError: true })
 * // { callId: "call_1", content: "no such file", isError: true, failure: "handler_failed" }
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const toToolResult = (
  callId: string,
  result: CallResult,
  options: Options = {},
): ToolResult.ToolResult => {
  const media = options.media ?? "placeholder"
  const attachments: Array<Message.ImagePart | Message.FilePart> = []
  const pieces = (result.content ?? []).map((block) => describeBlock(block, media, attachments))
  let text = pieces.filter((piece) => piece !== "").join("\n")
  if (text === "" && result.structuredContent !== undefined) {
    // Written out recursively below: a value nested this deep would overflow the stack (D4).
    if (Json.valueDepth(result.structuredContent, Json.maxDepth) > Json.maxDepth) {
      return ToolResult.error(
        callId,
        `the tool's structured content nests deeper than ${Json.maxDepth} levels`,
      )
    }
    text = JSON.stringify(result.structuredContent) ?? ""
  }
  text = cut(text, options.maxChars ?? defaultMaxChars)
  if (result.isError === true) {
    if (text === "") return ToolResult.error(callId, "the tool failed and gave no message")
    return ToolResult.error(
      callId,
      text,
      refusedArguments.test(text) ? "invalid_arguments" : undefined,
    )
  }
  const answer = ToolResult.make(callId, text)
  return attachments.length === 0 ? answer : { ...answer, attachments }
}

/**
 * How the SDKs' servers word a refusal of a call's arguments in an `isError` result: the
 * TypeScript SDK's `McpServer` turns its -32602 into "MCP error -32602: Input validation error:
 * ...", the Python SDK's server writes "Input validation error: ..." (D41).
 */
const refusedArguments = /^(?:MCP error -32602: )?Input validation error\b/

const describeBlock = (
  block: Block,
  media: Media,
  attachments: Array<Message.ImagePart | Message.FilePart>,
): string => {
  const fields: { readonly [key: string]: unknown } = block
  switch (block.type) {
    case "text":
      return stringField(fields, "text")
    case "image":
    case "audio":
      return describeBinary(
        block.type,
        stringField(fields, "data"),
        stringField(fields, "mimeType"),
        media,
        attachments,
      )
    case "resource_link": {
      const name = stringField(fields, "name")
      const uri = stringField(fields, "uri")
      return name === "" ? `[resource ${uri}]` : `[resource ${uri}] ${name}`
    }
    case "resource": {
      const resource = (fields.resource ?? {}) as { readonly [key: string]: unknown }
      const uri = stringField(resource, "uri")
      if (typeof resource.text === "string") return `[resource ${uri}]\n${resource.text}`
      return describeBinary(
        `resource ${uri}`,
        stringField(resource, "blob"),
        stringField(resource, "mimeType"),
        media,
        attachments,
        uri,
      )
    }
    default:
      return `[${block.type} content]`
  }
}

const describeBinary = (
  what: string,
  base64: string,
  mediaType: string,
  media: Media,
  attachments: Array<Message.ImagePart | Message.FilePart>,
  fileName = what,
): string => {
  if (media === "dataUrl") return `data:${mediaType};base64,${base64}`
  if (media === "attachment") {
    const data = decodeBase64(base64)
    attachments.push(
      what === "image"
        ? { _tag: "Image", data, mediaType }
        : { _tag: "File", name: fileName, mediaType, data },
    )
  }
  return `[${what} ${mediaType === "" ? "of unknown type" : mediaType}, ${base64Size(base64)} bytes]`
}

const stringField = (fields: { readonly [key: string]: unknown }, key: string): string => {
  const value = fields[key]
  return typeof value === "string" ? value : ""
}

const base64Size = (base64: string): number => {
  const trimmed = base64.replace(/\s/g, "")
  const padding = trimmed.endsWith("==") ? 2 : trimmed.endsWith("=") ? 1 : 0
  return Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding)
}

const decodeBase64 = (base64: string): Uint8Array => {
  try {
    return Uint8Array.from(atob(base64.replace(/\s/g, "")), (char) => char.charCodeAt(0))
  } catch {
    return new Uint8Array()
  }
}
