/**
 * An MCP server's resources: listed, their templates listed, and read, beside its tools.
 *
 * @since 0.2.0
 * @module
 */
import type {
  Client,
  ReadResourceResult,
  Resource,
  ResourceTemplateType as ResourceTemplate,
} from "@modelcontextprotocol/client"
import { Json, Redaction, SvirError, Tool, Toolbox, ToolCall, ToolResult } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Content from "./Content.js"
import { cursorParams, listFeature, pageBounds } from "./internal/pages.js"
import { sdkRequest } from "./internal/request.js"
import * as ToolName from "./ToolName.js"

/**
 * A resource's text, as the server sent it.
 *
 * @since 0.2.0
 * @category models
 */
export interface TextContents {
  readonly _tag: "Text"
  readonly uri: string
  readonly mimeType: string | undefined
  readonly text: string
}

/**
 * A resource's bytes, decoded from the server's base64.
 *
 * @since 0.2.0
 * @category models
 */
export interface BlobContents {
  readonly _tag: "Blob"
  readonly uri: string
  readonly mimeType: string | undefined
  readonly bytes: Uint8Array
}

/**
 * One part of what `resources/read` gave: text or bytes.
 *
 * @since 0.2.0
 * @category models
 */
export type Contents = TextContents | BlobContents

/**
 * Bounds of the requests. Every bound has a default.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** How long one request (one page of a listing, one read) may take. Default 30 000. */
  readonly timeoutMillis?: number | undefined
  /** The most pages of one listing followed. Default 100. */
  readonly maxPages?: number | undefined
  /** The most resources or templates of one listing. Default 1 000. */
  readonly maxItems?: number | undefined
}

/**
 * Options of one read.
 *
 * @since 0.2.0
 * @category models
 */
export interface ReadOptions {
  /** The largest blob decoded, in bytes; a larger one fails the read. Default 1 048 576. */
  readonly maxBlobBytes?: number | undefined
}

/**
 * A server's resources. `list` follows `nextCursor` (resources a template describes are not
 * listed, as the server chooses); `templates` lists the URI templates; `read` reads one URI.
 * A server without the `resources` capability lists none, and reading from it is an Unsupported
 * error. Every failure is a typed error, redacted like the toolbox's, the server's own words in
 * `serverMessage`.
 *
 * @since 0.2.0
 * @category models
 */
export interface McpResources {
  /** An Effect that lists the server's resources, following `nextCursor`. */
  readonly list: Effect.Effect<ReadonlyArray<Resource>, SvirError.SvirError>
  /** An Effect that lists the server's URI templates, following `nextCursor`. */
  readonly templates: Effect.Effect<ReadonlyArray<ResourceTemplate>, SvirError.SvirError>
  readonly read: (
    uri: string,
    options?: ReadOptions,
  ) => Effect.Effect<ReadonlyArray<Contents>, SvirError.SvirError>
}

const defaultMaxBlobBytes = 1024 * 1024

/**
 * The resources of the server `getClient` reaches, asked for anew at every request, so that they
 * follow a connection that is replaced. `redaction` is applied to every error. An `McpToolbox`
 * has one as `resources`; this constructor is for a Client of your own.
 *
 * @example
 * ```ts
 * import type { Client } from "@modelcontextprotocol/client"
 * import { Effect } from "effect"
 * import { McpResources } from "@svir/mcp-bridge"
 *
 * declare const client: Client
 * const resources = McpResources.make(() => client)
 * const notes = Effect.flatMap(resources.list, (listed) =>
 *   Effect.forEach(listed, (resource) => resources.read(resource.uri)),
 * )
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  getClient: () => Client,
  redaction: Redaction.Redaction = Redaction.none,
  options: Options = {},
): McpResources => {
  const bounds = pageBounds(options)
  return {
    list: listFeature(
      getClient,
      "resources",
      "resources",
      async (client, cursor, request) => {
        const page = await client.request(
          { method: "resources/list", ...cursorParams(cursor) },
          request,
        )
        return { items: page.resources, nextCursor: page.nextCursor }
      },
      bounds,
      redaction,
    ),
    templates: listFeature(
      getClient,
      "resources",
      "resource templates",
      async (client, cursor, request) => {
        const page = await client.request(
          { method: "resources/templates/list", ...cursorParams(cursor) },
          request,
        )
        return { items: page.resourceTemplates, nextCursor: page.nextCursor }
      },
      bounds,
      redaction,
    ),
    read: (uri, readOptions = {}) =>
      Effect.suspend(() => {
        const doing = `reading the resource ${uri}`
        const client = getClient()
        if (client.getServerCapabilities()?.resources === undefined) {
          return Effect.fail(
            redaction.error(
              SvirError.make("Unsupported", `${doing}: the server offers no resources`),
            ),
          )
        }
        return sdkRequest(doing, redaction, (signal) =>
          client.readResource({ uri }, { signal, timeout: bounds.timeoutMillis }),
        ).pipe(
          Effect.flatMap((answer) =>
            decodeContents(answer, readOptions.maxBlobBytes ?? defaultMaxBlobBytes, doing),
          ),
          Effect.mapError(redaction.error),
        )
      }),
  }
}

/** The contents with each blob decoded; a blob larger than `maxBlobBytes` fails the read. */
const decodeContents = (
  answer: ReadResourceResult,
  maxBlobBytes: number,
  doing: string,
): Effect.Effect<ReadonlyArray<Contents>, SvirError.SvirError> => {
  const contents: Array<Contents> = []
  for (const part of answer.contents) {
    if ("text" in part) {
      contents.push({ _tag: "Text", uri: part.uri, mimeType: part.mimeType, text: part.text })
      continue
    }
    // Measured before decoding: a blob too large is never held twice.
    const size = base64Size(part.blob)
    if (size > maxBlobBytes) {
      return Effect.fail(
        SvirError.make(
          "ResponseLimit",
          `${doing}: its blob of ${size} bytes is larger than the limit of ${maxBlobBytes}`,
          { limit: "maxBlobBytes", max: maxBlobBytes },
        ),
      )
    }
    const bytes = new Uint8Array(Buffer.from(part.blob, "base64"))
    contents.push({ _tag: "Blob", uri: part.uri, mimeType: part.mimeType, bytes })
  }
  return Effect.succeed(contents)
}

/** The size of the bytes a base64 text holds (the SDK has checked it is base64). */
const base64Size = (base64: string): number => {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0
  return Math.floor((base64.length * 3) / 4) - padding
}

/**
 * Options of {@link readTool}.
 *
 * @since 0.2.0
 * @category models
 */
export interface ReadToolOptions extends ReadOptions {
  /** The tool is offered as `<prefix>__read_resource`, as the toolbox's tools are. */
  readonly prefix?: string | undefined
  /** What a blob becomes in the result. Default `"placeholder"`. */
  readonly media?: Content.Media | undefined
  /** The most characters of a result kept. Default 100 000. */
  readonly maxResultChars?: number | undefined
}

const readToolName = "read_resource"

const readToolSchema: Tool.JsonSchema = {
  type: "object",
  properties: {
    uri: { type: "string", description: "The URI of the resource, as a resource link gives it." },
  },
  required: ["uri"],
  additionalProperties: false,
}

/**
 * A toolbox of one tool, `read_resource` (with the prefix, `<prefix>__read_resource`), that
 * reads a resource by its `uri` for the model: texts are given with their URI, a blob as `media`
 * says, the result cut at `maxResultChars`. A read that fails gives a failed result that says
 * why, with the server's words. Combine it with the server's toolbox; a prefix that is not valid
 * is a Config error.
 *
 * @example
 * ```ts
 * import { Toolbox } from "@svir/core"
 * import { Effect } from "effect"
 * import { McpResources, McpToolbox } from "@svir/mcp-bridge"
 *
 * const program = Effect.gen(function* () {
 *   const docs = yield* McpToolbox.stdio({ command: "mcp-server-everything" }, { prefix: "docs" })
 *   const reader = yield* McpResources.readTool(docs.resources, { prefix: "docs" })
 *   return yield* Toolbox.combine([docs, reader])
 * })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const readTool = (
  resources: McpResources,
  options: ReadToolOptions = {},
): Effect.Effect<Toolbox.Toolbox, SvirError.SvirError> =>
  Effect.gen(function* () {
    const prefix =
      options.prefix === undefined ? undefined : yield* ToolName.validatePrefix(options.prefix)
    const name = ToolName.offered(readToolName, prefix)
    const tool = Tool.make(
      name,
      "Reads a resource of the MCP server by its URI, such as one a tool's result linked to.",
      readToolSchema,
    )
    return Toolbox.make({
      tools: [tool],
      call: (call) => {
        if (call.name !== name)
          return Effect.succeed(ToolResult.unknownTool(call.id, call.name, [name]))
        const uri = uriArgument(call)
        if (Result.isFailure(uri)) {
          return Effect.succeed(ToolResult.error(call.id, uri.failure, "invalid_arguments"))
        }
        return resources.read(uri.success, options).pipe(
          Effect.match({
            onFailure: (error) =>
              ToolResult.error(call.id, describeFailure(error), "server_refused"),
            onSuccess: (contents) =>
              Content.toToolResult(call.id, toCallResult(contents), {
                media: options.media,
                maxChars: options.maxResultChars,
              }),
          }),
        )
      },
    })
  })

/** The `uri` the model gave, or why the arguments do not give one. */
const uriArgument = (call: ToolCall.ToolCall): Result.Result<string, string> => {
  const args = ToolCall.readJson(call.arguments)
  if (Result.isFailure(args)) return Result.fail(args.failure.message)
  const uri = Json.isObject(args.success) ? args.success.uri : undefined
  return typeof uri === "string"
    ? Result.succeed(uri)
    : Result.fail(`the arguments of ${call.name} must be a JSON object with a string "uri"`)
}

/** The error's own words and the server's, for the model (the error is redacted already). */
const describeFailure = (error: SvirError.SvirError): string =>
  error.serverMessage === undefined ? error.message : `${error.message}: ${error.serverMessage}`

/** The contents as embedded resources of a tool result, which `Content` already describes. */
const toCallResult = (contents: ReadonlyArray<Contents>): Content.CallResult => ({
  content: contents.map((part) => ({
    type: "resource",
    resource:
      part._tag === "Text"
        ? { uri: part.uri, mimeType: part.mimeType, text: part.text }
        : {
            uri: part.uri,
            mimeType: part.mimeType,
            blob: Buffer.from(part.bytes).toString("base64"),
          },
  })),
})
