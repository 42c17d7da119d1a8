import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Tool, ToolCall } from "@svir/core"
import { Effect } from "effect"
import * as fc from "fast-check"
import { McpToolbox, ToolName } from "../src/index.js"
import { assertNoChildLeft, captureLogs, connectInMemory, serveHttp } from "./servers.js"

const badTools = fileURLToPath(new URL("./fixtures/bad-tools-stdio.mjs", import.meta.url))
const token = "tok-5e2b9a41c7"

const callText = (toolbox: McpToolbox.McpToolbox, name: string, args = "{}") =>
  Effect.map(toolbox.call(ToolCall.make(`call-${name}`, name, args)), (result) => ({
    isError: result.isError,
    content: result.content,
  }))

describe("McpToolbox listing a server whose list holds tools the MCP SDK refuses", () => {
  afterEach(assertNoChildLeft)

  it.live("offers the other tools, and reports and logs each tool left out", () =>
    Effect.gen(function* () {
      const logs = captureLogs()
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [badTools],
        env: { TOKEN: token },
      }).pipe(Effect.provide(logs.layer))
      const names = (yield* toolbox.tools).map((tool) => tool.name)
      // "research" requires tasks, and is called as one (D45). Offered by name (D53).
      assert.deepStrictEqual(names, [ToolName.offered("café"), "echo", "research", "weather"])
      const skipped = yield* toolbox.skipped
      assert.deepStrictEqual(
        skipped.map(({ name, index }) => [name, index]),
        [
          ["merge_merge_request", 1],
          ["search_either", 2],
          [undefined, 3],
          [undefined, 4],
          ["lookup_title", 5],
          ["get_workflow", 6],
          ["mall_order_list", 8],
          ["echo", 9],
          ["leaky", 11],
        ],
      )
      const reasons = skipped.map((tool) => tool.reason)
      assert.match(reasons[0]!, /^the MCP SDK refuses it: inputSchema\.type: .*"object"/)
      assert.match(reasons[1]!, /^the MCP SDK refuses it: inputSchema\.type: /)
      assert.strictEqual(reasons[2], "it is not a JSON object")
      assert.strictEqual(reasons[3], "its name is not a string")
      assert.match(reasons[4]!, /^the MCP SDK refuses it: inputSchema\.type: /)
      assert.match(reasons[5]!, /^its output schema cannot be compiled: Invalid regular expression/)
      assert.match(reasons[6]!, /^its output schema cannot be compiled: type must be JSONType/)
      assert.strictEqual(reasons[7], "an earlier tool of the server has the same name")
      assert.match(
        reasons[8]!,
        /^its output schema cannot be compiled: Invalid regular expression: \/\^\[redacted\]\(\?P<n>a\)\$\//,
      )

      // One warning per tool listed wrongly, naming the server, the tool and the reason.
      assert.strictEqual(logs.logged.length, 9)
      for (const line of logs.logged) {
        assert.include(line, "level=WARN")
        assert.include(line, 'the MCP server \\"bad-tools\\" lists the tool')
        assert.notInclude(line, token)
      }
      assert.include(
        logs.logged[0],
        'the tool \\"merge_merge_request\\" and the bridge leaves it out: the MCP SDK refuses it: inputSchema.type',
      )
      assert.include(
        logs.logged[2],
        "the tool number 4, which has no name, and the bridge leaves it out: it is not a JSON object",
      )
      assert.include(logs.logged[8], "Invalid regular expression: /^[redacted](?P<n>a)$/")

      assert.deepStrictEqual(yield* callText(toolbox, "echo", '{"q": "hi"}'), {
        isError: false,
        content: "echo: hi",
      })
      // The structured content of a tool of the first page is still checked against its output
      // schema, after reading the second page (D42).
      const weather = yield* callText(toolbox, "weather")
      assert.isTrue(weather.isError)
      assert.match(
        weather.content,
        /^tool weather answered structured content that does not match its output schema/,
      )
    }),
  )

  it.live("keeps leaving the refused tools out on every listing of a real SDK server", () =>
    Effect.gen(function* () {
      let listings = 0
      // The list of zereight/gitlab-mcp in issue #286, whose empty input schemas made every
      // client fail, with a tool added once the list is read again.
      const { url } = yield* serveHttp(() => {
        const server = new Server(
          { name: "gitlab", version: "1.0.0" },
          { capabilities: { tools: {} } },
        )
        server.setRequestHandler(ListToolsRequestSchema, () => {
          listings++
          const tools = [
            { name: "list_projects", inputSchema: { type: "object" as const } },
            { name: "merge_merge_request", inputSchema: {} },
            { name: "execute_graphql", inputSchema: {} },
            { name: "get_file", inputSchema: { type: "object" as const } },
          ]
          const added = { name: "create_issue", inputSchema: { type: "object" as const } }
          return { tools: listings === 1 ? tools : [...tools, added] }
        })
        server.setRequestHandler(CallToolRequestSchema, (request) => ({
          content: [{ type: "text" as const, text: `called ${request.params.name}` }],
        }))
        return server
      })
      const logs = captureLogs()
      const toolbox = yield* McpToolbox.http({ url }, { prefix: "gitlab" }).pipe(
        Effect.provide(logs.layer),
      )
      const names = Effect.map(toolbox.tools, (tools) => tools.map((tool) => tool.name))
      assert.deepStrictEqual(yield* names, ["gitlab__get_file", "gitlab__list_projects"])
      const skippedNames = Effect.map(toolbox.skipped, (tools) => tools.map((tool) => tool.name))
      assert.deepStrictEqual(yield* skippedNames, ["merge_merge_request", "execute_graphql"])
      yield* toolbox.refresh.pipe(Effect.provide(logs.layer))
      assert.deepStrictEqual(yield* names, [
        "gitlab__create_issue",
        "gitlab__get_file",
        "gitlab__list_projects",
      ])
      assert.deepStrictEqual(yield* skippedNames, ["merge_merge_request", "execute_graphql"])
      assert.strictEqual(logs.logged.length, 4)
      const result = yield* callText(toolbox, "gitlab__create_issue")
      assert.deepStrictEqual(result, { isError: false, content: "called create_issue" })
    }),
  )

  it.live("offers names in other scripts readably, apart, and maps each back to its tool", () =>
    Effect.gen(function* () {
      // Two names whose 32-bit hashes collide, and names that read the same in ASCII.
      const serverNames = [
        "поиск",
        "Αναζήτηση",
        "名前",
        "検索_files",
        "丢涓磰縩",
        "裢椳皰偉",
        "café",
        "cafe",
        "read.file",
        "read_file",
      ]
      const { url } = yield* serveHttp(() => {
        const server = new Server(
          { name: "names", version: "1.0.0" },
          { capabilities: { tools: {} } },
        )
        server.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: serverNames.map((name) => ({ name, inputSchema: { type: "object" as const } })),
        }))
        server.setRequestHandler(CallToolRequestSchema, (request) => ({
          content: [{ type: "text" as const, text: request.params.name }],
        }))
        return server
      })
      const toolbox = yield* McpToolbox.http({ url }, { prefix: "docs" })
      const names = (yield* toolbox.tools).map((tool) => tool.name)
      for (const name of names) assert.isUndefined(Tool.nameProblem(name))
      assert.strictEqual(new Set(names).size, serverNames.length)
      const back = yield* toolbox.serverNames
      const offeredAs = new Map(names.map((name) => [back.get(name), name]))
      assert.match(offeredAs.get("поиск")!, /^docs__poisk_[0-9a-f]{8}$/)
      assert.match(offeredAs.get("Αναζήτηση")!, /^docs__Anazitisi_[0-9a-f]{8}$/)
      assert.match(offeredAs.get("名前")!, /^docs__tool_[0-9a-f]{8}$/)
      assert.match(offeredAs.get("検索_files")!, /^docs__files_[0-9a-f]{8}$/)
      assert.match(offeredAs.get("café")!, /^docs__cafe_[0-9a-f]{8}$/)
      assert.strictEqual(offeredAs.get("cafe"), "docs__cafe")
      for (const name of names) {
        const result = yield* callText(toolbox, name)
        assert.deepStrictEqual(result, { isError: false, content: back.get(name) })
      }
      // Every tool is offered, in code unit order of the offered names (D53).
      assert.deepStrictEqual([...offeredAs.keys()].sort(), [...serverNames].sort())
      assert.deepStrictEqual(names, [...names].sort())
      const again = yield* toolbox.refresh
      assert.deepStrictEqual(
        again.map((tool) => tool.name),
        names,
      )
    }),
  )

  it("maps every offered name back to the tool the server lists under it, for any list", () =>
    fc.assert(
      fc.asyncProperty(listedNames, (listed) =>
        Effect.runPromise(Effect.scoped(roundTrip(listed))),
      ),
      { numRuns: 40 },
    ))
})

/** Names as a server lists them: any text, some twice, some not text at all. */
const listedNames = fc
  .uniqueArray(
    fc.oneof(
      fc.string({ maxLength: 80, unit: "grapheme" }),
      fc.string({ maxLength: 80, unit: "binary" }),
      fc.stringMatching(/^[a-z_.]{1,12}$/),
    ),
    { maxLength: 12 },
  )
  .chain((names) =>
    fc.shuffledSubarray<unknown>([...names, ...names.slice(0, 3), 7, null], {
      minLength: names.length,
    }),
  )

/**
 * Lists `listed` from a real SDK server, connected in memory, whose tools answer with their own
 * name, and checks that each offered name reaches its tool, and that only what cannot be offered
 * is skipped.
 */
const roundTrip = (listed: ReadonlyArray<unknown>) =>
  Effect.gen(function* () {
    const server = new Server({ name: "any", version: "1.0.0" }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: listed.map((name) => ({ name, inputSchema: { type: "object" } })) as [],
    }))
    server.setRequestHandler(CallToolRequestSchema, (request) => ({
      content: [{ type: "text" as const, text: request.params.name }],
    }))
    const client = yield* connectInMemory(server)
    const logs = captureLogs()
    const toolbox = yield* McpToolbox.fromClient(client).pipe(Effect.provide(logs.layer))
    const names = (yield* toolbox.tools).map((tool) => tool.name)
    const back = yield* toolbox.serverNames
    const firsts = listed.filter(
      (name, i): name is string => typeof name === "string" && listed.indexOf(name) === i,
    )
    assert.strictEqual(new Set(names).size, names.length)
    for (const name of names) assert.isUndefined(Tool.nameProblem(name))
    // Each name listed first is offered, in code unit order of the offered names (D53).
    assert.deepStrictEqual(names.map((name) => back.get(name)).sort(), [...firsts].sort())
    assert.deepStrictEqual(names, [...names].sort())
    for (const name of names) {
      const result = yield* toolbox.call(ToolCall.make("c", name))
      assert.deepStrictEqual([result.isError, result.content], [false, back.get(name)])
    }
    const skipped = yield* toolbox.skipped
    assert.deepStrictEqual(
      skipped.map((tool) => tool.index),
      listed.flatMap((name, i) =>
        typeof name !== "string" || listed.indexOf(name) !== i ? [i] : [],
      ),
    )
    assert.strictEqual(logs.logged.length, skipped.length)
  })
