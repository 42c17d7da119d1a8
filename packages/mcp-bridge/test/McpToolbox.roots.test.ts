import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { ToolCall } from "@svir/core"
import { Effect, Schedule } from "effect"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, childPids, referenceServer } from "./servers.js"

const everything = (options: McpToolbox.Options = {}) =>
  McpToolbox.stdio(
    { command: process.execPath, args: [referenceServer("everything"), "stdio"] },
    options,
  )

/** A fresh directory, removed when the Scope closes. */
const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => realpathSync(mkdtempSync(join(tmpdir(), "svir-roots-")))),
  (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true })),
)

describe("McpToolbox roots", () => {
  afterEach(assertNoChildLeft)

  it.live("answers roots/list with the roots given, as server-everything lists them", () =>
    Effect.gen(function* () {
      const toolbox = yield* everything({
        roots: [
          { uri: "file:///srv/notes", name: "notes" },
          { uri: "file:///srv/photos%20of%202024" },
        ],
      })
      const result = yield* toolbox.call(ToolCall.make("c1", "get-roots-list"))
      assert.isFalse(result.isError, result.content)
      assert.include(result.content, "Current MCP Roots (2 total)")
      assert.include(result.content, "1. notes\n   URI: file:///srv/notes")
      assert.include(result.content, "2. Unnamed Root\n   URI: file:///srv/photos%20of%202024")
    }),
  )

  it.live("declares no roots capability without roots", () =>
    Effect.gen(function* () {
      const toolbox = yield* everything()
      const names = (yield* toolbox.tools).map((tool) => tool.name)
      // server-everything offers the tool only to a client that declares the capability.
      assert.notInclude(names, "get-roots-list")
      assert.include(names, "echo")
    }),
  )

  it.live("lets server-filesystem work in the roots in place of the directory it was given", () =>
    Effect.gen(function* () {
      const given = yield* temporaryDirectory
      const root = yield* temporaryDirectory
      const toolbox = yield* McpToolbox.stdio(
        { command: process.execPath, args: [referenceServer("filesystem"), given] },
        { roots: [{ uri: pathToFileURL(root).href, name: "work" }] },
      )
      // The server asks for the roots once it is initialized, and takes them a moment later.
      const allowed = yield* toolbox.call(ToolCall.make("c1", "list_allowed_directories")).pipe(
        Effect.repeat({
          until: (result) => !result.content.includes(given),
          schedule: Schedule.spaced("20 millis"),
        }),
        Effect.timeout("10 seconds"),
      )
      assert.strictEqual(allowed.content, `Allowed directories:\n${root}`)
    }),
  )

  it.live("refuses a root that is not a file:// URI before starting the server", () =>
    Effect.gen(function* () {
      const before = childPids()
      const error = yield* everything({ roots: [{ uri: "/srv/notes" }] }).pipe(Effect.flip)
      assert.strictEqual(error.reason._tag, "Config")
      assert.strictEqual(error.message, 'the root "/srv/notes" is not a file:// URI')
      assert.deepStrictEqual(childPids(), before)
    }),
  )
})
