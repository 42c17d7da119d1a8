import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, layer } from "@effect/vitest"
import { Client, InMemoryTransport } from "@modelcontextprotocol/client"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { Json, type Tool, ToolCall } from "@svir/core"
import { ToolSchema } from "@svir/openai-codec"
import { Context, Effect, Layer } from "effect"
import * as z from "zod"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, referenceServer } from "./servers.js"

const sequentialThinking = fileURLToPath(
  new URL(
    "../../../node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js",
    import.meta.url,
  ),
)

// The filesystem server answers with real paths: /tmp may be a link.
const folder = realpathSync(mkdtempSync(join(tmpdir(), "svir-nulls-")))
const notes = join(folder, "notes.txt")
writeFileSync(notes, "one\ntwo\nthree\n")

/**
 * An SDK server whose tool nests optional fields in objects and arrays, and has one that takes
 * `null` of its own. It answers with the arguments it was given.
 */
const nestedServer = () => {
  const server = new McpServer({ name: "nested", version: "1.0.0" })
  server.registerTool(
    "plan",
    {
      description: "Plans steps.",
      inputSchema: {
        steps: z.array(z.object({ title: z.string(), minutes: z.number().optional() })),
        owner: z.object({ name: z.string(), email: z.string().optional() }).optional(),
        note: z.string().nullable().optional(),
      },
    },
    (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] }),
  )
  return server
}

const inProcess = Effect.acquireRelease(
  Effect.promise(async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const server = nestedServer()
    await server.connect(serverSide)
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(clientSide)
    return { client, server }
  }),
  ({ client, server }) => Effect.promise(() => Promise.all([client.close(), server.close()])),
)

/** Each server started once for the file: starting one takes a while. */
class Servers extends Context.Service<
  Servers,
  {
    readonly filesystem: McpToolbox.McpToolbox
    readonly thinking: McpToolbox.McpToolbox
    readonly everything: McpToolbox.McpToolbox
    readonly nested: McpToolbox.McpToolbox
  }
>()("Servers") {}

const servers = Layer.effect(
  Servers,
  Effect.gen(function* () {
    const node = (args: ReadonlyArray<string>, env?: Record<string, string>) =>
      McpToolbox.stdio({ command: process.execPath, args, env })
    const [filesystem, thinking, everything] = yield* Effect.all(
      [
        node([referenceServer("filesystem"), folder]),
        node([sequentialThinking], { DISABLE_THOUGHT_LOGGING: "true" }),
        node([referenceServer("everything"), "stdio"]),
      ],
      { concurrency: "unbounded" },
    )
    const { client } = yield* inProcess
    const nested = yield* McpToolbox.fromClient(client)
    return { filesystem, thinking, everything, nested }
  }),
)

afterAll(() => {
  rmSync(folder, { recursive: true, force: true })
  assertNoChildLeft()
})

const call = (toolbox: McpToolbox.McpToolbox, name: string, args: unknown) =>
  toolbox.call(ToolCall.make(`call-${name}`, name, JSON.stringify(args)))

/** The arguments a model sends in strict mode: every field, `null` for each it leaves out. */
const modelArguments = (schema: unknown, given: unknown): unknown => {
  const object = nonNull(schema)
  if (!Json.isObject(object) || !Json.isObject(object.properties) || !Json.isObject(given)) {
    return given
  }
  return Object.fromEntries(
    Object.entries(object.properties).map(([name, property]) => [
      name,
      Object.hasOwn(given, name)
        ? Array.isArray(given[name])
          ? given[name].map((item) => modelArguments(nonNull(property).items, item))
          : modelArguments(property, given[name])
        : null,
    ]),
  )
}

/** The branch of a strict-form `anyOf` beside `{ "type": "null" }`. */
const nonNull = (schema: unknown): { readonly [key: string]: unknown } => {
  if (!Json.isObject(schema)) return {}
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : [schema]
  return branches.find((branch) => Json.isObject(branch) && branch.type !== "null") ?? {}
}

/** The properties the strict form made take `null` in place of being left out. */
const madeNullable = (changes: ReadonlyArray<ToolSchema.Change>) =>
  changes
    .filter((change) => change.message.includes("takes null in place of being left out"))
    .map((change) => `${change.tool}${change.path.replace(/^\/parameters/, "")}`)

layer(servers)("McpToolbox sends no null that can only mean left out, to real servers", (it) => {
  it.effect("filesystem reads a file whole with head and tail null", () =>
    Effect.gen(function* () {
      const { filesystem } = yield* Servers
      const read = yield* call(filesystem, "read_text_file", {
        path: notes,
        head: null,
        tail: null,
      })
      assert.deepStrictEqual(read, {
        callId: "call-read_text_file",
        content: "one\ntwo\nthree\n",
        isError: false,
      })
      const listed = yield* call(filesystem, "list_directory_with_sizes", {
        path: folder,
        sortBy: null,
      })
      assert.isFalse(listed.isError, listed.content)
      assert.include(listed.content, "notes.txt")
      const found = yield* call(filesystem, "search_files", {
        path: folder,
        pattern: "*.txt",
        excludePatterns: null,
      })
      assert.isFalse(found.isError, found.content)
      assert.include(found.content, notes)
    }),
  )

  it.effect("filesystem is still sent a null for a required argument, and names it", () =>
    Effect.gen(function* () {
      const { filesystem } = yield* Servers
      const read = yield* call(filesystem, "read_text_file", { path: null, head: null })
      assert.isTrue(read.isError)
      assert.include(read.content, "-32602")
      assert.include(read.content, "expected string, received null at path")
      assert.notInclude(read.content, "at head")
    }),
  )

  it.effect("sequential-thinking takes a thought with its five optional fields null", () =>
    Effect.gen(function* () {
      const { thinking } = yield* Servers
      const result = yield* call(thinking, "sequentialthinking", {
        thought: "Start with the smallest case.",
        nextThoughtNeeded: false,
        thoughtNumber: 1,
        totalThoughts: 1,
        isRevision: null,
        revisesThought: null,
        branchFromThought: null,
        branchId: null,
        needsMoreThoughts: null,
      })
      assert.isFalse(result.isError, result.content)
      assert.include(JSON.parse(result.content), { thoughtNumber: 1, totalThoughts: 1 })
    }),
  )

  it.effect("everything takes null for the optional arguments of its tools", () =>
    Effect.gen(function* () {
      const { everything } = yield* Servers
      const links = yield* call(everything, "get-resource-links", { count: null })
      assert.isFalse(links.isError, links.content)
      // The server's default, 3 links, applies to a count left out.
      assert.include(links.content, "3 resource links")
      const message = yield* call(everything, "get-annotated-message", {
        messageType: "success",
        includeImage: null,
      })
      assert.isFalse(message.isError, message.content)
      const reference = yield* call(everything, "get-resource-reference", {
        resourceType: null,
        resourceId: null,
      })
      assert.isFalse(reference.isError, reference.content)
    }),
  )

  it.effect(
    "a zod server takes nulls nested in objects and arrays, and keeps a null it allows",
    () =>
      Effect.gen(function* () {
        const { nested } = yield* Servers
        const result = yield* call(nested, "plan", {
          steps: [
            { title: "draft", minutes: null },
            { title: "send", minutes: 5 },
          ],
          owner: { name: "Ada", email: null },
          note: null,
        })
        assert.isFalse(result.isError, result.content)
        assert.deepStrictEqual(JSON.parse(result.content), {
          steps: [{ title: "draft" }, { title: "send", minutes: 5 }],
          owner: { name: "Ada" },
          note: null,
        })
      }),
  )

  it.effect("every tool called with the arguments its strict form makes a model send", () =>
    Effect.gen(function* () {
      const { filesystem, thinking, everything, nested } = yield* Servers
      // What a model fills in; every other field it sends as null.
      const calls: ReadonlyArray<readonly [McpToolbox.McpToolbox, string, object]> = [
        [filesystem, "read_text_file", { path: notes }],
        [filesystem, "read_file", { path: notes }],
        [filesystem, "list_directory_with_sizes", { path: folder }],
        [filesystem, "directory_tree", { path: folder }],
        [filesystem, "search_files", { path: folder, pattern: "*.txt" }],
        [
          thinking,
          "sequentialthinking",
          { thought: "Done.", nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 },
        ],
        [everything, "get-resource-links", {}],
        [everything, "get-annotated-message", { messageType: "debug" }],
        [everything, "get-resource-reference", {}],
        [nested, "plan", { steps: [{ title: "draft" }], owner: { name: "Ada" } }],
      ]
      const nullable: Array<string> = []
      for (const [toolbox, name, given] of calls) {
        const tool = (yield* toolbox.tools).find((offered) => offered.name === name) as Tool.Tool
        const fitted = yield* ToolSchema.fit([tool], { strict: true })
        nullable.push(...madeNullable(fitted.changes))
        const args = modelArguments(fitted.tools[0]!.inputSchema, given)
        const result = yield* call(toolbox, name, args)
        assert.isFalse(result.isError, `${name}: ${result.content}`)
      }
      assert.deepStrictEqual(nullable, [
        "read_text_file/properties/tail",
        "read_text_file/properties/head",
        "read_file/properties/tail",
        "read_file/properties/head",
        "list_directory_with_sizes/properties/sortBy",
        "directory_tree/properties/excludePatterns",
        "search_files/properties/excludePatterns",
        "sequentialthinking/properties/isRevision",
        "sequentialthinking/properties/revisesThought",
        "sequentialthinking/properties/branchFromThought",
        "sequentialthinking/properties/branchId",
        "sequentialthinking/properties/needsMoreThoughts",
        "get-resource-links/properties/count",
        "get-annotated-message/properties/includeImage",
        "get-resource-reference/properties/resourceType",
        "get-resource-reference/properties/resourceId",
        "plan/properties/steps/items/properties/minutes",
        "plan/properties/owner/properties/email",
        "plan/properties/owner",
      ])
    }),
  )
})
