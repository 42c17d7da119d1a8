import { GenAi, type ToolResult } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"
import type { Connection } from "./session.js"

/** The MCP conventions' attribute of the revision the connection speaks (D48). */
const mcpProtocolVersion = "mcp.protocol.version"

/** A failed result, as the failure that ends its span with an error status: no text in it. */
const failedResult = { name: "ToolError", message: GenAi.toolError } as const

/**
 * D19: one `tools/call {tool}` span per request sent, under the MCP conventions: the method, the
 * tool's name on the server, the session when the transport has one, the protocol revision (D48), the transport (`pipe` for
 * stdio, `tcp` for HTTP), the name cut by `GenAi.spanToolName`. A failed result sets `error.type`
 * to `tool_error` and an error status, as the `execute_tool` span around it does. With no tracer
 * that exports, the request is sent as it is, with no span, and no attribute is made. `send` is
 * given the span, whose trace context the request may carry (D43).
 */
export const toolsCall = (
  connection: Connection,
  serverName: string,
  send: (span: Tracer.Span | undefined) => Effect.Effect<ToolResult.ToolResult>,
): Effect.Effect<ToolResult.ToolResult> =>
  Effect.withFiber((fiber) => {
    if (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) return send(undefined)
    const { Attribute } = GenAi
    const name = GenAi.spanToolName(serverName)
    const attributes: Record<string, unknown> = {
      [Attribute.mcpMethodName]: "tools/call",
      [Attribute.operationName]: GenAi.Operation.executeTool,
      [Attribute.toolName]: name,
    }
    const sessionId = connection.client.transport?.sessionId
    if (sessionId !== undefined) attributes[Attribute.mcpSessionId] = sessionId
    const version = connection.client.getNegotiatedProtocolVersion()
    if (version !== undefined) attributes[mcpProtocolVersion] = version
    if (connection.network !== undefined) {
      attributes[Attribute.networkTransport] = connection.network
    }
    let failed: ToolResult.ToolResult | undefined
    return Effect.useSpan<ToolResult.ToolResult, typeof failedResult, never>(
      `tools/call ${name}`,
      { kind: "client", attributes },
      (span) =>
        Effect.withParentSpan(send(span), span).pipe(
          Effect.flatMap((result) => {
            if (!result.isError) return Effect.succeed(result)
            span.attribute(Attribute.errorType, GenAi.toolError)
            failed = result
            return Effect.fail(failedResult)
          }),
        ),
    ).pipe(Effect.catch(() => Effect.succeed(failed!)))
  })
