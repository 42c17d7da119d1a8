import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { ToolCall } from "@svir/core"
import { Effect, Exit, Scope } from "effect"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, makeTag, processesLeft, serverProcesses } from "./servers.js"

const hostile = fileURLToPath(new URL("./fixtures/hostile-stdio.mjs", import.meta.url))
const node = process.execPath

/** Starts the server, calls it once, closes the Scope and gives the processes left behind. */
const startThenClose = (command: string, args: (tag: string) => ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const tag = makeTag()
    const scope = yield* Scope.make()
    const toolbox = yield* McpToolbox.stdio(
      { command, args: args(tag), stopGraceMillis: 300 },
      { prefix: "h" },
    ).pipe(Scope.provide(scope))
    const answer = yield* toolbox.call(ToolCall.make("c1", "h__echo"))
    assert.strictEqual(answer.content, "fine")
    const group = toolbox.pid!
    assert.isAbove(serverProcesses(tag, group).length, 0)
    yield* Scope.close(scope, Exit.void)
    return yield* processesLeft(tag, group)
  })

describe("McpToolbox.stdio stops the server's whole process tree", () => {
  afterEach(assertNoChildLeft)

  it.live("started through sh -c, ignoring the end of its input and SIGTERM", () =>
    Effect.gen(function* () {
      const left = yield* startThenClose("sh", (tag) => [
        "-c",
        `"${node}" "${hostile}" stubborn ${tag}; exit $?`,
      ])
      assert.deepStrictEqual(left, [])
    }),
  )

  it.live("that started a process of its own which holds its stdout", () =>
    Effect.gen(function* () {
      const left = yield* startThenClose(node, (tag) => [hostile, "grandchild", "stubborn", tag])
      assert.deepStrictEqual(left, [])
    }),
  )

  it.live("started through npx", () =>
    Effect.gen(function* () {
      const left = yield* startThenClose("npx", (tag) => [
        "-c",
        `"${node}" "${hostile}" grandchild ${tag}`,
      ])
      assert.deepStrictEqual(left, [])
    }),
  )
})
