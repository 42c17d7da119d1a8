import { type ToolCall, ToolResult } from "@svir/core"
import * as Content from "../Content.js"
import type { CallSettings } from "./callSettings.js"
import { cut } from "./cut.js"
import { outputProblem } from "./outputCheck.js"
import type { SchemaCheck } from "./schemaValidator.js"

/**
 * A failed result of a call: its text is as long as the server made it, so it is redacted whole,
 * then cut like a result's content.
 */
export const failedResult = (
  settings: CallSettings,
  call: ToolCall.ToolCall,
  text: string,
  failure: ToolResult.Failure,
): ToolResult.ToolResult => {
  const maxChars = settings.content.maxChars ?? Content.defaultMaxChars
  return ToolResult.error(call.id, cut(settings.redaction.text(text), maxChars), failure)
}

/**
 * The result of a call the server answered: a failed one when the structured content breaks the
 * tool's output schema (D42), else what `Content` reads, a failure's text redacted, as it may
 * quote what the server echoed of the request (D3). Throws what `Content.toToolResult` throws.
 */
export const answeredResult = (
  settings: CallSettings,
  call: ToolCall.ToolCall,
  result: Content.CallResult,
  check: SchemaCheck | undefined,
): ToolResult.ToolResult => {
  const problem = outputProblem(call.name, check, result)
  if (problem !== undefined) return failedResult(settings, call, problem, "handler_failed")
  const answer = Content.toToolResult(call.id, result, settings.content)
  return answer.isError ? { ...answer, content: settings.redaction.text(answer.content) } : answer
}
