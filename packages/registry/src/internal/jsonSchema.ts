import { Json } from "@svir/core"

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
    if (keyed.has(key) && Json.isObject(value)) {
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
  if (!Json.isObject(node)) return true
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

type Clean = (value: unknown) => unknown

/** The definitions a `$ref` of the root schema can name (`#/$defs/X`, `#/definitions/X`, `#`). */
const refTarget = (root: Record<string, unknown>, ref: string): unknown => {
  if (ref === "#") return root
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref)
  if (match === null) return undefined
  const definitions = root[match[1]!]
  return Json.isObject(definitions)
    ? definitions[match[2]!.replace(/~1/g, "/").replace(/~0/g, "~")]
    : undefined
}

/**
 * Makes a function that removes `null` values from the fields a JSON Schema leaves optional and
 * does not let be `null`: the answer a strict-mode model gives for "left out". It reaches objects
 * nested in properties, array items, a single object branch of `anyOf`/`oneOf`, and `$ref`s to the
 * root's definitions, since the strict form makes their optional fields nullable too. `undefined`
 * when the schema has no such field, so that nothing runs for it.
 */
export const nullsAsAbsent = (schema: unknown): Clean | undefined => {
  if (!Json.isObject(schema)) return undefined
  const root = schema
  // `null` marks a definition being built: a recursive schema reads it when the value is cleaned.
  const byRef = new Map<string, Clean | undefined | null>()
  const ofRef = (ref: string): Clean | undefined => {
    const known = byRef.get(ref)
    if (known === null) return (value) => byRef.get(ref)?.(value) ?? value
    if (byRef.has(ref)) return known
    byRef.set(ref, null)
    const made = of(refTarget(root, ref))
    byRef.set(ref, made)
    return made
  }
  const ofObject = (node: Record<string, unknown>, properties: Record<string, unknown>) => {
    const required = new Set(Array.isArray(node.required) ? node.required : [])
    const absentWhenNull = new Set<string>()
    const nested = new Map<string, Clean>()
    for (const [name, child] of Object.entries(properties)) {
      if (!required.has(name) && !allowsNull(child)) absentWhenNull.add(name)
      const inner = of(child)
      if (inner !== undefined) nested.set(name, inner)
    }
    if (absentWhenNull.size === 0 && nested.size === 0) return undefined
    return (value: unknown) => {
      if (!Json.isObject(value)) return value
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
  const ofItems = (items: unknown): Clean | undefined => {
    const inner = of(items)
    if (inner === undefined) return undefined
    return (value) => {
      if (!Array.isArray(value)) return value
      const cleaned = value.map(inner)
      return cleaned.some((item, i) => item !== value[i]) ? cleaned : value
    }
  }
  const of = (node: unknown): Clean | undefined => {
    if (!Json.isObject(node)) return undefined
    if (typeof node.$ref === "string") return ofRef(node.$ref)
    if (Json.isObject(node.properties)) return ofObject(node, node.properties)
    if (Json.isObject(node.items)) return ofItems(node.items)
    for (const key of ["anyOf", "oneOf"] as const) {
      const branches = node[key]
      if (!Array.isArray(branches)) continue
      // Only one branch to clean for: cleaning for one branch must not spoil a value of another.
      const cleaners = branches.map(of).filter((clean) => clean !== undefined)
      if (cleaners.length === 1) return cleaners[0]
    }
    return undefined
  }
  return of(root)
}

/** One key a closed object of the JSON Schema does not name. */
export interface UnknownKey {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

type KeyCheck = (value: unknown, path: ReadonlyArray<PropertyKey>, found: Array<UnknownKey>) => void

/** Enough unknown keys to tell the model what to fix; the walk stops there. */
const unknownKeyLimit = 8

const canBeObject = (node: unknown): boolean => {
  if (!Json.isObject(node)) return true
  const type = node.type
  if (typeof type === "string") return type === "object"
  if (Array.isArray(type)) return type.includes("object")
  return !("const" in node) && !("enum" in node)
}

/**
 * Makes a function that lists the keys a value has where the JSON Schema has a closed object
 * (`additionalProperties: false`) that does not name them: what the model was told it may not
 * send. It follows properties, `additionalProperties` schemas, array items and tuples, `$ref`s to
 * the root's definitions, and `anyOf`/`oneOf` when only one branch can be an object. `undefined`
 * when the schema has no closed object, so that nothing runs for it. The value is JSON read with
 * a bound on nesting, which bounds the walk.
 */
export const unknownKeys = (
  schema: unknown,
): ((value: unknown) => ReadonlyArray<UnknownKey>) | undefined => {
  if (!Json.isObject(schema)) return undefined
  const root = schema
  // `null` marks a definition being built: a recursive schema reads it when a value is walked.
  const byRef = new Map<string, KeyCheck | undefined | null>()
  const ofRef = (ref: string, seen: ReadonlySet<string>): KeyCheck | undefined => {
    const known = byRef.get(ref)
    if (known === null) return (value, path, found) => byRef.get(ref)?.(value, path, found)
    if (byRef.has(ref)) return known
    const target = refTarget(root, ref)
    // A `$ref` that leads only to itself describes nothing to check.
    if (Json.isObject(target) && typeof target.$ref === "string") {
      return seen.has(target.$ref) ? undefined : ofRef(target.$ref, new Set([...seen, ref]))
    }
    byRef.set(ref, null)
    const made = of(target)
    byRef.set(ref, made)
    return made
  }
  const ofObject = (node: Record<string, unknown>): KeyCheck | undefined => {
    const properties = Json.isObject(node.properties) ? node.properties : {}
    const closed = node.additionalProperties === false && !("patternProperties" in node)
    const nested = new Map<string, KeyCheck>()
    for (const [name, child] of Object.entries(properties)) {
      const inner = of(child)
      if (inner !== undefined) nested.set(name, inner)
    }
    const other = closed ? undefined : of(node.additionalProperties)
    if (!closed && nested.size === 0 && other === undefined) return undefined
    return (value, path, found) => {
      if (!Json.isObject(value)) return
      for (const key of Object.keys(value)) {
        if (found.length >= unknownKeyLimit) return
        const named = Object.hasOwn(properties, key)
        if (closed && !named) {
          found.push({
            path: [...path, key],
            message: `Unexpected key with value ${JSON.stringify(value[key])}`,
          })
          continue
        }
        const inner = named ? nested.get(key) : other
        inner?.(value[key], [...path, key], found)
      }
    }
  }
  const ofItems = (node: Record<string, unknown>): KeyCheck | undefined => {
    const tuple = Array.isArray(node.prefixItems)
      ? node.prefixItems
      : Array.isArray(node.items)
        ? node.items
        : []
    const leading = tuple.map(of)
    const rest = Array.isArray(node.items) ? of(node.additionalItems) : of(node.items)
    if (rest === undefined && leading.every((check) => check === undefined)) return undefined
    return (value, path, found) => {
      if (!Array.isArray(value)) return
      for (let i = 0; i < value.length && found.length < unknownKeyLimit; i++) {
        ;(i < leading.length ? leading[i] : rest)?.(value[i], [...path, i], found)
      }
    }
  }
  const of = (node: unknown): KeyCheck | undefined => {
    if (!Json.isObject(node)) return undefined
    if (typeof node.$ref === "string") return ofRef(node.$ref, new Set())
    if (Json.isObject(node.properties) || "additionalProperties" in node) return ofObject(node)
    if ("items" in node || "prefixItems" in node) return ofItems(node)
    for (const key of ["anyOf", "oneOf"] as const) {
      const branches = node[key]
      if (!Array.isArray(branches)) continue
      const objects = branches.filter(canBeObject)
      return objects.length === 1 ? of(objects[0]) : undefined
    }
    return undefined
  }
  const check = of(root)
  if (check === undefined) return undefined
  return (value) => {
    const found: Array<UnknownKey> = []
    check(value, [], found)
    return found
  }
}
