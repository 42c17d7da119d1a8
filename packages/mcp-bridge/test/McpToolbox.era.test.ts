import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { ToolCall } from "@svir/core"
import { Effect, Schedule } from "effect"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, referenceServer } from "./servers.js"

const v2Server = fileURLToPath(new URL("./fixtures/v2-stdio.mjs", import.meta.url))
const progressServer = fileURLToPath(new URL("./fixtures/progress-stdio.mjs", import.meta.url))

/** The text of a call of `echo`, and whether it failed. */
const echo = (toolbox: McpToolbox.McpToolbox) =>
  Effect.map(toolbox.call(ToolCall.make("e1", "echo", '{"text":"hi"}')), (result) => [
    result.isError,
    result.content,
  ])

/** A file in a folder of its own, removed when the Scope closes. */
const tempFile = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "svir-era-"))),
  (folder) => Effect.sync(() => rmSync(folder, { recursive: true, force: true })),
).pipe(Effect.map((folder) => join(folder, "file")))

/** Kills the server and waits until the toolbox has heard that it exited. */
const killServer = (toolbox: McpToolbox.McpToolbox) =>
  Effect.sync(() => process.kill(toolbox.pid!, "SIGKILL")).pipe(
    Effect.andThen(
      Effect.sync(() => toolbox.pid).pipe(
        Effect.repeat({
          until: (pid) => pid === undefined,
          schedule: Schedule.spaced("10 millis"),
          times: 500,
        }),
      ),
    ),
  )

describe("McpToolbox speaking each server's protocol era (D48)", () => {
  afterEach(assertNoChildLeft)

  it.live("speaks 2026-07-28 to a server of the v2 SDK that serves it", () =>
    Effect.gen(function* () {
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [v2Server, "modern"],
      })
      assert.strictEqual(toolbox.protocolVersion, "2026-07-28")
      const names = Effect.map(toolbox.tools, (tools) => tools.map((tool) => tool.name))
      assert.deepStrictEqual(yield* names, ["echo", "grow"])
      assert.deepStrictEqual(yield* echo(toolbox), [false, "echo: hi"])
      // The change comes on the subscriptions/listen stream of 2026-07-28, written before the
      // answer to "grow"; the answer to the next call comes after it has been read.
      yield* toolbox.call(ToolCall.make("g1", "grow"))
      yield* echo(toolbox)
      assert.deepStrictEqual(yield* names, ["echo", "grow", "grown"])
    }),
  )

  it.live("speaks a 2025 revision to a server of the v2 SDK that serves only those", () =>
    Effect.gen(function* () {
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [v2Server, "legacy"],
      })
      assert.strictEqual(toolbox.protocolVersion, "2025-11-25")
      assert.deepStrictEqual(yield* echo(toolbox), [false, "echo: hi"])
    }),
  )

  it.live("speaks 2025-11-25 to a server of SDK 1.x, which refuses server/discover", () =>
    Effect.gen(function* () {
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [referenceServer("everything"), "stdio"],
      })
      assert.strictEqual(toolbox.protocolVersion, "2025-11-25")
      const result = yield* toolbox.call(ToolCall.make("e1", "echo", '{"message":"hi"}'))
      assert.deepStrictEqual([result.isError, result.content], [false, "Echo: hi"])
    }),
  )

  it.live("takes a stdio server silent on server/discover for an older one", () =>
    Effect.gen(function* () {
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [progressServer, "silent"],
      })
      assert.strictEqual(toolbox.protocolVersion, "2025-11-25")
      const result = yield* toolbox.call(ToolCall.make("r1", "report_with_answer"))
      assert.deepStrictEqual([result.isError, result.content], [false, "done"])
    }),
  )

  it.live("restarts a server silent on server/discover without asking it again", () =>
    Effect.gen(function* () {
      const log = yield* tempFile
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [progressServer, "silent", `log=${log}`],
        restart: true,
      })
      yield* killServer(toolbox)
      const result = yield* toolbox.call(ToolCall.make("r1", "report_with_answer"))
      assert.deepStrictEqual([result.isError, result.content], [false, "done"])
      assert.strictEqual(toolbox.protocolVersion, "2025-11-25")
      const methods = readFileSync(log, "utf8").trim().split("\n")
      const count = (method: string) => methods.filter((each) => each === method).length
      assert.deepStrictEqual([count("server/discover"), count("initialize")], [1, 2])
    }),
  )

  it.live("restarts a server of 2026-07-28 in 2026-07-28, its list changes still heard", () =>
    Effect.gen(function* () {
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [v2Server, "modern"],
        restart: true,
      })
      yield* killServer(toolbox)
      assert.deepStrictEqual(yield* echo(toolbox), [false, "echo: hi"])
      assert.strictEqual(toolbox.protocolVersion, "2026-07-28")
      yield* toolbox.call(ToolCall.make("g1", "grow"))
      yield* echo(toolbox)
      const names = yield* Effect.map(toolbox.tools, (tools) => tools.map((tool) => tool.name))
      assert.deepStrictEqual(names, ["echo", "grow", "grown"])
    }),
  )

  it.live("forgets the era of a server that no longer speaks it, and negotiates again", () =>
    Effect.gen(function* () {
      const era = yield* tempFile
      writeFileSync(era, "modern")
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [v2Server, `era=${era}`],
        restart: { attempts: 1, backoffMillis: 0 },
      })
      assert.strictEqual(toolbox.protocolVersion, "2026-07-28")
      writeFileSync(era, "legacy")
      yield* killServer(toolbox)
      // The start with the verdict of 2026-07-28 fails at its check; the next one negotiates.
      const [failed, said] = yield* echo(toolbox)
      assert.isTrue(failed)
      assert.include(String(said), "connecting again failed once: starting the MCP server")
      assert.include(String(said), "-32601")
      assert.deepStrictEqual(yield* echo(toolbox), [false, "echo: hi"])
      assert.strictEqual(toolbox.protocolVersion, "2025-11-25")
    }),
  )
})
