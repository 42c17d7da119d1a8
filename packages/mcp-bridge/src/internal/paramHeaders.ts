/**
 * SEP-2243 (2026-07-28, Streamable HTTP): a tool's input schema may mark a property with
 * `x-mcp-header`, and the client then mirrors that argument of each call into an
 * `Mcp-Param-<Name>` header; a tool whose marks break the rules is not offered. The SDK does both
 * in `listTools` and `callTool` only, which the bridge does not use (D20, D42), and exports
 * neither, so the rules are written here as the SDK 2.4 writes them (D51).
 */

/** One argument mirrored into a header: where it is in the arguments, and the header's name. */
export interface ParamHeader {
  readonly path: ReadonlyArray<string>
  readonly headerName: string
}

const mark = "x-mcp-header"

/** RFC 9110 `token`: no space, control character or delimiter. */
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** The types a marked property may have; `number` is not one (its text is not exact). */
const headerTypes = new Set(["string", "integer", "boolean"])

/** Keywords under which a mark is not reachable through `properties` alone, which is refused. */
const unreachable = [
  "items",
  "prefixItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions",
]

/** Of those, the keywords whose value maps names to schemas. */
const byName = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"])

/**
 * The headers a tool's input schema asks for, or why its marks are refused: a mark that is not a
 * token, on a property that is not a string, integer or boolean, not reached through a chain of
 * `properties`, or a name given twice (case aside). The schema's depth is bounded before (D4).
 */
export const paramHeadersOf = (
  inputSchema: unknown,
): { readonly headers: ReadonlyArray<ParamHeader> } | { readonly problem: string } => {
  const headers: Array<ParamHeader> = []
  const seen = new Map<string, string>()
  const visit = (
    node: unknown,
    path: ReadonlyArray<string>,
    reachable: boolean,
  ): string | undefined => {
    if (typeof node !== "object" || node === null) return undefined
    const schema = node as { readonly [key: string]: unknown }
    if (mark in schema) {
      const where = path.length === 0 ? "the schema itself" : `the property ${path.join(".")}`
      if (!reachable || path.length === 0) {
        return `${where} has x-mcp-header where only a chain of properties may`
      }
      const name = schema[mark]
      if (typeof name !== "string" || !token.test(name)) {
        return `${where} has an x-mcp-header that is not an HTTP token`
      }
      if (typeof schema.type !== "string" || !headerTypes.has(schema.type)) {
        return `${where} has x-mcp-header but is not a string, integer or boolean`
      }
      const before = seen.get(name.toLowerCase())
      if (before !== undefined) return `two properties have the x-mcp-header ${before}`
      seen.set(name.toLowerCase(), name)
      headers.push({ path, headerName: name })
    }
    const properties = schema.properties
    if (typeof properties === "object" && properties !== null) {
      for (const [key, child] of Object.entries(properties)) {
        const problem = visit(child, [...path, key], reachable)
        if (problem !== undefined) return problem
      }
    }
    for (const keyword of unreachable) {
      const sub = schema[keyword]
      if (sub === undefined) continue
      const branches = Array.isArray(sub)
        ? sub
        : byName.has(keyword) && typeof sub === "object" && sub !== null
          ? Object.values(sub)
          : [sub]
      for (const branch of branches) {
        const problem = visit(branch, [...path, keyword], false)
        if (problem !== undefined) return problem
      }
    }
    return undefined
  }
  const problem = visit(inputSchema, [], true)
  return problem === undefined ? { headers } : { problem }
}

const base64Prefix = "=?base64?"
const base64Suffix = "?="

/**
 * The `Mcp-Param-*` headers of one call: each marked argument as text (a boolean as `true` or
 * `false`), wrapped as `=?base64?...?=` when it is not plain visible ASCII without spaces at its
 * ends. An argument left out, `null`, or not of its kind sends no header.
 */
export const paramHeaders = (
  headers: ReadonlyArray<ParamHeader>,
  args: Readonly<Record<string, unknown>>,
): Record<string, string> => {
  const sent: Record<string, string> = {}
  for (const { path, headerName } of headers) {
    const text = asText(valueAt(args, path))
    if (text !== undefined) sent[`Mcp-Param-${headerName}`] = encoded(text)
  }
  return sent
}

const valueAt = (args: unknown, path: ReadonlyArray<string>): unknown => {
  let node = args
  for (const key of path) {
    if (typeof node !== "object" || node === null) return undefined
    node = (node as { readonly [key: string]: unknown })[key]
  }
  return node
}

const asText = (value: unknown): string | undefined => {
  if (typeof value === "string") return value
  if (typeof value === "boolean") return value ? "true" : "false"
  if (typeof value === "number" && Number.isFinite(value)) {
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? undefined : String(value)
  }
  return undefined
}

/** Whether a text cannot go into a header as it is. */
const needsBase64 = (text: string): boolean =>
  text.length === 0 ||
  (text.startsWith(base64Prefix) && text.endsWith(base64Suffix)) ||
  text !== text.trim() ||
  // Visible ASCII, space and tab only.
  /[^\x20-\x7e\t]/.test(text)

const encoded = (text: string): string =>
  needsBase64(text) ? `${base64Prefix}${Buffer.from(text).toString("base64")}${base64Suffix}` : text
