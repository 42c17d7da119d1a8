import { existsSync } from "node:fs"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Request, Toolbox, ToolCall } from "@svir/core"
import { McpToolbox } from "@svir/mcp-bridge"
import { OpenAiCodec, ToolSchema } from "@svir/openai-codec"
import { Permission } from "@svir/registry"
import { Effect } from "effect"

// The real filesystem MCP server from npm, on a folder of the test's own.
const filesystemServer = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-filesystem/dist/index.js",
)

const folder = Effect.acquireRelease(
  Effect.promise(async () => {
    const made = await mkdtemp(join(tmpdir(), "svir-guard-"))
    await writeFile(join(made, "notes.md"), "keep me\n")
    return made
  }),
  (made) => Effect.promise(() => rm(made, { recursive: true, force: true })),
)

const files = (root: string) =>
  McpToolbox.stdio({ command: process.execPath, args: [filesystemServer, root] })

// Reading is allowed, writing is asked for, and moving is hidden.
const policy = Permission.layer({
  visible: (tool) => tool.name !== "move_file",
  decide: (tool, call) =>
    tool.name === "write_file" || tool.name === "edit_file"
      ? Permission.confirm(`${tool.name} ${call.arguments}?`, call)
      : Permission.allow,
})
const refuseEveryQuestion = Effect.provideService(
  Permission.Confirm,
  Permission.Confirm.of({ ask: () => Effect.succeed(false) }),
)

describe("an MCP server's tools, guarded and made fit", () => {
  it.effect("Permission.guard hides, asks and denies on a real MCP toolbox", () =>
    Effect.gen(function* () {
      const root = yield* folder
      const guarded = Permission.guard(yield* files(root))
      const offered = (yield* guarded.tools).map((tool) => tool.name)
      assert.include(offered, "write_file")
      assert.include(offered, "read_text_file")
      assert.notInclude(offered, "move_file")

      const target = join(root, "notes.md")
      const [read, write, move] = yield* Toolbox.callAll(guarded, [
        ToolCall.make("1", "read_text_file", JSON.stringify({ path: target })),
        ToolCall.make("2", "write_file", JSON.stringify({ path: target, content: "gone" })),
        ToolCall.make("3", "move_file", JSON.stringify({ source: target, destination: "x" })),
      ])
      assert.isFalse(read!.isError)
      assert.include(read!.content, "keep me")
      assert.isTrue(write!.isError)
      assert.match(write!.content, /^permission denied: not confirmed: write_file /)
      assert.isTrue(move!.isError)
      assert.match(move!.content, /^no tool named move_file/)
      // The denied write never reached the server.
      assert.strictEqual(yield* Effect.promise(() => readFile(target, "utf8")), "keep me\n")
      assert.isFalse(existsSync(join(root, "x")))
    }).pipe(Effect.provide(policy), refuseEveryQuestion, Effect.scoped),
  )

  it.effect("ToolSchema.fit makes every tool of a real server fit, strict included", () =>
    Effect.gen(function* () {
      const toolbox = yield* files(yield* folder)
      const tools = yield* toolbox.tools
      for (const strict of [false, true]) {
        const fitted = yield* ToolSchema.fit(tools, { strict })
        assert.strictEqual(fitted.tools.length, tools.length)
        assert.deepStrictEqual(ToolSchema.problems(fitted.tools, { strict }), [])
        // Every change is reported with the tool it was made to.
        for (const change of fitted.changes)
          assert.include(
            tools.map((t) => t.name),
            change.tool,
          )
        const request = Request.make("m").pipe(
          Request.user("list the notes"),
          Request.tools(fitted.tools),
        )
        const body = yield* OpenAiCodec.encode(request)
        assert.strictEqual(body.tools?.length, tools.length)
      }
    }).pipe(Effect.scoped),
  )
})
