import { fileURLToPath } from "node:url"
import { afterAll, afterEach, assert, describe, it } from "@effect/vitest"
import { Redaction, Toolbox, ToolCall } from "@svir/core"
import { Effect } from "effect"
import { McpToolbox } from "../src/index.js"
import {
  assertNoChildLeft,
  captureLogs,
  makeTag,
  processesLeft,
  serveHostileHttp,
} from "./servers.js"

const script = fileURLToPath(new URL("./fixtures/hostile-stdio.mjs", import.meta.url))
const tag = makeTag()

const hostile = (flags: ReadonlyArray<string> = [], options: McpToolbox.Options = {}) =>
  McpToolbox.stdio({ command: process.execPath, args: [script, ...flags, tag] }, options)

const call = (toolbox: McpToolbox.McpToolbox, name: string, args = "{}") =>
  Effect.map(toolbox.call(ToolCall.make(`call-${name}`, name, args)), (result) => ({
    isError: result.isError,
    content: result.content,
  }))

const fine = { isError: false, content: "fine" }

describe("McpToolbox.stdio with a hostile server", () => {
  afterEach(assertNoChildLeft)
  afterAll(() =>
    Effect.runPromise(processesLeft(tag)).then((left) => assert.deepStrictEqual(left, [])),
  )

  it.live("fails a call whose answer is too large, and answers the next", () =>
    Effect.gen(function* () {
      const toolbox = yield* hostile()
      const huge = yield* call(toolbox, "huge", '{"bytes": 20000000}')
      assert.isTrue(huge.isError)
      assert.match(huge.content, /^tool huge failed: .*the answer was larger than 10485760 bytes/)
      assert.deepStrictEqual(yield* call(toolbox, "echo"), fine)
    }),
  )

  it.live("a smaller bound holds a smaller answer, and a larger one lets it through", () =>
    Effect.gen(function* () {
      const small = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [script, tag],
        maxMessageBytes: 1_000,
      })
      const cut = yield* call(small, "huge", '{"bytes": 2000}')
      assert.match(cut.content, /larger than 1000 bytes/)
      assert.deepStrictEqual(yield* call(small, "echo"), fine)
      const large = yield* McpToolbox.stdio(
        { command: process.execPath, args: [script, tag], maxMessageBytes: 30_000_000 },
        { maxResultChars: 10 },
      )
      const whole = yield* call(large, "huge", '{"bytes": 20000000}')
      assert.deepStrictEqual(whole, {
        isError: false,
        content: `${"x".repeat(10)}\n…[cut: 19999990 more characters]`,
      })
    }),
  )

  it.live("fails with a ResponseLimit error when the list of tools is too large", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        McpToolbox.stdio({
          command: process.execPath,
          args: [script, tag],
          maxMessageBytes: 300,
        }),
      )
      assert.strictEqual(error.reason._tag, "ResponseLimit")
      assert.match(error.message, /^listing tools \(page 1\) failed: .*larger than 300 bytes/)
    }),
  )

  it.live("gives failed results, never a crash, for values nested 100 000 levels deep", () =>
    Effect.gen(function* () {
      const toolbox = yield* hostile()
      assert.deepStrictEqual(yield* call(toolbox, "deep_structured"), {
        isError: true,
        content: "the tool's structured content nests deeper than 128 levels",
      })
      assert.deepStrictEqual(yield* call(toolbox, "deep_content"), {
        isError: false,
        content: "shallow",
      })
      assert.deepStrictEqual(yield* call(toolbox, "deep_error"), {
        isError: true,
        content: "tool deep_error failed: MCP error -32050: MCP error -32050: deep trouble",
      })
      assert.deepStrictEqual(yield* call(toolbox, "echo"), fine)
    }),
  )

  it.live("leaves out a tool whose input schema nests 100 000 levels deep", () =>
    Effect.gen(function* () {
      const logs = captureLogs()
      const toolbox = yield* hostile(["deep-schema"]).pipe(Effect.provide(logs.layer))
      const names = (yield* toolbox.tools).map((tool) => tool.name)
      assert.include(names, "echo")
      assert.notInclude(names, "deep_schema")
      assert.deepStrictEqual(yield* call(toolbox, "echo"), fine)
      assert.strictEqual(logs.logged.length, 1)
      assert.include(
        logs.logged[0],
        'the tool \\"deep_schema\\" and the bridge leaves it out: its input schema nests deeper than 128 levels',
      )
    }),
  )

  it.live("ignores repeated answers and answers to unknown requests", () =>
    Effect.gen(function* () {
      const toolbox = yield* hostile()
      const results = yield* Toolbox.callAll(
        toolbox,
        [ToolCall.make("c1", "twice"), ToolCall.make("c2", "echo"), ToolCall.make("c3", "twice")],
        { concurrency: 3 },
      )
      assert.deepStrictEqual(
        results.map((result) => [result.content, result.isError]),
        [
          ["once", false],
          ["fine", false],
          ["once", false],
        ],
      )
    }),
  )

  it.live("gives a failed result on time for a call that is never answered", () =>
    Effect.gen(function* () {
      const toolbox = yield* hostile([], { timeoutMillis: 300 })
      const never = yield* call(toolbox, "never")
      assert.isTrue(never.isError)
      assert.match(never.content, /did not answer in time/)
      assert.deepStrictEqual(yield* call(toolbox, "echo"), fine)
    }),
  )

  it.live("reads a server's error with the code of the SDK's timeout as the server's error", () =>
    Effect.gen(function* () {
      const toolbox = yield* hostile()
      assert.deepStrictEqual(yield* call(toolbox, "server_timeout"), {
        isError: true,
        content:
          "tool server_timeout failed: MCP error -32001: MCP error -32001: the upstream service timed out",
      })
      assert.deepStrictEqual(yield* call(toolbox, "echo"), fine)
    }),
  )

  it.live("cuts a failure's text like any result, whether the tool or the server failed", () =>
    Effect.gen(function* () {
      const toolbox = yield* hostile([], { maxResultChars: 100 })
      const failed = yield* call(toolbox, "huge_error", '{"chars": 1000000}')
      assert.deepStrictEqual(failed, {
        isError: true,
        content: `${"e".repeat(100)}\n…[cut: 999900 more characters]`,
      })
      const thrown = yield* call(toolbox, "huge_throw", '{"chars": 1000000}')
      assert.isTrue(thrown.isError)
      assert.match(thrown.content, /^tool huge_throw failed: (MCP error -32050: )+e{20}/)
      assert.isBelow(thrown.content.length, 150)
    }),
  )

  it.live("never quotes a value of the configured environment, in a result or an error", () =>
    Effect.gen(function* () {
      const token = "ghp_hostile/Token+42"
      const toolbox = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [script, tag],
        env: { HOSTILE_TOKEN: token },
      })
      const refused = yield* call(toolbox, "leak_env")
      const exited = yield* call(toolbox, "leak_env", '{"exit": true}')
      for (const result of [refused, exited]) {
        assert.isTrue(result.isError)
        assert.include(result.content, "[redacted]")
        assert.isFalse(Redaction.make([token]).reveals(result.content), result.content)
      }
      assert.match(
        exited.content,
        /the server process exited; the end of the server's own output on stderr: "/,
      )
    }),
  )

  it.live("gives a failed result for a call during which the server exits", () =>
    Effect.gen(function* () {
      const toolbox = yield* hostile()
      const exit = yield* call(toolbox, "exit")
      assert.isTrue(exit.isError)
      assert.match(
        exit.content,
        /got no answer: the server process exited; the end of the server's own output on stderr: "ready/,
      )
    }),
  )
})

describe("McpToolbox.http with a hostile server", () => {
  for (const jsonResponse of [false, true]) {
    const answers = jsonResponse ? "JSON bodies" : "event streams"

    it.live(`fails a call whose answer is too large, and answers the next (${answers})`, () =>
      Effect.gen(function* () {
        const { url } = yield* serveHostileHttp({ jsonResponse })
        const toolbox = yield* McpToolbox.http({ url })
        const huge = yield* call(toolbox, "huge", '{"bytes": 20000000}')
        assert.isTrue(huge.isError)
        assert.match(huge.content, /^tool huge failed: .*the answer was larger than 10485760 bytes/)
        assert.deepStrictEqual(yield* call(toolbox, "echo"), fine)
        // The server serves one session: each toolbox below has a server of its own.
        const second = yield* serveHostileHttp({ jsonResponse })
        const small = yield* McpToolbox.http({ url: second.url, maxMessageBytes: 1_000 })
        const cut = yield* call(small, "huge", '{"bytes": 2000}')
        assert.match(cut.content, /larger than 1000 bytes/)
        assert.deepStrictEqual(yield* call(small, "echo"), fine)
        const third = yield* serveHostileHttp({ jsonResponse })
        const tooSmall = yield* Effect.flip(
          McpToolbox.http({ url: third.url, maxMessageBytes: 300 }),
        )
        assert.strictEqual(tooSmall.reason._tag, "ResponseLimit")
      }),
    )

    it.live(`gives failed results, never a crash, for deep values (${answers})`, () =>
      Effect.gen(function* () {
        const { url } = yield* serveHostileHttp({ jsonResponse, deepSchema: true })
        const logs = captureLogs()
        const toolbox = yield* McpToolbox.http({ url }).pipe(Effect.provide(logs.layer))
        assert.notInclude(
          (yield* toolbox.tools).map((tool) => tool.name),
          "deep_schema",
        )
        assert.include(logs.logged[0], 'the tool \\"deep_schema\\" and the bridge leaves it out')
        assert.deepStrictEqual(yield* call(toolbox, "deep_structured"), {
          isError: true,
          content: "the tool's structured content nests deeper than 128 levels",
        })
        assert.strictEqual((yield* call(toolbox, "deep_content")).content, "shallow")
        assert.isTrue((yield* call(toolbox, "deep_error")).isError)
        assert.deepStrictEqual(yield* call(toolbox, "echo"), fine)
      }),
    )
  }
})
