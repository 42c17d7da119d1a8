export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const keyed = new Set(["properties", "$defs", "definitions"])
const single = new Set(["items", "additionalProperties", "not"])
const listed = new Set(["anyOf", "oneOf", "allOf", "prefixItems"])

/** A copy of a JSON Schema node with `f` applied to each schema directly inside it. */
export const mapChildren = (
  node: Record<string, unknown>,
  f: (child: unknown) => unknown,
): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (keyed.has(key) && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, f(child)]))
    } else if ((single.has(key) || listed.has(key)) && Array.isArray(value)) {
      out[key] = value.map(f)
    } else if (single.has(key)) {
      out[key] = f(value)
    } else {
      out[key] = value
    }
  }
  return out
}

/** Whether a JSON Schema lets a value be `null` (a schema that says nothing lets anything be). */
export const allowsNull = (node: unknown): boolean => {
  if (!isRecord(node)) return true
  if (node.type === "null" || (Array.isArray(node.type) && node.type.includes("null"))) return true
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = node[key]
    if (Array.isArray(branches) && branches.some(allowsNull)) return true
  }
  return (
    !("type" in node) &&
    !("enum" in node) &&
    !("anyOf" in node) &&
    !("oneOf" in node) &&
    !("$ref" in node) &&
    !("const" in node)
  )
}

/**
 * Makes a function that removes `null` values from the fields a JSON Schema leaves optional and
 * does not let be `null`: the answer a strict-mode model gives for "left out". `undefined` when the
 * schema has no such field, so that nothing runs for it.
 */
export const nullsAsAbsent = (schema: unknown): ((value: unknown) => unknown) | undefined => {
  if (!isRecord(schema) || !isRecord(schema.properties)) return undefined
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  const absentWhenNull = new Set<string>()
  const nested = new Map<string, (value: unknown) => unknown>()
  for (const [name, child] of Object.entries(schema.properties)) {
    if (!required.has(name) && !allowsNull(child)) absentWhenNull.add(name)
    const inner = nullsAsAbsent(child)
    if (inner !== undefined) nested.set(name, inner)
  }
  if (absentWhenNull.size === 0 && nested.size === 0) return undefined
  return (value) => {
    if (!isRecord(value)) return value
    let out: Record<string, unknown> | undefined
    for (const name of Object.keys(value)) {
      const field = value[name]
      if (field === null && absentWhenNull.has(name)) {
        out ??= { ...value }
        delete out[name]
        continue
      }
      const inner = nested.get(name)
      if (inner === undefined) continue
      const cleaned = inner(field)
      if (cleaned !== field) {
        out ??= { ...value }
        out[name] = cleaned
      }
    }
    return out ?? value
  }
}
