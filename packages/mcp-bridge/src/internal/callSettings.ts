import type { Progress } from "@modelcontextprotocol/client"
import type { Redaction, ToolCall, ToolResult } from "@svir/core"
import type * as Effect from "effect/Effect"
import type * as Content from "../Content.js"
import type { Connection } from "./session.js"

/** How one call is sent and its answer read. */
export interface CallSettings {
  /** How long the call may go without an answer or a progress report. */
  readonly timeoutMillis: number
  /** How long the call may take however often it reports progress. */
  readonly maxTotalMillis: number
  readonly content: Content.Options
  /** Applied to the text of a failure. */
  readonly redaction: Redaction.Redaction
  /** Told of every progress report of a call; none when nobody listens. */
  readonly onProgress: ((call: ToolCall.ToolCall, progress: Progress) => void) | undefined
  /** Whether a call carries its span's `traceparent` in `params._meta` (D43). */
  readonly propagateTraceContext: boolean
  /**
   * The result of a call that did not reach the server on `stale` (D13), from a new connection;
   * none when the toolbox does not connect again, and the call fails.
   */
  readonly resend:
    | ((
        call: ToolCall.ToolCall,
        stale: Connection,
        why: string,
      ) => Effect.Effect<ToolResult.ToolResult>)
    | undefined
}
