import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { ToolCall } from "@svir/core"
import { Clock, Effect, Layer } from "effect"
import { Elicitation, McpToolbox } from "../src/index.js"
import { assertNoChildLeft, captureLogs, connectInMemory } from "./servers.js"

const script = fileURLToPath(new URL("./fixtures/schema-stdio.mjs", import.meta.url))

// The listing warns of the tool "wide": each test keeps the lines, so that none is printed.
const schemas = (logs = captureLogs()) =>
  McpToolbox.stdio({ command: process.execPath, args: [script] }).pipe(Effect.provide(logs.layer))

const call = (toolbox: McpToolbox.McpToolbox, name: string, args: unknown = {}) =>
  Effect.map(toolbox.call(ToolCall.make(`call-${name}`, name, JSON.stringify(args))), (result) => ({
    isError: result.isError,
    content: result.content,
  }))

/** A user who answers every form with `content`, and the forms asked. */
const user = (content: Elicitation.Content) => {
  const asked: Array<Elicitation.Request> = []
  const layer = Layer.succeed(Elicitation.Elicitation, {
    ask: (request) => {
      asked.push(request)
      return Effect.succeed(Elicitation.accept(content))
    },
  })
  return { asked, layer }
}

// Thousands of characters: a backtracking engine would take longer than the age of the universe
// on "^(a|a)*$" (28 characters already take seconds), RE2 takes microseconds.
const poison = `${"a".repeat(10_000)}!`

describe("McpToolbox.stdio with a server whose schemas are hostile", () => {
  afterEach(assertNoChildLeft)

  it.live("checks structured content against a backtracking pattern in linear time", () =>
    Effect.gen(function* () {
      const toolbox = yield* schemas()
      const refused = yield* call(toolbox, "patterned", { s: poison })
      assert.isTrue(refused.isError)
      assert.match(
        refused.content,
        /^tool patterned answered structured content that does not match its output schema: data\/s must match pattern "\^\(a\|a\)\*\$"/,
      )
      assert.deepStrictEqual(yield* call(toolbox, "patterned", { s: "a".repeat(10_000) }), {
        isError: false,
        content: "s: 10000 characters",
      })
      assert.deepStrictEqual(yield* call(toolbox, "echo"), { isError: false, content: "fine" })
    }),
  )

  it.live("leaves out a tool whose output schema has 12 000 properties, and says why", () =>
    Effect.gen(function* () {
      const logs = captureLogs()
      const toolbox = yield* schemas(logs)
      const names = (yield* toolbox.tools).map((tool) => tool.name)
      assert.notInclude(names, "wide")
      assert.includeMembers(names, ["echo", "patterned"])
      const skipped = yield* toolbox.skipped
      assert.deepStrictEqual(skipped, [
        {
          name: "wide",
          index: 2,
          reason:
            "its output schema is not compiled: it holds more than 2048 JSON values, more than the bridge compiles",
        },
      ])
      assert.strictEqual(logs.logged.length, 1)
      assert.include(logs.logged[0], 'the tool \\"wide\\" and the bridge leaves it out')
      assert.deepStrictEqual(yield* call(toolbox, "echo"), { isError: false, content: "fine" })
    }),
  )

  it.live("refuses a form of 12 000 fields as InvalidParams before asking the user", () =>
    Effect.gen(function* () {
      const answering = user({ field0: "x" })
      const toolbox = yield* schemas().pipe(Effect.provide(answering.layer))
      const result = yield* call(toolbox, "ask_wide")
      // The SDK server words the client's error answer "MCP error -32602: <its message>".
      assert.strictEqual(
        result.content,
        "the client refused: MCP error -32602: the requested schema cannot be checked: it holds more than 2048 JSON values, more than the bridge compiles",
      )
      assert.strictEqual(answering.asked.length, 0)
      assert.deepStrictEqual(yield* call(toolbox, "echo"), { isError: false, content: "fine" })
    }),
  )

  it.live("never runs a form field's backtracking pattern on the user's answer", () =>
    Effect.gen(function* () {
      const answering = user({ s: poison })
      const toolbox = yield* schemas().pipe(Effect.provide(answering.layer))
      const result = yield* call(toolbox, "ask_patterned")
      // The SDK reads a form's fields with the spec's schema, which has no `pattern`: the user
      // sees the field without it, and the answer is sent.
      assert.strictEqual(
        result.content,
        `accept: ${JSON.stringify({ s: poison }).length} characters`,
      )
      assert.deepStrictEqual(answering.asked[0]?.requestedSchema.properties.s, { type: "string" })
    }),
  )
})

describe("McpToolbox.fromClient, when compiling what was listed takes the listing's time", () => {
  it.live("leaves out each tool whose output schema's turn comes after the time ran out", () =>
    Effect.gen(function* () {
      const server = new Server({ name: "slow", version: "1.0.0" }, { capabilities: { tools: {} } })
      const names = ["first", "second", "third", "fourth"]
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: names.map((name) => ({
          name,
          inputSchema: { type: "object" as const },
          outputSchema: { type: "object" as const, properties: { n: { type: "number" } } },
        })),
      }))
      const client = yield* connectInMemory(server)
      // Each reading of the clock finds 4 more seconds gone, as if looking at each output schema
      // took them: with a 10-second listing, the time runs out after the first two tools.
      const real = yield* Clock.Clock
      let nanos = 0n
      const slow: Clock.Clock = Object.assign(Object.create(real) as Clock.Clock, {
        monotonicTimeNanosUnsafe: () => {
          nanos += 4_000_000_000n
          return nanos
        },
      })
      const outOfTime =
        "its output schema is not compiled: the listing ran out of time (listTimeoutMillis) before its turn"
      const logs = captureLogs()
      const toolbox = yield* McpToolbox.fromClient(client, { listTimeoutMillis: 10_000 }).pipe(
        Effect.provide(logs.layer),
        Effect.provideService(Clock.Clock, slow),
      )
      assert.deepStrictEqual(
        (yield* toolbox.tools).map((tool) => tool.name),
        ["first", "second"],
      )
      assert.deepStrictEqual(
        (yield* toolbox.skipped).map(({ name, reason }) => [name, reason]),
        [
          ["third", outOfTime],
          ["fourth", outOfTime],
        ],
      )
      assert.strictEqual(logs.logged.length, 2)
    }),
  )
})

describe("McpToolbox.fromClient, compiling a tool's output schema at its first call (D50)", () => {
  it.live("counts the compile in the call's time, and checks the answer once compiled", () =>
    Effect.gen(function* () {
      let calls = 0
      const server = new Server({ name: "lazy", version: "1.0.0" }, { capabilities: { tools: {} } })
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [
          {
            name: "measured",
            inputSchema: { type: "object" as const },
            outputSchema: { type: "object" as const, properties: { n: { type: "number" } } },
          },
        ],
      }))
      server.setRequestHandler(CallToolRequestSchema, (request) => {
        calls++
        const n = request.params.arguments?.n
        return { content: [{ type: "text" as const, text: "measured" }], structuredContent: { n } }
      })
      const client = yield* connectInMemory(server)
      const toolbox = yield* McpToolbox.fromClient(client, { timeoutMillis: 3_000 })
      // The tool is offered: its schema is within the bounds and would compile.
      assert.deepStrictEqual(
        (yield* toolbox.tools).map((tool) => tool.name),
        ["measured"],
      )
      // Each reading of the clock finds 4 more seconds gone, as if compiling took them: more
      // than the call's 3 seconds, so the call fails and is not sent.
      const real = yield* Clock.Clock
      let nanos = 0n
      const slow: Clock.Clock = Object.assign(Object.create(real) as Clock.Clock, {
        monotonicTimeNanosUnsafe: () => {
          nanos += 4_000_000_000n
          return nanos
        },
      })
      const late = yield* toolbox
        .call(ToolCall.make("call-1", "measured", '{"n": 1}'))
        .pipe(Effect.provideService(Clock.Clock, slow))
      assert.isTrue(late.isError)
      assert.strictEqual(late.failure, "timed_out")
      assert.strictEqual(
        late.content,
        "tool measured did not answer in time: compiling its output schema took 4000 ms of the call's 3000 ms",
      )
      assert.strictEqual(calls, 0)
      // Compiled, the check is kept: the next calls are sent and their answers checked.
      assert.deepStrictEqual(yield* call(toolbox, "measured", { n: 2 }), {
        isError: false,
        content: "measured",
      })
      const wrong = yield* call(toolbox, "measured", { n: "two" })
      assert.isTrue(wrong.isError)
      assert.match(
        wrong.content,
        /^tool measured answered structured content that does not match its output schema/,
      )
      assert.strictEqual(calls, 2)
    }),
  )
})
