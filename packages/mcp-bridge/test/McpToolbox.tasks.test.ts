import { afterEach, assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/client"
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { IdempotencyKey, Toolbox, ToolCall } from "@svir/core"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, referenceServer } from "./servers.js"

/** A task store that counts the polls of each task. */
class CountingStore extends InMemoryTaskStore {
  polls = 0
  override getTask(...args: Parameters<InMemoryTaskStore["getTask"]>) {
    this.polls++
    return super.getTask(...args)
  }
}

/**
 * A server with one tool, `slow`, that runs as a task (taskSupport "required") and asks to be
 * polled every 10 s; the test ends its task through `store`. Reached over InMemoryTransport.
 * `keys` are the idempotency keys in the `_meta` of the requests that started the tasks.
 */
const taskServer = () => {
  const store = new CountingStore()
  const taskIds: Array<string> = []
  const keys: Array<unknown> = []
  const open = async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const server = new McpServer(
      { name: "tasks", version: "1.0.0" },
      {
        capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
        taskStore: store,
      },
    )
    server.experimental.tasks.registerToolTask(
      "slow",
      { description: "Takes as long as the test says.", execution: { taskSupport: "required" } },
      {
        createTask: async (extra) => {
          keys.push(extra._meta?.["svir/idempotencyKey"])
          const task = await extra.taskStore.createTask({ pollInterval: 10_000 })
          taskIds.push(task.taskId)
          return { task }
        },
        getTask: async (extra) => extra.taskStore.getTask(extra.taskId),
        getTaskResult: async (extra) =>
          (await extra.taskStore.getTaskResult(extra.taskId)) as never,
      },
    )
    await server.connect(serverSide)
    return clientSide
  }
  return { open, store, taskIds, keys }
}

/** Moves the test clock a second at a time, letting the in-memory messages through, until `done`. */
const until = (done: () => boolean): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (let step = 0; !done() && step < 1_000; step++) {
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      if (!done()) yield* TestClock.adjust("1 second")
    }
    assert.isTrue(done())
  })

describe("McpToolbox calls a tool that runs as a task", () => {
  afterEach(assertNoChildLeft)

  it.effect("a result that takes minutes arrives; each poll gives the time limit again", () =>
    Effect.gen(function* () {
      const { open, store, taskIds } = taskServer()
      const toolbox = yield* McpToolbox.fromTransport({ open })
      const fiber = yield* Effect.forkChild(
        Toolbox.callSafely(toolbox, ToolCall.make("c1", "slow"), { timeout: "15 seconds" }),
      )
      // Five polls, 10 s apart: 50 s in all, more than three times the limit.
      yield* until(() => store.polls >= 5)
      yield* Effect.promise(() =>
        store.storeTaskResult(taskIds[0]!, "completed", {
          content: [{ type: "text", text: "done after a while" }],
        }),
      )
      yield* until(() => fiber.pollUnsafe() !== undefined)
      assert.deepStrictEqual(yield* Fiber.join(fiber), {
        callId: "c1",
        content: "done after a while",
        isError: false,
      })
    }).pipe(Effect.scoped),
  )

  it.effect("a task that ends failed is a failed result with the server's words", () =>
    Effect.gen(function* () {
      const { open, store, taskIds } = taskServer()
      const toolbox = yield* McpToolbox.fromTransport({ open })
      const fiber = yield* Effect.forkChild(toolbox.call(ToolCall.make("c1", "slow")))
      yield* until(() => taskIds.length === 1)
      yield* Effect.promise(() =>
        store.updateTaskStatus(taskIds[0]!, "failed", "the quota ran out"),
      )
      yield* until(() => fiber.pollUnsafe() !== undefined)
      assert.deepStrictEqual(yield* Fiber.join(fiber), {
        callId: "c1",
        content: "tool slow failed: its task ended failed: the quota ran out",
        isError: true,
        failure: "handler_failed",
      })
    }).pipe(Effect.scoped),
  )

  it.effect("interrupting the call cancels the task on the server", () =>
    Effect.gen(function* () {
      const { open, store, taskIds } = taskServer()
      const toolbox = yield* McpToolbox.fromTransport({ open })
      const fiber = yield* Effect.forkChild(toolbox.call(ToolCall.make("c1", "slow")))
      yield* until(() => store.polls >= 1)
      // The interruption waits for the server's answer to tasks/cancel.
      yield* Fiber.interrupt(fiber)
      const task = yield* Effect.promise(() => store.getTask(taskIds[0]!))
      assert.strictEqual(task?.status, "cancelled")
    }).pipe(Effect.scoped),
  )

  it.effect("the tools/call that starts the task carries the call's idempotency key (D54)", () =>
    Effect.gen(function* () {
      const { open, keys } = taskServer()
      const toolbox = yield* McpToolbox.fromTransport({ open })
      const keyed = yield* Effect.forkChild(
        IdempotencyKey.within(toolbox.call(ToolCall.make("c1", "slow")), "run-1/3/call_1"),
      )
      yield* until(() => keys.length === 1)
      const plain = yield* Effect.forkChild(toolbox.call(ToolCall.make("c2", "slow")))
      yield* until(() => keys.length === 2)
      assert.deepStrictEqual(keys, ["run-1/3/call_1", undefined])
      yield* Fiber.interrupt(keyed)
      yield* Fiber.interrupt(plain)
    }).pipe(Effect.scoped),
  )

  it.live(
    "runs server-everything's simulate-research-query, which requires tasks, to its report",
    () =>
      Effect.gen(function* () {
        const toolbox = yield* McpToolbox.stdio({
          command: process.execPath,
          args: [referenceServer("everything"), "stdio"],
        })
        const result = yield* toolbox.call(
          ToolCall.make("c1", "simulate-research-query", '{"topic":"tides"}'),
        )
        assert.isFalse(result.isError)
        assert.include(result.content, "# Research Report: tides")
      }).pipe(Effect.scoped),
  )
})
