import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Completion, type Request, ToolCall } from "@svir/core"
import { Tools } from "@svir/registry"
import { Effect } from "effect"
import * as convert from "../src/registry/convert.js"
import * as executing from "../src/registry/executing.js"
import * as fetchUrl from "../src/registry/fetchUrl.js"
import * as fileTools from "../src/registry/fileTools.js"
import * as handlerReturns from "../src/registry/handlerReturns.js"
import * as lookupAndNow from "../src/registry/lookupAndNow.js"
import * as minute from "../src/registry/minute.js"
import * as notes from "../src/registry/notes.js"
import * as perCallContext from "../src/registry/perCallContext.js"
import * as registering from "../src/registry/registering.js"
import * as search from "../src/registry/search.js"

const snippetsDir = path.join(import.meta.dirname, "..", "src", "registry")
const readme = fs.readFileSync(
  path.join(import.meta.dirname, "..", "..", "packages", "registry", "README.md"),
  "utf8",
)

const answers = <R>(tools: Tools.Tools<R>, calls: ReadonlyArray<ToolCall.ToolCall>) =>
  Effect.map(Tools.callAll(tools, calls), (results) =>
    results.map((result) => [result.isError, result.content] as const),
  )

describe("README snippets", () => {
  it("every snippet file appears in the README as written", () => {
    for (const file of fs.readdirSync(snippetsDir)) {
      const code = fs.readFileSync(path.join(snippetsDir, file), "utf8").trim()
      assert.isTrue(readme.includes(code), `README lacks examples/src/registry/${file}`)
    }
  })

  it.effect("a minute with it", () =>
    Effect.gen(function* () {
      const results = yield* minute.results
      assert.deepStrictEqual(results, [
        { callId: "call_1", content: "10 results for effect", isError: false },
        {
          callId: "call_2",
          content: "invalid arguments: query: Expected string, got 42",
          isError: true,
          failure: "invalid_arguments",
        },
        {
          callId: "call_3",
          content: "no tool named serach; the tools are: search",
          isError: true,
          failure: "unknown_tool",
        },
      ])
      const [tool] = yield* Tools.definitions(minute.tools)
      const shown = readme.slice(readme.indexOf("What the model sees for `search`:"))
      const start = shown.indexOf("```json") + "```json".length
      const json = shown.slice(start, shown.indexOf("```", start))
      assert.deepStrictEqual(tool!.inputSchema, JSON.parse(json))
    }),
  )

  it.effect("svir: lookup with a hand-written schema, now without one", () =>
    Effect.gen(function* () {
      const tools = lookupAndNow.tools()
      const offered = yield* Tools.definitions(tools)
      assert.deepStrictEqual(
        offered.map((tool) => tool.name),
        ["lookup", "now"],
      )
      assert.deepStrictEqual(offered[1]!.inputSchema, { type: "object", properties: {} })
      const results = yield* answers(tools, [
        ToolCall.make("1", "lookup", '{"id": 42}'),
        ToolCall.make("2", "now", ""),
        ToolCall.make("3", "lookup", '{"id": "42"}'),
      ])
      assert.deepStrictEqual(results, [
        [false, "order 42 is shipped"],
        [false, "2026-01-01T00:00:00Z"],
        [true, 'invalid arguments: id: Expected number, got "42"'],
      ])
    }),
  )

  it.effect("svir: convert's schema comes from its type, descriptions included", () =>
    Effect.gen(function* () {
      const tools = convert.tools()
      const [tool] = yield* Tools.definitions(tools)
      assert.deepStrictEqual(tool!.inputSchema, {
        type: "object",
        properties: {
          amount: { type: "number", description: "The amount to convert." },
          from: {
            type: "string",
            description: "The currency to convert from, as a three-letter code.",
          },
          to: {
            type: "string",
            description: "The currency to convert to, as a three-letter code.",
          },
        },
        required: ["amount", "from", "to"],
        additionalProperties: false,
      })
      const results = yield* answers(tools, [
        ToolCall.make("1", "convert", '{"amount": 5, "from": "EUR", "to": "USD"}'),
      ])
      assert.deepStrictEqual(results, [[false, "5 EUR is about 5 USD"]])
    }),
  )

  it.effect("svir: what a handler returns", () =>
    Effect.gen(function* () {
      const results = yield* answers(handlerReturns.tools, [
        ToolCall.make("1", "greet", '{"city": "Lisbon"}'),
        ToolCall.make("2", "weather", '{"city": "Lisbon"}'),
        ToolCall.make("3", "station", '{"city": "Atlantis"}'),
        ToolCall.make("4", "station", '{"city": "Porto"}'),
      ])
      assert.deepStrictEqual(results, [
        [false, "hello, Lisbon"],
        [false, '{"city":"Lisbon","celsius":21}'],
        [true, "no weather station in Atlantis"],
        [false, "station Porto-1"],
      ])
    }),
  )

  it.effect("svir: notes, as a toolset", () =>
    Effect.gen(function* () {
      const results = yield* answers(notes.notes(), [
        ToolCall.make("1", "note", '{"text": "milk"}'),
        ToolCall.make("2", "note", "{}"),
        ToolCall.make("3", "notes", ""),
      ])
      assert.deepStrictEqual(results, [
        [false, "kept"],
        [true, "invalid arguments: text: Missing key"],
        [false, "milk"],
      ])
    }),
  )

  it.effect("polaris: search, with limit 10 unless given", () =>
    Effect.gen(function* () {
      const [tool] = yield* Tools.definitions(search.tools)
      assert.deepStrictEqual(tool!.inputSchema, {
        type: "object",
        properties: {
          query: { type: "string", description: "The search query string." },
          limit: {
            type: "integer",
            description: "Maximum number of results to return.",
            default: 10,
          },
        },
        required: ["query"],
        additionalProperties: false,
      })
      const results = yield* answers(search.tools, [
        ToolCall.make("1", "search", '{"query": "rust concurrency"}'),
        ToolCall.make("2", "search", '{"query": "rust", "limit": 3}'),
      ])
      assert.deepStrictEqual(results, [
        [false, "Found results for: rust concurrency (limit 10)"],
        [false, "Found results for: rust (limit 3)"],
      ])
    }),
  )

  it.effect("polaris: fetch_url, whose defaulted fields are not required", () =>
    Effect.gen(function* () {
      const [tool] = yield* Tools.definitions(fetchUrl.tools)
      assert.deepStrictEqual(tool!.inputSchema.required, ["url"])
      assert.deepStrictEqual(tool!.inputSchema.properties, {
        url: { type: "string", description: "The URL to fetch." },
        timeout_secs: { type: "integer", description: "Request timeout in seconds.", default: 30 },
        follow_redirects: {
          type: "boolean",
          description: "Whether to follow redirects.",
          default: true,
        },
      })
      const results = yield* answers(fetchUrl.tools, [
        ToolCall.make("1", "fetch_url", '{"url": "http://127.0.0.1/"}'),
      ])
      assert.deepStrictEqual(results, [[false, "Fetched http://127.0.0.1/"]])
    }),
  )

  it.effect("polaris: registering tools, and a clash as a typed error", () =>
    Effect.gen(function* () {
      const registry = yield* registering.registry
      assert.deepStrictEqual(Tools.names(registry), ["ping", "search", "fetch_url"])
      assert.strictEqual(
        yield* registering.clash,
        "two toolboxes offer a tool named search: rename one, or give one of them a prefix",
      )
    }),
  )

  it.effect("polaris: a toolset shares its state (FileTools)", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svir-registry-"))
      fs.writeFileSync(path.join(dir, "a.txt"), "alpha")
      fs.writeFileSync(path.join(dir, "b.txt"), "beta")
      const tools = fileTools.fileTools(dir)
      const results = yield* answers(tools, [
        ToolCall.make("1", "list_files", '{"path": "."}'),
        ToolCall.make("2", "read_file", '{"path": "b.txt"}'),
        ToolCall.make("3", "read_file", '{"path": "missing.txt"}'),
      ])
      fs.rmSync(dir, { recursive: true })
      assert.deepStrictEqual(results.slice(0, 2), [
        [false, "a.txt\nb.txt"],
        [false, "beta"],
      ])
      assert.isTrue(results[2]![0])
      assert.match(results[2]![1], /^cannot read missing\.txt: /)
    }),
  )

  it.effect("polaris: per-call context and permissions", () =>
    Effect.gen(function* () {
      const results = yield* perCallContext.example
      assert.deepStrictEqual(
        results.map((result) => [result.isError, result.content]),
        [
          [false, "ada: /srv/sandbox/notes/a.txt"],
          [true, "../etc/passwd is outside the workspace"],
          [true, 'permission denied: not confirmed: delete {"path": "a.txt"}?'],
          [true, "no tool named admin; the tools are: where, delete_file"],
        ],
      )
      const confirmed = yield* perCallContext.answer(
        [ToolCall.make("5", "delete_file", '{"path": "a.txt"}')],
        true,
      )
      assert.strictEqual(confirmed[0]!.content, "deleted a.txt")
      const offered = yield* perCallContext.offered
      assert.deepStrictEqual(
        offered.map((tool) => tool.name),
        ["where", "delete_file"],
      )
    }),
  )

  it.effect("polaris: executing calls in a loop", () =>
    Effect.gen(function* () {
      const seen: Array<Request.Request> = []
      const complete: executing.Complete = (request) => {
        seen.push(request)
        return Effect.succeed(
          seen.length === 1
            ? Completion.make({
                finish: "tool_calls",
                calls: [
                  ToolCall.make("c1", "search", '{"query": "Rust concurrency"}'),
                  ToolCall.make("c2", "nope"),
                ],
              })
            : Completion.make({ text: "Here is what I found.", finish: "stop" }),
        )
      }
      const done = yield* executing.run(complete, search.tools, "Find documents about Rust.")
      assert.strictEqual(done.text, "Here is what I found.")
      assert.deepStrictEqual(
        seen[0]!.tools.map((tool) => tool.name),
        ["search"],
      )
      const [, assistant, first, second] = seen[1]!.messages
      assert.strictEqual(assistant!._tag, "Assistant")
      assert.deepStrictEqual(first, {
        _tag: "Tool",
        result: {
          callId: "c1",
          content: "Found results for: Rust concurrency (limit 10)",
          isError: false,
        },
      })
      assert.deepStrictEqual(second, {
        _tag: "Tool",
        result: {
          callId: "c2",
          content: "no tool named nope; the tools are: search",
          isError: true,
          failure: "unknown_tool",
        },
      })
    }),
  )
})
