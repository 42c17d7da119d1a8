import { readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js"
import { Toolbox, ToolCall } from "@svir/core"
import { Effect } from "effect"
import { McpResources, McpToolbox } from "../src/index.js"
import { assertNoChildLeft, referenceServer, serveHttp } from "./servers.js"

const everything = () =>
  McpToolbox.stdio({ command: process.execPath, args: [referenceServer("everything"), "stdio"] })

/** The files server-everything serves as static resources, one each. */
const docsDirectory = fileURLToPath(
  new URL(
    "../../../node_modules/@modelcontextprotocol/server-everything/dist/docs/",
    import.meta.url,
  ),
)

/**
 * A low-level SDK server whose `resources/list` and `resources/templates/list` answer with
 * `page(cursor)`, and whose `resources/read` fails, quoting the request's Authorization header.
 */
const pagedServer = (
  page: (cursor: string | undefined) => { names: Array<string>; nextCursor?: string },
) => {
  const server = new Server(
    { name: "paged", version: "1.0.0" },
    { capabilities: { resources: {} } },
  )
  server.setRequestHandler(ListResourcesRequestSchema, (request) => {
    const { names, nextCursor } = page(request.params?.cursor)
    return { resources: names.map((name) => ({ name, uri: `paged://${name}` })), nextCursor }
  })
  server.setRequestHandler(ListResourceTemplatesRequestSchema, (request) => {
    const { names, nextCursor } = page(request.params?.cursor)
    const resourceTemplates = names.map((name) => ({ name, uriTemplate: `paged://${name}/{id}` }))
    return { resourceTemplates, nextCursor }
  })
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => {
    throw new McpError(
      ErrorCode.InvalidParams,
      `no ${request.params.uri} for ${String(extra.requestInfo?.headers.authorization)}`,
    )
  })
  return server
}

/** Pages 0 to 3 of three resources each. */
const fourPages = (cursor: string | undefined) => {
  const page = cursor === undefined ? 0 : Number(cursor)
  const names = [0, 1, 2].map((i) => `r${page}_${i}`)
  return page < 3 ? { names, nextCursor: String(page + 1) } : { names }
}

/** An SDK Client of the test's own, connected over Streamable HTTP until the Scope closes. */
const connect = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "test", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      return client
    }),
    (client) => Effect.promise(() => client.close()),
  )

describe("McpResources, with @modelcontextprotocol/server-everything over stdio", () => {
  afterEach(assertNoChildLeft)

  it.live("lists the resources and the templates", () =>
    Effect.gen(function* () {
      const { resources } = yield* everything()
      const listed = yield* resources.list
      assert.deepStrictEqual(
        listed.map((resource) => resource.uri).sort(),
        readdirSync(docsDirectory)
          .map((file) => `demo://resource/static/document/${encodeURIComponent(file)}`)
          .sort(),
      )
      const templates = yield* resources.templates
      assert.deepStrictEqual(templates.map((template) => template.uriTemplate).sort(), [
        "demo://resource/dynamic/blob/{resourceId}",
        "demo://resource/dynamic/text/{resourceId}",
      ])
    }),
  )

  it.live("reads a text and a blob", () =>
    Effect.gen(function* () {
      const { resources } = yield* everything()
      const [text] = yield* resources.read("demo://resource/static/document/instructions.md")
      assert.deepStrictEqual(text, {
        _tag: "Text",
        uri: "demo://resource/static/document/instructions.md",
        mimeType: "text/markdown",
        text: readFileSync(`${docsDirectory}/instructions.md`, "utf8"),
      })
      const blobs = yield* resources.read("demo://resource/dynamic/blob/7")
      assert.strictEqual(blobs.length, 1)
      const [blob] = blobs
      assert.strictEqual(blob?._tag, "Blob")
      assert.strictEqual(blob?.mimeType, "text/plain")
      assert.match(
        blob?._tag === "Blob" ? new TextDecoder().decode(blob.bytes) : "",
        /^Resource 7: This is a base64 blob created at /,
      )
    }),
  )

  it.live("refuses a blob larger than maxBlobBytes, and gives the server's error apart", () =>
    Effect.gen(function* () {
      const { resources } = yield* everything()
      const tooLarge = yield* Effect.flip(
        resources.read("demo://resource/dynamic/blob/7", { maxBlobBytes: 16 }),
      )
      assert.strictEqual(tooLarge.reason._tag, "ResponseLimit")
      assert.match(tooLarge.message, /its blob of \d+ bytes is larger than the limit of 16$/)
      assert.strictEqual(
        tooLarge.reason._tag === "ResponseLimit" ? tooLarge.reason.limit : undefined,
        "maxBlobBytes",
      )
      const unknown = yield* Effect.flip(resources.read("demo://resource/dynamic/text/0"))
      assert.strictEqual(unknown.reason._tag, "Server")
      assert.strictEqual(
        unknown.message,
        "reading the resource demo://resource/dynamic/text/0 failed: the server answered with error -32603",
      )
      assert.include(unknown.serverMessage, "Unknown resource: demo://resource/dynamic/text/0")
    }),
  )

  it.live("offers read_resource as a tool beside the server's, under the same prefix", () =>
    Effect.gen(function* () {
      const toolbox = yield* McpToolbox.stdio(
        { command: process.execPath, args: [referenceServer("everything"), "stdio"] },
        { prefix: "every" },
      )
      const reader = yield* McpResources.readTool(toolbox.resources, { prefix: "every" })
      const both = yield* Toolbox.combine([toolbox, reader])
      const names = (yield* both.tools).map((tool) => tool.name)
      assert.include(names, "every__read_resource")
      assert.include(names, "every__echo")
      const [text, blob, unknown, noUri] = yield* Toolbox.callAll(both, [
        ToolCall.make("c1", "every__read_resource", '{"uri": "demo://resource/dynamic/text/3"}'),
        ToolCall.make("c2", "every__read_resource", '{"uri": "demo://resource/dynamic/blob/3"}'),
        ToolCall.make("c3", "every__read_resource", '{"uri": "demo://resource/dynamic/text/x"}'),
        ToolCall.make("c4", "every__read_resource", '{"url": "demo://x"}'),
      ])
      assert.isFalse(text?.isError)
      assert.match(
        text?.content ?? "",
        /^\[resource demo:\/\/resource\/dynamic\/text\/3\]\nResource 3: This is a plaintext resource created at /,
      )
      assert.isFalse(blob?.isError)
      assert.match(
        blob?.content ?? "",
        /^\[resource demo:\/\/resource\/dynamic\/blob\/3 text\/plain, \d+ bytes\]$/,
      )
      assert.isTrue(unknown?.isError)
      assert.include(unknown?.content, "the server answered with error -32603: ")
      assert.include(unknown?.content, "Unknown resource: demo://resource/dynamic/text/x")
      assert.strictEqual(unknown?.failure, "server_refused")
      assert.deepStrictEqual(noUri, {
        callId: "c4",
        content: 'the arguments of every__read_resource must be a JSON object with a string "uri"',
        isError: true,
        failure: "invalid_arguments",
      })
    }),
  )

  it.live("lists nothing from a server without resources, and refuses to read from it", () =>
    Effect.gen(function* () {
      const { resources } = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [referenceServer("filesystem"), tmpdir()],
      })
      assert.deepStrictEqual(yield* resources.list, [])
      assert.deepStrictEqual(yield* resources.templates, [])
      const error = yield* Effect.flip(resources.read("file:///etc/hostname"))
      assert.strictEqual(error.reason._tag, "Unsupported")
      assert.strictEqual(
        error.message,
        "reading the resource file:///etc/hostname: the server offers no resources",
      )
    }),
  )
})

describe("McpResources, with SDK servers on 127.0.0.1", () => {
  it.live("follows nextCursor through every page of resources and of templates", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() => pagedServer(fourPages))
      const { resources } = yield* McpToolbox.http({ url })
      const listed = yield* resources.list
      assert.strictEqual(listed.length, 12)
      assert.strictEqual(listed[11]?.uri, "paged://r3_2")
      const templates = yield* resources.templates
      assert.strictEqual(templates.length, 12)
      assert.strictEqual(templates[4]?.uriTemplate, "paged://r1_1/{id}")
    }),
  )

  it.live("bounds the pages and the resources, and stops at a cursor given again", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() =>
        pagedServer((cursor) =>
          cursor === "again" ? { names: ["b"], nextCursor: "again" } : fourPages(cursor),
        ),
      )
      const client = yield* connect(url)
      const pages = yield* Effect.flip(
        McpResources.make(() => client, undefined, { maxPages: 3 }).list,
      )
      assert.strictEqual(pages.reason._tag, "ResponseLimit")
      assert.strictEqual(
        pages.message,
        "listing resources stopped after 3 pages: the server has more",
      )
      const items = yield* Effect.flip(
        McpResources.make(() => client, undefined, { maxItems: 7 }).templates,
      )
      assert.strictEqual(items.reason._tag, "ResponseLimit")
      assert.strictEqual(
        items.message,
        "listing resource templates stopped at 9: more than the limit of 7",
      )
      const { url: loopingUrl } = yield* serveHttp(() =>
        pagedServer(() => ({ names: ["a"], nextCursor: "again" })),
      )
      const looping = yield* connect(loopingUrl)
      const repeated = yield* Effect.flip(McpResources.make(() => looping).list)
      assert.strictEqual(repeated.reason._tag, "Protocol")
      assert.strictEqual(
        repeated.message,
        "listing resources: the server gave a cursor again on page 2, so its pages would never end",
      )
      assert.strictEqual(repeated.serverMessage, "again")
    }),
  )

  it.live("redacts the configured headers from the server's words", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() => pagedServer(fourPages))
      const { resources } = yield* McpToolbox.http({
        url,
        headers: { Authorization: "Bearer s3cret-t0ken-42" },
      })
      const error = yield* Effect.flip(resources.read("paged://r0_0"))
      assert.strictEqual(error.reason._tag, "Server")
      assert.strictEqual(
        error.message,
        "reading the resource paged://r0_0 failed: the server answered with error -32602",
      )
      assert.include(error.serverMessage, "no paged://r0_0 for [redacted]")
      assert.notInclude(error.serverMessage, "t0ken")
    }),
  )

  it.live("asks the Client it is given at each request, so it follows a new connection", () =>
    Effect.gen(function* () {
      const first = yield* connect((yield* serveHttp(() => pagedServer(fourPages))).url)
      const second = yield* connect(
        (yield* serveHttp(() => pagedServer(() => ({ names: ["new"] })))).url,
      )
      let current = first
      const resources = McpResources.make(() => current)
      assert.strictEqual((yield* resources.list).length, 12)
      current = second
      assert.deepStrictEqual(
        (yield* resources.list).map((resource) => resource.uri),
        ["paged://new"],
      )
    }),
  )
})
