import type * as Content from "../Content.js"
import { describe } from "./failure.js"
import type { SchemaCheck, SchemaValidator } from "./schemaValidator.js"

/** The check of each offered tool's structured content, by the server's name of the tool. */
export type OutputChecks = ReadonlyMap<string, OutputCheck>

/**
 * The check of a tool's structured content, compiled from its output schema at the tool's first
 * call, once (D50): `compiled` gives it, or throws why the schema cannot be compiled, each time.
 */
export interface OutputCheck {
  readonly compiled: () => SchemaCheck
}

/**
 * The check of a tool's output schema, to be compiled by the bridge's validator (RE2 for
 * patterns, bounded compiling, D38, D40) when the tool is first called, or why it cannot be
 * compiled, as far as that is told without compiling (D50). The schema is within the bounds.
 */
export const outputCheckOf = (
  validator: SchemaValidator,
  outputSchema: { readonly [key: string]: unknown },
): OutputCheck | string => {
  const refused = validator.refusal(outputSchema)
  if (refused !== undefined) return `its output schema cannot be compiled: ${refused}`
  let compiled: { readonly check: SchemaCheck } | { readonly error: unknown } | undefined
  return {
    compiled: () => {
      if (compiled === undefined) {
        try {
          compiled = { check: validator.compile(outputSchema) }
        } catch (error) {
          compiled = { error }
        }
      }
      if ("error" in compiled) throw compiled.error
      return compiled.check
    },
  }
}

/**
 * What is wrong with a result of a tool that has an output schema, or `undefined`: a result that
 * is not an error must carry structured content, and structured content must fit the schema.
 * These are the MCP specification's rules for `outputSchema`, as the SDK's `callTool` applies
 * them (D42).
 */
export const outputProblem = (
  name: string,
  check: SchemaCheck | undefined,
  result: Content.CallResult,
): string | undefined => {
  if (check === undefined) return undefined
  const structured = result.structuredContent
  if (structured === undefined || structured === null) {
    return result.isError === true
      ? undefined
      : `tool ${name} has an output schema but answered without structured content`
  }
  let checked: ReturnType<typeof check>
  try {
    checked = check(structured)
  } catch (error) {
    return `tool ${name} answered structured content that could not be checked: ${describe(error)}`
  }
  return checked.valid
    ? undefined
    : `tool ${name} answered structured content that does not match its output schema: ${checked.errorMessage ?? "no reason given"}`
}
