import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Progress } from "@modelcontextprotocol/sdk/types.js"
import { type Redaction, type ToolCall, ToolResult } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Content from "../Content.js"
import type { ConnectionState } from "./connection.js"
import { cut } from "./cut.js"
import { describeCallFailure } from "./failure.js"

/** How one call is sent and its answer read. */
export interface CallSettings {
  /** How long the call may go without an answer or a progress report. */
  readonly timeoutMillis: number
  /** How long the call may take however often it reports progress. */
  readonly maxTotalMillis: number
  readonly content: Content.Options
  /** Applied to the text of a failure. */
  readonly redaction: Redaction.Redaction
  readonly onProgress: (call: ToolCall.ToolCall, progress: Progress) => void
}

// Servers of the 2024-10-07 revision answer with `toolResult` instead of content blocks.
const asCallResult = (result: { readonly [key: string]: unknown }): Content.CallResult =>
  Array.isArray(result.content)
    ? (result as Content.CallResult)
    : { structuredContent: result.toolResult }

/**
 * Sends `tools/call` for `call`, under the server's own name for the tool, and gives its result.
 * Never fails: a timeout, an error answer, or a connection lost or closed while waiting gives a
 * failed result.
 */
export type CallSender = (
  call: ToolCall.ToolCall,
  serverName: string,
  args: Record<string, unknown>,
) => Effect.Effect<ToolResult.ToolResult>

/** Sends calls through `client`, counting them in flight on `connection`. */
export const makeCallSender =
  (client: Client, connection: ConnectionState, settings: CallSettings): CallSender =>
  (call, serverName, args) => {
    const answer = Effect.tryPromise({
      try: (signal) =>
        client.callTool({ name: serverName, arguments: args }, undefined, {
          signal,
          timeout: settings.timeoutMillis,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: settings.maxTotalMillis,
          onprogress: (progress) => {
            // A listener that throws must not break the SDK's handling of the notification.
            try {
              settings.onProgress(call, progress)
            } catch {}
          },
        }),
      // An error's text is as long as the server made it: redacted whole, then cut like a result's
      // content.
      catch: (error) =>
        cut(
          settings.redaction.text(describeCallFailure(call.name, error, connection.closeReason())),
          settings.content.maxChars ?? Content.defaultMaxChars,
        ),
    }).pipe(
      Effect.map((result) => Content.toToolResult(call.id, asCallResult(result), settings.content)),
      Effect.catch((message) => Effect.succeed(ToolResult.error(call.id, message))),
    )
    return Effect.acquireUseRelease(
      Ref.update(connection.inFlight, (count) => count + 1),
      () =>
        Effect.suspend(() => {
          // The loss awaited is that of the connection as it is when the call is sent.
          const connectionLost = Effect.map(connection.nextLoss(), (reason) =>
            ToolResult.error(call.id, `tool ${call.name} got no answer: ${reason}`),
          )
          return Effect.raceFirst(answer, connectionLost)
        }),
      () => Ref.update(connection.inFlight, (count) => count - 1),
    )
  }
