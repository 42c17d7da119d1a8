import type { ToolCall } from "@svir/core"
import * as Effect from "effect/Effect"

/**
 * The SHA-256 of a call's id, name and arguments, in hex: what binds an approval token to the
 * call a person saw (D3). The same call gives the same digest in every process.
 */
export const argumentsDigest = (call: ToolCall.ToolCall): Effect.Effect<string> =>
  Effect.promise(async () => {
    const text = JSON.stringify([call.id, call.name, call.arguments])
    const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))
    return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("")
  })
