import { Json } from "@svir/core"

/**
 * How much of a server's schema the bridge compiles (D40). Real servers stay far
 * below: the largest schema of server-everything, server-filesystem and server-memory has 17
 * subschemas, nests 9 levels and holds fewer than 100 values. At the bounds one compile with Ajv
 * takes about 0.2 s (an object of some 680 properties); 12 000 properties took 4 to 11 s.
 */
export const schemaBounds = {
  /** JSON values of the schema's text, descriptions and enum members included. */
  values: 2_048,
  /** Levels of objects and arrays. */
  depth: 32,
  /** Subschemas that apply to a value, each `$ref` counted as what it points to. */
  subschemas: 2_048,
} as const

/**
 * Why the bridge does not compile a server's schema, or `undefined` when it does: it is larger
 * than {@link schemaBounds}, or its `$ref`s could make checking a value take exponential time
 * (a `$ref` the bridge cannot follow, a schema that refers to itself in more than one place or
 * without going into the value).
 */
export const schemaProblem = (schema: unknown): string | undefined =>
  sizeProblem(schema) ?? refProblem(schema)

/** The whole text, counted without recursion: the schema is not yet known to be shallow. */
const sizeProblem = (schema: unknown): string | undefined => {
  let values = 0
  // Two stacks side by side, not one of pairs: a listing walks every output schema (D50).
  const stack: Array<unknown> = [schema]
  const depths: Array<number> = [1]
  while (stack.length > 0) {
    const value = stack.pop()
    const depth = depths.pop()!
    values += 1
    if (values > schemaBounds.values) {
      return `it holds more than ${schemaBounds.values} JSON values, more than the bridge compiles`
    }
    if (typeof value !== "object" || value === null) continue
    if (depth > schemaBounds.depth) {
      return `it nests deeper than ${schemaBounds.depth} levels, more than the bridge compiles`
    }
    for (const child of Object.values(value)) {
      stack.push(child)
      depths.push(depth + 1)
    }
  }
  return undefined
}

/**
 * Where a keyword's subschemas apply: to the value itself (`undefined`), to an item (`[]`), to
 * the property of the key under which each stands (`"key"`), or to any property (`{*}`). A label
 * names the part of the value a step goes into.
 */
const partOf = (keyword: string): "in place" | "[]" | "{key}" | "{*}" | undefined => {
  switch (keyword) {
    case "allOf":
    case "anyOf":
    case "oneOf":
    case "not":
    case "if":
    case "then":
    case "else":
    case "dependentSchemas":
    case "dependencies":
      return "in place"
    case "items":
    case "prefixItems":
    case "additionalItems":
    case "contains":
    case "unevaluatedItems":
      return "[]"
    case "properties":
      return "{key}"
    case "patternProperties":
    case "additionalProperties":
    case "unevaluatedProperties":
    case "propertyNames":
      return "{*}"
    default:
      return undefined
  }
}

const mapKeywords = new Set(["properties", "patternProperties", "dependentSchemas", "dependencies"])

/** A keyword's subschemas, each with the label of the step into it. */
const subschemasOf = (
  keyword: string,
  part: string,
  value: unknown,
): ReadonlyArray<readonly [string, unknown]> => {
  if (mapKeywords.has(keyword)) {
    if (!Json.isObject(value)) return []
    return Object.entries(value).map(([key, child]) => [
      part === "{key}" ? JSON.stringify(key) : part,
      child,
    ])
  }
  return Array.isArray(value) ? value.map((child) => [part, child]) : [[part, value]]
}

/** Whether two steps may go into the same part of a value: a `{*}` meets any property. */
const labelsMeet = (a: string, b: string): boolean =>
  a === b || (a !== "[]" && b !== "[]" && (a === "{*}" || b === "{*}"))

/** Whether one path of steps may go where a start of the other goes. */
const pathsMeet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (!labelsMeet(a[i]!, b[i]!)) return false
  }
  return true
}

/** A `$ref` back to a subschema being walked: its target, its steps from there, and what else was being walked. */
interface BackRef {
  readonly target: object
  readonly path: ReadonlyArray<string>
  readonly within: ReadonlySet<object>
}

class Refused extends Error {}

/**
 * The schema walked as Ajv applies it, each `$ref` followed to its target. A `$ref` back to a
 * subschema being walked makes a cycle; checking a value stays linear in the value when no two
 * ways round the cycles can reach the same part of the value (each part then meets each
 * subschema a bounded number of times). So the back `$ref`s to one target must go into the value
 * along paths of which none may lead where a start of another leads (a binary tree's `left` and
 * `right`, a JSON value's items and properties), and no cycle may run inside another. A `$ref`
 * back in place, or two that may reach the same part (`anyOf` of two `$ref`s to the same
 * schema), could double the work at each level of the value, and are refused.
 */
const refProblem = (root: unknown): string | undefined => {
  let subschemas = 0
  const path: Array<string> = []
  // The targets being walked, each with the length of the path when it was entered.
  const entered = new Map<object, number>()
  const backRefs = new Map<object, BackRef>()
  const walk = (schema: unknown): void => {
    if (!Json.isObject(schema)) return
    if (schema !== root && typeof schema.$id === "string") {
      throw new Refused("it has a nested $id, which the bridge does not follow")
    }
    subschemas += 1
    if (subschemas > schemaBounds.subschemas) {
      throw new Refused(
        `it has more than ${schemaBounds.subschemas} subschemas (counting each $ref as what it points to), more than the bridge compiles`,
      )
    }
    for (const [keyword, value] of Object.entries(schema)) {
      if (keyword === "$ref") {
        followRef(schema, value)
        continue
      }
      const part = partOf(keyword)
      if (part === undefined) continue
      for (const [label, child] of subschemasOf(keyword, part, value)) step(label, child)
    }
  }
  const step = (label: string, schema: unknown): void => {
    if (label === "in place") {
      walk(schema)
      return
    }
    path.push(label)
    walk(schema)
    path.pop()
  }
  const followRef = (holder: object, ref: unknown): void => {
    const target = typeof ref === "string" ? resolvePointer(root, ref) : undefined
    if (target === undefined) {
      throw new Refused(`its $ref ${JSON.stringify(ref)} is not a "#/..." pointer into the schema`)
    }
    const enteredAt = entered.get(target)
    if (enteredAt === undefined) {
      entered.set(target, path.length)
      walk(target)
      entered.delete(target)
      return
    }
    if (enteredAt === path.length) {
      throw new Refused(`its $ref ${JSON.stringify(ref)} refers to itself in place`)
    }
    if (!backRefs.has(holder)) {
      backRefs.set(holder, { target, path: path.slice(enteredAt), within: new Set(entered.keys()) })
    }
  }
  try {
    if (!Json.isObject(root)) return undefined
    entered.set(root, 0)
    walk(root)
    return cycleProblem([...backRefs.values()])
  } catch (error) {
    if (error instanceof Refused) return error.message
    throw error
  }
}

/**
 * The first problem `problemOf` finds in a subschema of `root`, or `undefined`: each subschema
 * that applies to a value (through the keywords Ajv applies, and each `$ref`'s target) is looked
 * at once. Run on a schema {@link schemaProblem} took, whose `$ref`s are pointers into it.
 */
export const subschemaProblem = (
  root: unknown,
  problemOf: (schema: { readonly [key: string]: unknown }) => string | undefined,
): string | undefined => {
  const seen = new Set<object>()
  const stack: Array<unknown> = [root]
  while (stack.length > 0) {
    const schema = stack.pop()
    if (!Json.isObject(schema) || seen.has(schema)) continue
    seen.add(schema)
    const problem = problemOf(schema)
    if (problem !== undefined) return problem
    for (const [keyword, value] of Object.entries(schema)) {
      if (keyword === "$ref") {
        if (typeof value === "string") stack.push(resolvePointer(root, value))
        continue
      }
      const part = partOf(keyword)
      if (part === undefined) continue
      for (const [, child] of subschemasOf(keyword, part, value)) stack.push(child)
    }
  }
  return undefined
}

/** Why the cycles of {@link refProblem} could reach one part of a value twice, if they could. */
const cycleProblem = (backRefs: ReadonlyArray<BackRef>): string | undefined => {
  for (const [i, a] of backRefs.entries()) {
    for (const b of backRefs.slice(i + 1)) {
      if (
        a.target === b.target
          ? pathsMeet(a.path, b.path)
          : a.within.has(b.target) || b.within.has(a.target)
      ) {
        return "it refers back to itself along two ways that may meet in one value, which could make checking a value take exponential time"
      }
    }
  }
  return undefined
}

/** The object a `#` or `#/a/b` pointer names in the document (RFC 6901, URI-encoded). */
const resolvePointer = (root: unknown, ref: string): object | undefined => {
  if (ref !== "#" && !ref.startsWith("#/")) return undefined
  let target: unknown = root
  for (const token of ref === "#" ? [] : ref.slice(2).split("/")) {
    let key: string
    try {
      key = decodeURIComponent(token).replaceAll("~1", "/").replaceAll("~0", "~")
    } catch {
      return undefined
    }
    if (typeof target !== "object" || target === null || !Object.hasOwn(target, key)) {
      return undefined
    }
    target = (target as { readonly [key: string]: unknown })[key]
  }
  return typeof target === "object" && target !== null ? target : undefined
}
