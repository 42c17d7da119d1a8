/**
 * The span names and attributes of OpenTelemetry's GenAI semantic conventions (v1.41 of the
 * GenAI spans, as published in `@opentelemetry/semantic-conventions` 1.45), shared by every
 * svir package that makes spans: `@svir/client` (`chat {model}`), `@svir/registry` and
 * `@svir/mcp-bridge` (`execute_tool {name}`), `@svir/loop` (`invoke_agent`). Spans are plain
 * Effect spans (`Effect.withSpan`): nothing is exported until the program provides a tracer,
 * such as `@effect/opentelemetry`'s. No prompt, completion, argument or result goes into a span
 * unless {@link RecordContent} is `true`.
 *
 * @since 0.2.0
 * @module
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"
import * as ToolCall from "./ToolCall.js"
import type * as ToolResult from "./ToolResult.js"

/**
 * The attribute names svir writes, each in this one place. The `gen_ai.*` names are the GenAI
 * conventions'; `server.*`, `error.type` and `network.transport` the general ones; `mcp.*` and
 * `jsonrpc.*` the MCP conventions'.
 *
 * @since 0.2.0
 * @category models
 */
export const Attribute = {
  /** What the span does: {@link Operation}. */
  operationName: "gen_ai.operation.name",
  /** Who serves the model, from the wire it speaks: `openai` for Chat Completions. */
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  requestMaxTokens: "gen_ai.request.max_tokens",
  requestTemperature: "gen_ai.request.temperature",
  requestTopP: "gen_ai.request.top_p",
  requestSeed: "gen_ai.request.seed",
  requestStopSequences: "gen_ai.request.stop_sequences",
  requestPresencePenalty: "gen_ai.request.presence_penalty",
  requestFrequencyPenalty: "gen_ai.request.frequency_penalty",
  responseId: "gen_ai.response.id",
  responseModel: "gen_ai.response.model",
  /** An array: one reason per choice. */
  responseFinishReasons: "gen_ai.response.finish_reasons",
  usageInputTokens: "gen_ai.usage.input_tokens",
  usageOutputTokens: "gen_ai.usage.output_tokens",
  /** Content, only with {@link RecordContent}: the messages sent, as JSON. */
  inputMessages: "gen_ai.input.messages",
  /** Content, only with {@link RecordContent}: the answer, as JSON. */
  outputMessages: "gen_ai.output.messages",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  /** `function` for every svir tool. */
  toolType: "gen_ai.tool.type",
  /** Content, only with {@link RecordContent}: the call's arguments as the model wrote them. */
  toolCallArguments: "gen_ai.tool.call.arguments",
  /** Content, only with {@link RecordContent}: the result's text. */
  toolCallResult: "gen_ai.tool.call.result",
  /** The number of steps an `invoke_agent` span took (svir's own: the conventions have none). */
  agentSteps: "svir.agent.steps",
  serverAddress: "server.address",
  serverPort: "server.port",
  /** Why the operation failed: an error's kind, or {@link toolError}. */
  errorType: "error.type",
  networkTransport: "network.transport",
  mcpMethodName: "mcp.method.name",
  mcpSessionId: "mcp.session.id",
  jsonRpcRequestId: "jsonrpc.request.id",
} as const

/**
 * The values of `gen_ai.operation.name` svir writes.
 *
 * @since 0.2.0
 * @category models
 */
export const Operation = {
  chat: "chat",
  executeTool: "execute_tool",
  invokeAgent: "invoke_agent",
} as const

/**
 * The `error.type` of a call whose result is a failure (`isError`), as the MCP conventions name
 * it: the call itself went through, so it is no exception.
 *
 * @since 0.2.0
 * @category models
 */
export const toolError = "tool_error"

/**
 * Whether spans carry content: the messages of a model call, the arguments and result of a tool
 * call. `false` by default, since prompts and answers often hold personal data and the spans go
 * to a collector others read. Provide `true` to see them.
 *
 * @example
 * ```ts
 * import { GenAi } from "@svir/core"
 * import { Effect } from "effect"
 *
 * declare const program: Effect.Effect<void>
 * const withContent = program.pipe(Effect.provideService(GenAi.RecordContent, true))
 * ```
 *
 * @since 0.2.0
 * @category references
 */
export const RecordContent: Context.Reference<boolean> = Context.Reference<boolean>(
  "@svir/core/GenAi/RecordContent",
  { defaultValue: () => false },
)

/**
 * Whether the fiber has a tracer that exports spans: anything but Effect's default in-memory
 * one. Hot paths check it to skip the work of a span nobody can see (`Tracer.nativeTracer`'s
 * documented use).
 *
 * @since 0.2.0
 * @category tracing
 */
export const isTracing: Effect.Effect<boolean> = Effect.withFiber((fiber) =>
  Effect.succeed(fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer),
)

/**
 * A tool's name as a span carries it, in the span's name and in `gen_ai.tool.name` alike: cut as
 * `ToolCall.shownName` cuts a name the model wrote, so a call to a name of a megabyte makes no
 * span of a megabyte. The bridge's `tools/call {name}` span cuts the server's name with it too.
 *
 * @example
 * ```ts
 * import { GenAi } from "@svir/core"
 *
 * GenAi.spanToolName("lookup") // "lookup"
 * GenAi.spanToolName("x".repeat(20_007)).length // 65
 * ```
 *
 * @since 0.2.0
 * @category tracing
 */
export const spanToolName = (name: string): string => ToolCall.shownName(name)

/** A failed result, as the failure that ends its span with an error status; it carries no text. */
const failedResult = { name: "ToolError", message: toolError } as const

/**
 * Runs a toolbox's answer to `call` in an `execute_tool {name}` span with the call's name (cut by
 * {@link spanToolName}), id and type. A failed result (`isError`) sets `error.type` to
 * {@link toolError} and ends the span with an error status, whose message is only that type; the
 * answer itself is unchanged. The arguments and the result are recorded only with
 * {@link RecordContent}. With no tracer that exports, the answer runs as it is.
 *
 * @example
 * ```ts
 * import { GenAi, Toolbox, ToolResult } from "@svir/core"
 * import { Effect } from "effect"
 *
 * // A toolbox of your own gets the same spans as the registry's.
 * const echo = Toolbox.make({
 *   tools: [],
 *   call: (call) =>
 *     GenAi.executeTool(call, Effect.succeed(ToolResult.make(call.id, call.arguments))),
 * })
 * ```
 *
 * @since 0.2.0
 * @category tracing
 */
export const executeTool = <R>(
  call: ToolCall.ToolCall,
  answer: Effect.Effect<ToolResult.ToolResult, never, R>,
): Effect.Effect<ToolResult.ToolResult, never, R> =>
  Effect.withFiber((fiber) => {
    if (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) return answer
    const content = fiber.getRef(RecordContent)
    const name = spanToolName(call.name)
    let failed: ToolResult.ToolResult | undefined
    return Effect.useSpan<ToolResult.ToolResult, typeof failedResult, R>(
      `${Operation.executeTool} ${name}`,
      {
        kind: "internal",
        attributes: {
          [Attribute.operationName]: Operation.executeTool,
          [Attribute.toolName]: name,
          [Attribute.toolCallId]: call.id,
          [Attribute.toolType]: "function",
          ...(content ? { [Attribute.toolCallArguments]: call.arguments } : {}),
        },
      },
      (span) =>
        Effect.withParentSpan(answer, span, { captureStackTrace: false }).pipe(
          Effect.flatMap((result) => {
            if (content) span.attribute(Attribute.toolCallResult, result.content)
            if (!result.isError) return Effect.succeed(result)
            span.attribute(Attribute.errorType, toolError)
            failed = result
            return Effect.fail(failedResult)
          }),
        ),
    ).pipe(Effect.catch(() => Effect.succeed(failed!)))
  })
