import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Tool, Toolbox, ToolCall } from "@svir/core"
import { Effect, Exit, Scope } from "effect"
import { McpToolbox } from "../src/index.js"
import {
  assertNoChildLeft,
  callThenKill,
  childPids,
  isAlive,
  progressOf,
  referenceServer,
} from "./servers.js"

const everything = (options: McpToolbox.Options = {}) =>
  McpToolbox.stdio(
    { command: process.execPath, args: [referenceServer("everything"), "stdio"] },
    options,
  )

describe("McpToolbox over stdio, with @modelcontextprotocol/server-everything", () => {
  afterEach(assertNoChildLeft)

  it.live("lists its tools under valid names and stops the process when the Scope closes", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const toolbox = yield* everything({ prefix: "every" }).pipe(Scope.provide(scope))
      const tools = yield* toolbox.tools
      const names = tools.map((tool) => tool.name)
      assert.include(names, "every__echo")
      assert.include(names, "every__get-sum")
      for (const name of names) assert.isUndefined(Tool.nameProblem(name))
      const serverNames = yield* toolbox.serverNames
      assert.strictEqual(serverNames.get("every__get-sum"), "get-sum")
      const pid = toolbox.pid
      assert.isDefined(pid)
      assert.isTrue(isAlive(pid!))
      assert.include(childPids(), pid)
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(isAlive(pid!))
      assert.notInclude(childPids(), pid)
    }),
  )

  it.live("echoes, adds, and reads blank arguments as {}", () =>
    Effect.gen(function* () {
      const toolbox = yield* everything()
      const echo = yield* toolbox.call(ToolCall.make("c1", "echo", '{"message":"hello there"}'))
      assert.deepStrictEqual(echo, { callId: "c1", content: "Echo: hello there", isError: false })
      const sum = yield* toolbox.call(ToolCall.make("c2", "get-sum", '{"a": 2, "b": 40}'))
      assert.strictEqual(sum.content, "The sum of 2 and 40 is 42.")
      assert.isFalse(sum.isError)
      const image = yield* toolbox.call(ToolCall.make("c3", "get-tiny-image", "  "))
      assert.isFalse(image.isError)
      assert.match(
        image.content,
        /^Here's the image you requested:\n\[image image\/png, \d+ bytes\]\nThe image above/,
      )
    }),
  )

  it.live("gives images as data URLs or attachments when asked", () =>
    Effect.gen(function* () {
      const asUrl = yield* everything({ media: "dataUrl" })
      const url = yield* asUrl.call(ToolCall.make("c1", "get-tiny-image"))
      assert.match(url.content, /\ndata:image\/png;base64,iVBOR[A-Za-z0-9+/=]+\n/)
      const asAttachment = yield* everything({ media: "attachment" })
      const attached = yield* asAttachment.call(ToolCall.make("c2", "get-tiny-image"))
      const [part] = attached.attachments ?? []
      assert.strictEqual(part?._tag, "Image")
      const size = Number(/image\/png, (\d+) bytes/.exec(attached.content)?.[1])
      assert.strictEqual(part !== undefined && "data" in part ? part.data.length : -1, size)
      // A PNG starts with these eight bytes.
      assert.deepStrictEqual(
        part !== undefined && "data" in part ? [...part.data.slice(0, 4)] : [],
        [0x89, 0x50, 0x4e, 0x47],
      )
    }),
  )

  it.live("gives resource links, and structured content with its text", () =>
    Effect.gen(function* () {
      const toolbox = yield* everything()
      const links = yield* toolbox.call(ToolCall.make("c1", "get-resource-links", '{"count": 2}'))
      assert.match(links.content, /\[resource [a-z]+:\/\/\S+\] Blob Resource 1/)
      assert.match(links.content, /\[resource [a-z]+:\/\/\S+\] Text Resource 2/)
      const weather = yield* toolbox.call(
        ToolCall.make("c2", "get-structured-content", '{"location": "Chicago"}'),
      )
      assert.isFalse(weather.isError)
      assert.include(weather.content, "Light rain")
    }),
  )

  it.live("turns the server's validation errors and bad arguments into failed results", () =>
    Effect.gen(function* () {
      const toolbox = yield* everything()
      const wrongType = yield* toolbox.call(ToolCall.make("c1", "get-sum", '{"a": "two", "b": 1}'))
      assert.isTrue(wrongType.isError)
      assert.match(wrongType.content, /a/)
      const notJson = yield* toolbox.call(ToolCall.make("c2", "echo", '{"message": '))
      assert.isTrue(notJson.isError)
      assert.match(notJson.content, /not valid JSON/)
      const notObject = yield* toolbox.call(ToolCall.make("c3", "echo", "[1, 2]"))
      assert.isTrue(notObject.isError)
      assert.match(notObject.content, /must be a JSON object/)
      const unknown = yield* toolbox.call(ToolCall.make("c4", "ecko", "{}"))
      assert.isTrue(unknown.isError)
      assert.match(unknown.content, /no tool named ecko; the tools are: .*echo/)
    }),
  )

  it.live("lets progress extend the timeout of a long call and reports it", () =>
    Effect.gen(function* () {
      const progress: Array<number> = []
      const toolbox = yield* everything({
        timeoutMillis: 900,
        onProgress: (event) => progress.push(event.progress),
      })
      const result = yield* toolbox.call(
        ToolCall.make("c1", "trigger-long-running-operation", '{"duration": 2.5, "steps": 5}'),
      )
      assert.isFalse(result.isError, result.content)
      assert.match(result.content, /Long running operation completed/)
      // The last report may arrive after the answer, when the SDK no longer listens for it.
      assert.deepStrictEqual(progress.slice(0, 4), [1, 2, 3, 4])
    }),
  )

  it.live("stops a long call at maxTotalMillis however often it reports progress", () =>
    Effect.gen(function* () {
      const toolbox = yield* everything({ timeoutMillis: 500, maxTotalMillis: 700 })
      const result = yield* toolbox.call(
        ToolCall.make("c1", "trigger-long-running-operation", '{"duration": 2, "steps": 10}'),
      )
      assert.isTrue(result.isError)
      assert.match(result.content, /did not answer in time/)
    }),
  )

  it.live("fails every call in flight at once when the server process dies", () =>
    Effect.gen(function* () {
      const progress = progressOf(["c1", "c2"])
      const toolbox = yield* everything({ timeoutMillis: 20_000, onProgress: progress.onProgress })
      // Many steps, so that each call reports progress soon after it starts.
      const slow = ToolCall.make(
        "c1",
        "trigger-long-running-operation",
        '{"duration": 15, "steps": 1000}',
      )
      const { failed, contents, millisAfterKill } = yield* callThenKill(
        toolbox,
        [slow, { ...slow, id: "c2" }],
        progress.allReported,
        Effect.sync(() => process.kill(toolbox.pid!, "SIGKILL")),
      )
      assert.isBelow(millisAfterKill, 5_000)
      assert.deepStrictEqual(failed, [
        ["c1", true],
        ["c2", true],
      ])
      for (const content of contents) assert.match(content, /process exited/)
      const after = yield* toolbox.call(ToolCall.make("c3", "echo", '{"message":"hi"}'))
      assert.isTrue(after.isError)
      assert.match(after.content, /cannot be called: the server process exited/)
    }),
  )

  it.live("keeps calls going when a server writes lines that are not JSON-RPC to stdout", () =>
    Effect.gen(function* () {
      const script = fileURLToPath(new URL("./fixtures/noisy-server.mjs", import.meta.url))
      const toolbox = yield* McpToolbox.stdio({ command: process.execPath, args: [script] })
      const results = yield* Toolbox.callAll(
        toolbox,
        [ToolCall.make("c1", "slow"), ToolCall.make("c2", "slow")],
        { concurrency: 2 },
      )
      assert.deepStrictEqual(
        results.map((result) => [result.content, result.isError]),
        [
          ["done", false],
          ["done", false],
        ],
      )
    }),
  )
})
