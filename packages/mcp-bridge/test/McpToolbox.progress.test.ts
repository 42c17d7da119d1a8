import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { Toolbox, ToolCall } from "@svir/core"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, serveHttp } from "./servers.js"

const script = fileURLToPath(new URL("./fixtures/progress-stdio.mjs", import.meta.url))

/** The reports a toolbox passes on, and a wait until `count` of them have come. */
const listener = (count: number) => {
  const events: Array<McpToolbox.ProgressEvent> = []
  const reached = Deferred.makeUnsafe<void>()
  return {
    events,
    onProgress: (event: McpToolbox.ProgressEvent) => {
      events.push(event)
      if (events.length === count) Deferred.doneUnsafe(reached, Exit.void)
    },
    // Bounded only so that a report lost on the way fails the test instead of hanging it.
    reached: Deferred.await(reached).pipe(Effect.timeout("10 seconds")),
  }
}

const step = (progress: number) => ({
  callId: "c1",
  name: "held",
  progress,
  total: 3,
  message: `step ${progress}`,
})

/**
 * Calls `held`, waits until its three reports have reached `onProgress`, then calls `release`,
 * which makes the server answer `held`.
 */
const heldCall = (toolbox: McpToolbox.McpToolbox, reached: Effect.Effect<unknown, unknown>) =>
  Effect.gen(function* () {
    const held = yield* Effect.forkChild(toolbox.call(ToolCall.make("c1", "held")))
    yield* reached
    const released = yield* toolbox.call(ToolCall.make("c2", "release"))
    return [(yield* Fiber.join(held)).content, released.content]
  })

describe("McpToolbox passing on progress reports", () => {
  afterEach(assertNoChildLeft)

  it.live("passes on, in order, every report the server sends before it answers (stdio)", () =>
    Effect.gen(function* () {
      const progress = listener(3)
      const toolbox = yield* McpToolbox.stdio(
        { command: process.execPath, args: [script] },
        { onProgress: progress.onProgress },
      )
      assert.deepStrictEqual(yield* heldCall(toolbox, progress.reached), ["done", "released"])
      assert.deepStrictEqual(progress.events, [step(1), step(2), step(3)])
    }),
  )

  it.live("passes on, in order, every report the server sends before it answers (HTTP)", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() => {
        const server = new McpServer({ name: "progress", version: "1.0.0" })
        let release = () => {}
        const released = new Promise<void>((resolve) => {
          release = resolve
        })
        server.registerTool("held", { description: "Reports three steps." }, async (extra) => {
          const progressToken = extra._meta?.progressToken
          if (progressToken === undefined) throw new Error("no progress token")
          for (const progress of [1, 2, 3]) {
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken, progress, total: 3, message: `step ${progress}` },
            })
          }
          await released
          return { content: [{ type: "text", text: "done" }] }
        })
        server.registerTool("release", { description: "Lets held answer." }, () => {
          release()
          return { content: [{ type: "text", text: "released" }] }
        })
        return server
      })
      const progress = listener(3)
      const toolbox = yield* McpToolbox.http({ url }, { onProgress: progress.onProgress })
      assert.deepStrictEqual(yield* heldCall(toolbox, progress.reached), ["done", "released"])
      assert.deepStrictEqual(progress.events, [step(1), step(2), step(3)])
    }),
  )

  it.live("cannot pass on reports read with the answer or after it, and still answers", () =>
    Effect.gen(function* () {
      // The SDK's Protocol forgets a request's progress handler as it reads the answer, and
      // handles a notification a microtask after reading it: reports that come in the same read
      // as the answer, or later, find no handler and are dropped.
      const progress = listener(3)
      const toolbox = yield* McpToolbox.stdio(
        { command: process.execPath, args: [script] },
        { onProgress: progress.onProgress },
      )
      const withAnswer = yield* toolbox.call(ToolCall.make("d1", "report_with_answer"))
      const afterAnswer = yield* toolbox.call(ToolCall.make("d2", "report_after_answer"))
      assert.deepStrictEqual(
        [withAnswer, afterAnswer].map((result) => [result.isError, result.content]),
        [
          [false, "done"],
          [false, "done"],
        ],
      )
      // A later call that reports shows that the dropped reports were not merely late.
      assert.deepStrictEqual(yield* heldCall(toolbox, progress.reached), ["done", "released"])
      assert.deepStrictEqual(progress.events, [step(1), step(2), step(3)])
    }),
  )

  it.effect("each report gives the call its whole time limit again, the caller's too", () =>
    Effect.gen(function* () {
      // The server reports once, then once more and answers when the test opens each gate.
      const gate = () => {
        let resolve = () => {}
        const promise = new Promise<void>((done) => {
          resolve = done
        })
        return { promise, resolve }
      }
      const gates = [gate(), gate()]
      const { url } = yield* serveHttp(() => {
        const server = new McpServer({ name: "slow", version: "1.0.0" })
        server.registerTool("held", { description: "Works long, reporting." }, async (extra) => {
          const progressToken = extra._meta?.progressToken
          if (progressToken === undefined) throw new Error("no progress token")
          for (const [i, gate] of gates.entries()) {
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken, progress: i + 1, total: 3, message: `step ${i + 1}` },
            })
            await gate.promise
          }
          return { content: [{ type: "text", text: "done" }] }
        })
        return server
      })
      const first = listener(1)
      const second = listener(2)
      const toolbox = yield* McpToolbox.http(
        { url },
        {
          onProgress: (event) => {
            first.onProgress(event)
            second.onProgress(event)
          },
        },
      )
      // The caller's limit is the default minute; 50 seconds pass between reports.
      const held = yield* Effect.forkChild(Toolbox.callSafely(toolbox, ToolCall.make("c1", "held")))
      yield* first.reached
      yield* TestClock.adjust("50 seconds")
      gates[0]!.resolve()
      yield* second.reached
      yield* TestClock.adjust("50 seconds")
      assert.isUndefined(held.pollUnsafe(), "100 seconds, but only 50 since the last report")
      gates[1]!.resolve()
      const result = yield* Fiber.join(held)
      assert.deepStrictEqual([result.isError, result.content], [false, "done"])
    }),
  )
})
