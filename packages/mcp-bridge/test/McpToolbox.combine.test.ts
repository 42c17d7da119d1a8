import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Tool, Toolbox, ToolCall, ToolResult } from "@svir/core"
import { Effect } from "effect"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, childPids, referenceServer } from "./servers.js"

const temporaryFolder = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "svir-mcp-bridge-"))),
  (folder) => Effect.sync(() => rmSync(folder, { recursive: true, force: true })),
)

const node = (server: "everything" | "filesystem" | "memory", ...args: Array<string>) => ({
  command: process.execPath,
  args: [referenceServer(server), ...args],
})

/** A plain toolbox, as a registry would give. */
const clock = Toolbox.make({
  tools: [Tool.make("now", "The current time, UTC.")],
  call: (call) => Effect.succeed(ToolResult.make(call.id, "2026-01-01T00:00:00Z")),
})

describe("several servers in one Toolbox", () => {
  afterEach(assertNoChildLeft)

  it.live("combines filesystem, memory and everything with a registry, each under its prefix", () =>
    Effect.gen(function* () {
      const before = childPids()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const folder = yield* temporaryFolder
          writeFileSync(join(folder, "notes.txt"), "buy milk\n")
          const memoryFile = join(folder, "memory.jsonl")
          const [files, memory, every] = yield* Effect.all(
            [
              McpToolbox.stdio(node("filesystem", folder), { prefix: "files" }),
              McpToolbox.stdio(
                { ...node("memory"), env: { MEMORY_FILE_PATH: memoryFile } },
                { prefix: "memory" },
              ),
              McpToolbox.stdio(node("everything", "stdio"), { prefix: "every" }),
            ],
            { concurrency: "unbounded" },
          )
          assert.strictEqual(childPids().length, before.length + 3)
          const all = yield* Toolbox.combine([files, memory, every, clock])
          const names = (yield* all.tools).map((tool) => tool.name)
          for (const name of [
            "files__read_text_file",
            "memory__create_entities",
            "every__echo",
            "now",
          ]) {
            assert.include(names, name)
          }

          const results = yield* Toolbox.callAll(
            all,
            [
              ToolCall.make(
                "c1",
                "files__read_text_file",
                JSON.stringify({ path: join(folder, "notes.txt") }),
              ),
              ToolCall.make(
                "c2",
                "files__write_file",
                JSON.stringify({ path: join(folder, "todo.txt"), content: "call mum" }),
              ),
              ToolCall.make("c3", "files__read_text_file", JSON.stringify({ path: "/etc/passwd" })),
              ToolCall.make(
                "c4",
                "memory__create_entities",
                JSON.stringify({
                  entities: [
                    { name: "Ada", entityType: "person", observations: ["writes programs"] },
                  ],
                }),
              ),
              ToolCall.make("c5", "every__echo", '{"message": "hi"}'),
              ToolCall.make("c6", "now"),
            ],
            { concurrency: 4 },
          )
          assert.deepStrictEqual(
            results.map((result) => result.callId),
            ["c1", "c2", "c3", "c4", "c5", "c6"],
          )
          const [read, write, outside, create, echo, now] = results
          assert.strictEqual(read?.content, "buy milk\n")
          assert.isFalse(write?.isError)
          assert.strictEqual(readFileSync(join(folder, "todo.txt"), "utf8"), "call mum")
          assert.isTrue(outside?.isError)
          assert.match(outside?.content ?? "", /denied|outside/i)
          assert.isFalse(create?.isError)
          const search = yield* all.call(
            ToolCall.make("c7", "memory__search_nodes", '{"query": "Ada"}'),
          )
          assert.include(search.content, "writes programs")
          assert.strictEqual(echo?.content, "Echo: hi")
          assert.strictEqual(now?.content, "2026-01-01T00:00:00Z")
          assert.include(readFileSync(memoryFile, "utf8"), "Ada")
        }),
      )
      assert.deepStrictEqual(childPids(), before)
    }),
  )

  it.live("reports two servers that offer the same name without a prefix", () =>
    Effect.gen(function* () {
      const first = yield* McpToolbox.stdio(node("everything", "stdio"))
      const second = yield* McpToolbox.stdio(node("everything", "stdio"))
      const clash = yield* Effect.flip(Toolbox.combine([first, second]))
      assert.strictEqual(clash._tag, "ToolClash")
      assert.include(clash.names, "echo")
      assert.match(clash.message, /^two toolboxes offer tools named .*\becho\b.*: rename one/)
    }),
  )

  it.live("a server that cannot start is a Transport error that quotes its stderr", () =>
    Effect.gen(function* () {
      const before = childPids()
      const missing = yield* Effect.flip(
        McpToolbox.stdio({ command: "/nonexistent/mcp-server" }).pipe(Effect.scoped),
      )
      assert.strictEqual(missing.reason._tag, "Transport")
      const dying = yield* Effect.flip(
        McpToolbox.stdio({
          command: process.execPath,
          args: ["-e", "console.error('config file missing'); process.exit(3)"],
        }).pipe(Effect.scoped),
      )
      assert.strictEqual(dying.reason._tag, "Transport")
      assert.include(dying.message, "config file missing")
      const silent = yield* Effect.flip(
        McpToolbox.stdio({
          command: process.execPath,
          args: ["-e", "setInterval(() => {}, 1000)"],
          connectTimeoutMillis: 300,
        }).pipe(Effect.scoped),
      )
      assert.strictEqual(silent.reason._tag, "Timeout")
      assert.deepStrictEqual(childPids(), before)
    }),
  )
})
