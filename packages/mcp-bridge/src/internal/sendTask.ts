import { specTypeSchemas, type Task } from "@modelcontextprotocol/client"
import { IdempotencyKey, Toolbox, type ToolCall, type ToolResult } from "@svir/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Content from "../Content.js"
import { callMeta } from "./callMeta.js"
import { answeredResult, failedResult } from "./callResult.js"
import type { CallSettings } from "./callSettings.js"
import { callFailureOf, describeCallFailure } from "./failure.js"
import type { SchemaCheck } from "./schemaValidator.js"
import type { Connection } from "./session.js"

/** The wait between two polls when the server names none, and the bounds of what it names. */
const defaultPollMillis = 1_000
const minPollMillis = 50
const maxPollMillis = 30_000

/** How long cancelling a task on interruption may take; it is not waited for longer. */
const cancelGraceMillis = 2_000

/**
 * Runs a call as a task (MCP 2025-11-25, tasks): `tools/call` with `task` gives a task, polled
 * with `tasks/get` at the server's `pollInterval` (within 50 ms and 30 s); `tasks/result` gives
 * the result once it is `completed`, or, for `input_required`, waits for it while the server asks
 * its questions (elicitation). Every answer of the server is a sign of life that gives the call
 * its whole time limit again (`Toolbox.progressed`), so a result that takes minutes arrives; each
 * request is bounded by `timeoutMillis` and the whole by `maxTotalMillis`. An interrupted call
 * sends `tasks/cancel`. A task that ends `failed` or `cancelled` gives a failed result (D45).
 */
export const sendTask = (
  settings: CallSettings,
  connection: Connection,
  call: ToolCall.ToolCall,
  serverName: string,
  args: Record<string, unknown>,
  check: SchemaCheck | undefined,
): Effect.Effect<ToolResult.ToolResult> => {
  const { client } = connection
  const options = (signal: AbortSignal) => ({ signal, timeout: settings.timeoutMillis })
  const failed = (text: string, failure: ToolResult.Failure) =>
    failedResult(settings, call, text, failure)
  const result = (taskId: string) =>
    Effect.tryPromise((signal) =>
      client.request(
        { method: "tasks/result", params: { taskId } },
        specTypeSchemas.CallToolResult,
        options(signal),
      ),
    ).pipe(Effect.map((read) => answeredResult(settings, call, read as Content.CallResult, check)))
  const poll = (task: Task): Effect.Effect<ToolResult.ToolResult, unknown> => {
    switch (task.status) {
      case "completed":
      case "input_required":
        return result(task.taskId)
      case "failed":
      case "cancelled": {
        const why = task.statusMessage === undefined ? "" : `: ${task.statusMessage}`
        return Effect.succeed(
          failed(`tool ${call.name} failed: its task ended ${task.status}${why}`, "handler_failed"),
        )
      }
      default: {
        const wait = Math.min(
          maxPollMillis,
          Math.max(minPollMillis, task.pollInterval ?? defaultPollMillis),
        )
        return Effect.sleep(Duration.millis(wait)).pipe(
          Effect.andThen(
            Effect.tryPromise((signal) =>
              client.request(
                { method: "tasks/get", params: { taskId: task.taskId } },
                specTypeSchemas.GetTaskResult,
                options(signal),
              ),
            ),
          ),
          Effect.tap(() => Toolbox.progressed),
          Effect.flatMap(poll),
        )
      }
    }
  }
  const run = Effect.flatMap(IdempotencyKey.get, (key) =>
    Effect.tryPromise((signal) =>
      client.request(
        {
          method: "tools/call",
          // A task-augmented request carries `task` in its params (MCP 2025-11-25, tasks).
          params: { name: serverName, arguments: args, task: {}, ...callMeta(undefined, key) },
        },
        specTypeSchemas.CreateTaskResult,
        options(signal),
      ),
    ),
  ).pipe(
    Effect.tap(() => Toolbox.progressed),
    Effect.flatMap(({ task }) =>
      poll(task).pipe(
        Effect.onInterrupt(() =>
          Effect.tryPromise(() =>
            client.request(
              { method: "tasks/cancel", params: { taskId: task.taskId } },
              specTypeSchemas.CancelTaskResult,
            ),
          ).pipe(Effect.timeout(cancelGraceMillis), Effect.ignore),
        ),
      ),
    ),
  )
  return run.pipe(
    Effect.timeoutOrElse({
      duration: Duration.millis(settings.maxTotalMillis),
      orElse: () =>
        Effect.succeed(
          failed(
            `tool ${call.name} did not finish its task within ${settings.maxTotalMillis} ms`,
            "timed_out",
          ),
        ),
    }),
    Effect.catch((error) => {
      // `tryPromise` wraps what the SDK rejected with.
      const cause = error instanceof Error && "cause" in error ? error.cause : error
      return Effect.succeed(
        failed(
          describeCallFailure(call.name, cause, connection.state.closeReason()),
          callFailureOf(cause),
        ),
      )
    }),
  )
}
