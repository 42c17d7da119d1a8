/**
 * A tool's or an answer's JSON Schema made fit to send: local `$ref`s inlined, and the strict
 * form that `strict: true` asks for (OpenAI's structured outputs). Each change is reported, so
 * that a caller can log what is sent in place of what was written; what cannot be changed without
 * changing what the schema accepts is an Unsupported error that says where and why
 * (DECISIONS.md, D15).
 *
 * @since 0.2.0
 * @module
 */
import * as Effect from "effect/Effect"
import * as Json from "./Json.js"
import * as SvirError from "./SvirError.js"
import type * as Tool from "./Tool.js"

/**
 * One thing changed, or one thing wrong: where, as a JSON Pointer into the schema as it was given
 * (`""` for the root, `"/properties/tags/items"`), and what and why, in words for a log.
 *
 * @since 0.2.0
 * @category models
 */
export interface Change {
  readonly path: string
  readonly message: string
}

/**
 * A schema made fit, and every change that made it so.
 *
 * @since 0.2.0
 * @category models
 */
export interface Fitted {
  readonly schema: Tool.JsonSchema
  readonly changes: ReadonlyArray<Change>
}

/**
 * The most schema nodes inlining may make. Definitions used in several places are copied to each;
 * a chain of definitions that each use the next twice doubles at every step, so the copies are
 * counted, and a schema that would grow past this is refused (D16).
 *
 * @since 0.2.0
 * @category models
 */
export const maxInlinedNodes = 10_000

/**
 * The string formats strict mode takes (OpenAI's structured outputs guide). Any other format is
 * moved into the description (D17).
 *
 * @since 0.2.0
 * @category models
 */
export const strictFormats: ReadonlySet<string> = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
])

// Where a JSON Schema holds schemas. Every other keyword holds data (enum, const, default,
// examples, required), which is never walked into.
const singleKeywords = new Set([
  "additionalItems",
  "additionalProperties",
  "contains",
  "contentSchema",
  "else",
  "if",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
])
const listKeywords = new Set(["allOf", "anyOf", "oneOf", "prefixItems"])
const mapKeywords = new Set([
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies",
  "patternProperties",
  "properties",
])
const definitionKeywords = new Set(["$defs", "definitions"])

/** Keywords that describe and never constrain: they stay where they are in every form. */
const annotationKeywords = new Set([
  "$comment",
  "default",
  "description",
  "examples",
  "readOnly",
  "title",
  "writeOnly",
])

/**
 * D17: keywords strict mode does not take whose removal only lets more values through. They are
 * dropped: the answer is still checked against the schema it was written with.
 */
const loosenedKeywords = [
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
  "minProperties",
  "maxProperties",
  "propertyNames",
  "unevaluatedItems",
] as const

/**
 * D17: keywords strict mode does not take whose removal would change the values a schema
 * accepts in a way a check afterwards cannot undo (keys an object may hold, tuple positions).
 */
const refusedKeywords: ReadonlyMap<string, string> = new Map([
  ["patternProperties", "it names keys by a pattern, and strict mode closes every object"],
  ["dependentSchemas", "it adds keys under a condition, and strict mode closes every object"],
  ["dependencies", "it adds keys under a condition, and strict mode closes every object"],
  ["prefixItems", "strict mode has no tuples: give the array one `items` schema"],
  ["additionalItems", "strict mode has no tuples: give the array one `items` schema"],
  ["$dynamicRef", "strict mode takes only `$ref`s to this schema's definitions"],
  ["$recursiveRef", "strict mode takes only `$ref`s to this schema's definitions"],
])

/** Every keyword strict mode refuses, for {@link strictProblems}. */
const notStrictKeywords = new Set<string>([
  ...loosenedKeywords,
  ...refusedKeywords.keys(),
  "allOf",
  "oneOf",
  "default",
])

/** How many problems an error's message lists; the rest are counted. */
const listedProblems = 5

const escapeToken = (token: string): string => token.replaceAll("~", "~0").replaceAll("/", "~1")

const below = (path: string, ...tokens: ReadonlyArray<string | number>): string =>
  tokens.reduce<string>((at, token) => `${at}/${escapeToken(String(token))}`, path)

/** Where a pointer is, as a `$ref` would say it. */
const shown = (path: string): string => `#${path}`

/**
 * The JSON Pointer a `$ref` names in this document (`#`, `#/$defs/Node`), or `undefined` when it
 * names another document or an anchor.
 */
const localPointer = (ref: string): string | undefined => {
  if (!ref.startsWith("#")) return undefined
  let pointer: string
  try {
    pointer = decodeURIComponent(ref.slice(1))
  } catch {
    return undefined
  }
  return pointer === "" || pointer.startsWith("/") ? pointer : undefined
}

/** The value at a JSON Pointer, through own keys only (never `__proto__` and the like). */
const resolve = (root: unknown, pointer: string): unknown => {
  if (pointer === "") return root
  let at: unknown = root
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~")
    if (Array.isArray(at)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined
      at = at[Number(token)]
    } else if (Json.isObject(at) && Object.hasOwn(at, token)) {
      at = at[token]
    } else {
      return undefined
    }
  }
  return at
}

const isSchema = (value: unknown): boolean => typeof value === "boolean" || Json.isObject(value)

/**
 * A copy of a schema node with `f` applied to each schema directly inside it, given its pointer.
 * Keywords for which `keep` is false are left out.
 */
const mapChildren = (
  node: { readonly [key: string]: unknown },
  path: string,
  f: (child: unknown, path: string, keyword: string) => unknown,
  keep: (keyword: string) => boolean = () => true,
): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (!keep(key)) continue
    if (mapKeywords.has(key) && Json.isObject(value)) {
      const entries: Record<string, unknown> = {}
      for (const [name, child] of Object.entries(value)) {
        // Draft 7 `dependencies` also holds lists of names, which are not schemas.
        entries[name] = isSchema(child) ? f(child, below(path, key, name), key) : child
      }
      out[key] = entries
    } else if ((listKeywords.has(key) || key === "items") && Array.isArray(value)) {
      out[key] = value.map((child, i) =>
        isSchema(child) ? f(child, below(path, key, i), key) : child,
      )
    } else if ((singleKeywords.has(key) || key === "items") && isSchema(value)) {
      out[key] = f(value, below(path, key), key)
    } else {
      out[key] = value
    }
  }
  return out
}

/**
 * A copy of a schema with `f` applied to every schema in it, innermost first, each given its JSON
 * Pointer: the schema itself and those under `properties`, `items`, `anyOf`, `$defs` and the other
 * keywords that hold schemas, never the data of `enum`, `const`, `default` or `examples`. Schemas
 * nested deeper than `Json.maxDepth` levels are left as they are. For a codec's own rules about
 * schemas.
 *
 * @example
 * ```ts
 * import { JsonSchema } from "@svir/core"
 *
 * const schema = {
 *   type: "object",
 *   properties: { tags: { type: "array", items: { type: "string" } } },
 * }
 * const paths: Array<string> = []
 * JsonSchema.mapNodes(schema, (node, path) => {
 *   paths.push(path)
 *   return node
 * })
 * paths // ["/properties/tags/items", "/properties/tags", ""]
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const mapNodes = (
  schema: Tool.JsonSchema,
  f: (node: Tool.JsonSchema, path: string) => Tool.JsonSchema,
): Tool.JsonSchema => {
  const walk = (node: unknown, path: string, depth: number): unknown =>
    !Json.isObject(node) || depth > Json.maxDepth
      ? node
      : f(
          mapChildren(node, path, (child, at) => walk(child, at, depth + 1)),
          path,
        )
  return walk(schema, "", 0) as Tool.JsonSchema
}

/** What a walk found: the changes made and the problems that stop it. */
class Report {
  readonly changes: Array<Change> = []
  readonly problems: Array<Change> = []
  change(path: string, message: string): void {
    this.changes.push({ path, message })
  }
  problem(path: string, message: string): void {
    this.problems.push({ path, message })
  }
}

const tooDeep = (schema: unknown, report: Report): boolean => {
  if (Json.valueDepth(schema, Json.maxDepth) <= Json.maxDepth) return false
  report.problem("", `the schema nests deeper than ${Json.maxDepth} levels, or refers to itself`)
  return true
}

const outcome = (
  what: string,
  schema: unknown,
  report: Report,
): Effect.Effect<Fitted, SvirError.SvirError> => {
  const { problems, changes } = report
  if (problems.length === 0) {
    return Effect.succeed({ schema: schema as Tool.JsonSchema, changes })
  }
  const listed = problems.slice(0, listedProblems).map((p) => `at ${shown(p.path)}: ${p.message}`)
  if (problems.length > listedProblems) listed.push(`and ${problems.length - listedProblems} more`)
  return Effect.fail(SvirError.make("Unsupported", `${what}: ${listed.join("; ")}`))
}

/**
 * The keywords of a `$ref` node other than the `$ref` itself, applied over what it names. Since
 * JSON Schema 2019-09 they hold together with the target (draft 7 ignored them); annotations at
 * the `$ref` win, being the more particular; a validation keyword the target also has, with
 * another value, keeps both through `allOf` (D16).
 */
const overTarget = (target: unknown, siblings: Record<string, unknown>): unknown => {
  if (Object.keys(siblings).length === 0) return target
  if (target === true) return siblings
  if (!Json.isObject(target)) return target
  const clash = Object.keys(siblings).some(
    (key) =>
      !annotationKeywords.has(key) &&
      key in target &&
      JSON.stringify(target[key]) !== JSON.stringify(siblings[key]),
  )
  if (!clash) return { ...target, ...siblings }
  const annotations: Record<string, unknown> = {}
  const constraints: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(siblings)) {
    ;(annotationKeywords.has(key) ? annotations : constraints)[key] = value
  }
  return { ...annotations, allOf: [target, constraints] }
}

const inlineInto = (root: Tool.JsonSchema, report: Report): unknown => {
  let nodes = 0
  let overgrown = false
  const droppedAt = new Set<string>()
  // `sources`: the pointers of the definitions being inlined around this node; `""`, the root, is
  // always one. A `$ref` to one of them would inline it inside itself, without end.
  const walk = (
    node: unknown,
    path: string,
    depth: number,
    sources: ReadonlyArray<string>,
  ): unknown => {
    if (overgrown) return node
    if (++nodes > maxInlinedNodes || depth > Json.maxDepth) {
      overgrown = true
      report.problem(
        path,
        nodes > maxInlinedNodes
          ? `inlining its $refs would make the schema larger than ${maxInlinedNodes} nodes`
          : `inlining its $refs would make the schema nest deeper than ${Json.maxDepth} levels`,
      )
      return node
    }
    if (!Json.isObject(node)) return node
    const visit = (child: unknown, at: string) => walk(child, at, depth + 1, sources)
    const keep = (key: string) => {
      if (!definitionKeywords.has(key)) return true
      if (!droppedAt.has(path)) {
        droppedAt.add(path)
        report.change(path, `dropped ${key}: every $ref to it is inlined`)
      }
      return false
    }
    for (const keyword of ["$dynamicRef", "$recursiveRef"]) {
      if (keyword in node) {
        report.problem(path, `${keyword} cannot be inlined: only "#/..." $refs can`)
      }
    }
    if (typeof node.$ref !== "string") return mapChildren(node, path, visit, keep)
    const ref = node.$ref
    const pointer = localPointer(ref)
    const target = pointer === undefined ? undefined : resolve(root, pointer)
    const { $ref: _ref, ...rest } = node
    const siblings = mapChildren(rest, path, visit, keep)
    if (pointer === undefined) {
      report.problem(path, `$ref ${JSON.stringify(ref)} names another document or an anchor`)
      return node
    }
    if (!isSchema(target)) {
      report.problem(path, `$ref ${JSON.stringify(ref)} names nothing in this schema`)
      return node
    }
    if (sources.includes(pointer)) {
      report.problem(
        path,
        `$ref ${JSON.stringify(ref)} is recursive (it is used inside what it names), so it cannot be inlined`,
      )
      return node
    }
    report.change(path, `inlined $ref ${JSON.stringify(ref)}`)
    // A followed `$ref` counts as a level: a chain of them would otherwise recurse once a link,
    // past the stack, with `sources` growing as it goes (D22).
    return overTarget(walk(target, path, depth + 1, [...sources, pointer]), siblings)
  }
  return walk(root, "", 0, [""])
}

/**
 * Replaces every local `$ref` with a copy of what it names, and drops the definitions
 * (`$defs`, `definitions`), for servers that do not follow references (Kimi refuses them, other
 * servers and many models read `$ref` as text). Keywords beside a `$ref` are kept over the copy.
 * Fails with an Unsupported error that says where, for a `$ref` that is recursive, names another
 * document, names nothing, or would grow the schema past {@link maxInlinedNodes} nodes or
 * `Json.maxDepth` levels.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { JsonSchema } from "@svir/core"
 *
 * const { schema, changes } = Effect.runSync(
 *   JsonSchema.inline({
 *     type: "object",
 *     properties: { from: { $ref: "#/$defs/Place" }, to: { $ref: "#/$defs/Place" } },
 *     $defs: { Place: { type: "string" } },
 *   }),
 * )
 * schema.properties // { from: { type: "string" }, to: { type: "string" } }
 * changes.length // 3
 * ```
 *
 * @since 0.2.0
 * @category fitting
 */
export const inline = (schema: Tool.JsonSchema): Effect.Effect<Fitted, SvirError.SvirError> =>
  Effect.suspend(() => {
    const report = new Report()
    const inlined = tooDeep(schema, report) ? schema : inlineInto(schema, report)
    return outcome("the schema cannot be inlined", inlined, report)
  })

const typeIncludes = (node: { readonly [key: string]: unknown }, type: string): boolean =>
  node.type === type || (Array.isArray(node.type) && node.type.includes(type))

const isObjectNode = (node: { readonly [key: string]: unknown }): boolean =>
  typeIncludes(node, "object") || "properties" in node || "additionalProperties" in node

const hasShape = (node: { readonly [key: string]: unknown }): boolean =>
  "type" in node || "enum" in node || "const" in node || "anyOf" in node || "$ref" in node

/** Whether a schema that is not a `$ref` takes `null` itself, before its `anyOf` branches. */
const takesNullItself = (node: { readonly [key: string]: unknown }): boolean =>
  !hasShape(node) ||
  typeIncludes(node, "null") ||
  (Array.isArray(node.enum) && node.enum.includes(null)) ||
  ("const" in node && node.const === null)

/**
 * Whether a schema of `root` takes `null`, following `$ref`s to its definitions: a schema takes
 * it when one it reaches through `$ref`s and `anyOf` branches does. A `$ref` that cannot be
 * followed, or that comes back to one already followed, counts as not taking it. What each
 * definition takes is found once for the document, without recursion: asked for every property
 * of an object, a chain of definitions is walked once, not once a property (D22).
 */
const nullTaker = (root: unknown): ((node: unknown) => boolean) => {
  const known = new Map<string, boolean>()
  /** Whether a schema takes null without following a `$ref`; the pointers of those it meets. */
  const scan = (node: unknown, refs: Array<string>): boolean => {
    const pending = [node]
    while (pending.length > 0) {
      const at = pending.pop()
      if (at === true) return true
      if (!Json.isObject(at)) continue
      if (typeof at.$ref === "string") {
        const pointer = localPointer(at.$ref)
        if (pointer !== undefined) refs.push(pointer)
      } else if (takesNullItself(at)) {
        return true
      } else if (Array.isArray(at.anyOf)) {
        for (const branch of at.anyOf) pending.push(branch)
      }
    }
    return false
  }
  /** Settles every definition reachable from `pointers`: the graph of `$ref`s, then null back. */
  const settle = (pointers: ReadonlyArray<string>): void => {
    const fresh = new Set(pointers.filter((pointer) => !known.has(pointer)))
    const pending = [...fresh]
    const users = new Map<string, Array<string>>()
    const taking: Array<string> = []
    while (pending.length > 0) {
      const pointer = pending.pop()!
      const refs: Array<string> = []
      if (scan(resolve(root, pointer), refs)) {
        taking.push(pointer)
        continue
      }
      for (const ref of refs) {
        if (known.get(ref) === true) taking.push(pointer)
        if (known.has(ref)) continue
        const using = users.get(ref)
        if (using === undefined) users.set(ref, [pointer])
        else using.push(pointer)
        if (!fresh.has(ref)) {
          fresh.add(ref)
          pending.push(ref)
        }
      }
    }
    const takes = new Set(taking)
    while (taking.length > 0) {
      for (const user of users.get(taking.pop()!) ?? []) {
        if (takes.has(user)) continue
        takes.add(user)
        taking.push(user)
      }
    }
    for (const pointer of fresh) known.set(pointer, takes.has(pointer))
  }
  return (node) => {
    const refs: Array<string> = []
    if (scan(node, refs)) return true
    settle(refs)
    return refs.some((pointer) => known.get(pointer) === true)
  }
}

const scalarTypes = new Set(["string", "number", "integer", "boolean"])

/**
 * The schema that also takes `null`: a scalar type gains `"null"` in a type list, as zod and
 * OpenAI's own examples write it; anything else (objects, arrays, enums, `$ref`s) becomes one
 * branch of an `anyOf` beside `{ "type": "null" }`, its description and title kept outside.
 */
const nullable = (node: Record<string, unknown>): Record<string, unknown> => {
  const plain = !("enum" in node) && !("const" in node) && !("anyOf" in node)
  if (plain && typeof node.type === "string" && scalarTypes.has(node.type)) {
    return { ...node, type: [node.type, "null"] }
  }
  if (plain && Array.isArray(node.type) && node.type.every((type) => scalarTypes.has(type))) {
    return { ...node, type: [...node.type, "null"] }
  }
  const { description, title, ...rest } = node
  if (Object.keys(rest).length === 1 && Array.isArray(rest.anyOf)) {
    return { ...node, anyOf: [...rest.anyOf, { type: "null" }] }
  }
  return {
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    anyOf: [rest, { type: "null" }],
  }
}

const withNote = (node: Record<string, unknown>, note: string): void => {
  node.description = typeof node.description === "string" ? `${node.description} ${note}` : note
}

/** One `allOf` branch merged into its node, when no keyword of one constrains the other's. */
const mergedAllOf = (node: Record<string, unknown>): Record<string, unknown> | undefined => {
  const branches = node.allOf
  if (!Array.isArray(branches) || branches.length !== 1 || !Json.isObject(branches[0])) {
    return undefined
  }
  const branch = branches[0]
  const { allOf: _allOf, ...rest } = node
  const overlap = Object.keys(branch).some((key) => key in rest && !annotationKeywords.has(key))
  return overlap ? undefined : { ...branch, ...rest }
}

const strictInto = (input: Tool.JsonSchema, report: Report): unknown => {
  let root: Record<string, unknown> = { ...input }
  if (typeof root.$ref === "string") {
    // The root must be an object itself: a root that only names its definition (Effect Schema
    // with an identifier does this) is replaced by what it names, keeping the definitions.
    const ref = root.$ref
    const pointer = localPointer(ref)
    const target = pointer === undefined || pointer === "" ? undefined : resolve(root, pointer)
    if (!Json.isObject(target) || typeof target.$ref === "string") {
      report.problem("", `the root's $ref ${JSON.stringify(ref)} does not name an object schema`)
      return root
    }
    const { $ref: _ref, ...rest } = root
    root = { ...target, ...rest }
    report.change("", `replaced the root's $ref ${JSON.stringify(ref)} with what it names`)
  }
  const merged = "allOf" in root ? mergedAllOf(root) : undefined
  if (merged !== undefined) {
    root = merged
    report.change("", "merged the one branch of allOf into the root: strict mode has no allOf")
  }
  if (!hasShape(root) && !isObjectNode(root)) {
    root = { ...root, type: "object", properties: {} }
    report.change("", "an empty root schema is sent as an object with no properties")
  }
  if (root.type === undefined && isObjectNode(root)) {
    root = { type: "object", ...root }
    report.change("", 'added type "object" to the root, which has properties')
  }
  if (root.type !== "object") {
    report.problem("", `the root must be an object (type "object"), not ${describeType(root)}`)
    return root
  }
  for (const union of ["anyOf", "oneOf"]) {
    if (union in root) {
      report.problem(
        "",
        `the root must be one object, not a union (${union}): make the branches one object, with a field that says which`,
      )
    }
  }
  if (!("properties" in root)) {
    root = { ...root, properties: {} }
    report.change("", "the root object has no properties: sent as an object with none")
  }
  const takesNull = nullTaker(root)
  const walk = (node: unknown, path: string, keyword?: string): unknown => {
    // `additionalProperties: false` closes its object; it is not a schema of its own.
    if (node === false && keyword === "additionalProperties") return node
    if (typeof node === "boolean") {
      report.problem(
        path,
        node
          ? "`true` accepts any value; strict mode needs a type"
          : "`false` accepts no value; strict mode cannot say that",
      )
      return node
    }
    if (!Json.isObject(node)) {
      report.problem(path, "a schema must be an object")
      return node
    }
    let out: Record<string, unknown> = { ...node }
    if ("allOf" in out) {
      const merged = mergedAllOf(out)
      if (merged === undefined) {
        report.problem(path, "strict mode has no allOf, and its branches cannot be merged into one")
      } else {
        out = merged
        report.change(
          path,
          "merged the one branch of allOf into the schema: strict mode has no allOf",
        )
      }
    }
    if ("oneOf" in out) {
      if ("anyOf" in out) {
        report.problem(path, "strict mode has no oneOf, and anyOf is already used beside it")
      } else {
        const { oneOf, ...rest } = out
        out = { ...rest, anyOf: oneOf }
        report.change(
          path,
          "oneOf is sent as anyOf: strict mode has no oneOf (a value that fits two branches is no longer refused by what the model sees)",
        )
      }
    }
    for (const keyword of loosenedKeywords) {
      if (!(keyword in out)) continue
      delete out[keyword]
      report.change(
        path,
        `dropped ${keyword}: strict mode does not take it, so the model sees a looser schema`,
      )
    }
    if (out.unevaluatedProperties === false) {
      delete out.unevaluatedProperties
      report.change(path, "dropped unevaluatedProperties: false, as every object is closed")
    }
    for (const [keyword, why] of refusedKeywords) {
      if (keyword in out) report.problem(path, `strict mode does not take ${keyword}: ${why}`)
    }
    if ("unevaluatedProperties" in out) {
      report.problem(
        path,
        "strict mode does not take unevaluatedProperties: every object is closed",
      )
    }
    if ("default" in out) {
      const { default: value, ...rest } = out
      out = rest
      withNote(out, `Default: ${JSON.stringify(value)}.`)
      report.change(path, "moved default into the description: strict mode does not take default")
    }
    if (typeof out.format === "string" && !strictFormats.has(out.format)) {
      const { format, ...rest } = out
      out = rest
      withNote(out, `Format: ${format}.`)
      report.change(
        path,
        `moved format ${JSON.stringify(format)} into the description: strict mode does not take it`,
      )
    }
    if (Array.isArray(out.items)) {
      report.problem(path, "strict mode has no tuples: give the array one `items` schema")
    } else if (typeIncludes(out, "array") && !("items" in out)) {
      report.problem(path, "an array without items: strict mode needs the schema of its items")
    }
    if (typeof out.$ref === "string") {
      const pointer = localPointer(out.$ref)
      if (pointer === undefined || !isSchema(resolve(root, pointer))) {
        report.problem(path, `$ref ${JSON.stringify(out.$ref)} names nothing in this schema`)
      }
    }
    // The children first: a property made nullable below is wrapped once it is strict itself.
    out = mapChildren(out, path, walk)
    if (isObjectNode(out)) {
      out = strictObject(out, path)
    } else if (!hasShape(out) && !("allOf" in out)) {
      report.problem(path, "this schema accepts any value; strict mode needs a type")
    }
    return out
  }
  const strictObject = (node: Record<string, unknown>, path: string): Record<string, unknown> => {
    const out = { ...node }
    const open = out.additionalProperties !== undefined && out.additionalProperties !== false
    if (open) {
      report.problem(
        path,
        "an object that takes keys it does not name (additionalProperties): strict mode closes every object, so a map cannot be sent",
      )
    }
    if (!Json.isObject(out.properties)) {
      if (path !== "" && !open) {
        report.problem(
          path,
          "an object with no properties would take only {} in strict mode: name its properties",
        )
      }
      return out
    }
    if (out.type === undefined) {
      out.type = "object"
      report.change(path, 'added type "object" to an object schema')
    }
    const required = new Set(Array.isArray(out.required) ? out.required : [])
    const properties: Record<string, unknown> = {}
    for (const [name, child] of Object.entries(out.properties)) {
      if (required.has(name) || !Json.isObject(child)) {
        properties[name] = child
      } else if (takesNull(child)) {
        properties[name] = child
        report.change(
          below(path, "properties", name),
          `${name} is required, as strict mode wants every property; it takes null, which the model sends for "left out"`,
        )
      } else {
        properties[name] = nullable(child)
        report.change(
          below(path, "properties", name),
          `${name} is required and takes null in place of being left out: strict mode wants every property`,
        )
      }
      required.delete(name)
    }
    for (const name of required) {
      report.problem(path, `required names ${JSON.stringify(name)}, which properties does not`)
    }
    out.properties = properties
    out.required = Object.keys(properties)
    if (out.additionalProperties === undefined) {
      out.additionalProperties = false
      report.change(path, "closed the object (additionalProperties: false), as strict mode wants")
    }
    return out
  }
  return walk(root, "")
}

const describeType = (node: { readonly [key: string]: unknown }): string =>
  "type" in node
    ? `type ${JSON.stringify(node.type)}`
    : "anyOf" in node || "oneOf" in node
      ? "a union"
      : "a schema with no type"

/**
 * The strict form of a schema, which `strict: true` asks for (OpenAI's structured outputs, for
 * tools and answers alike): the root is an object; every object is closed
 * (`additionalProperties: false`) and lists every property in `required`, a property that was
 * optional taking `null` in its place; `oneOf` is sent as `anyOf`; `default`, and a format strict
 * mode does not take, move into the description; keywords strict mode does not take whose
 * removal only lets more values through (`uniqueItems`, `not`, `minProperties`, ...) are dropped.
 * `$ref`s are kept (strict mode follows them, recursive ones included), and the definitions are
 * made strict too. Fails with an Unsupported error that lists where and why for what cannot be
 * sent without changing what the schema accepts: a root that is not one object, a map
 * (`additionalProperties` other than `false`), a tuple, an array without `items`, a schema with
 * no type, `patternProperties` (D17).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { JsonSchema } from "@svir/core"
 *
 * const { schema } = Effect.runSync(
 *   JsonSchema.strict({
 *     type: "object",
 *     properties: { city: { type: "string" }, days: { type: "integer", default: 3 } },
 *     required: ["city"],
 *   }),
 * )
 * schema.required // ["city", "days"]
 * schema.additionalProperties // false
 * ```
 *
 * @since 0.2.0
 * @category fitting
 */
export const strict = (schema: Tool.JsonSchema): Effect.Effect<Fitted, SvirError.SvirError> =>
  Effect.suspend(() => {
    const report = new Report()
    const made = tooDeep(schema, report) ? schema : strictInto(schema, report)
    return outcome("the schema cannot be put in strict form", made, report)
  })

/**
 * Where and why a schema is not in the strict form (see {@link strict}); empty when it is. It
 * checks, and changes nothing: a schema {@link strict} gave back always passes.
 *
 * @example
 * ```ts
 * import { JsonSchema } from "@svir/core"
 *
 * const closed = { type: "object", properties: {}, required: [], additionalProperties: false }
 * JsonSchema.strictProblems(closed) // []
 * JsonSchema.strictProblems({ type: "object", properties: { a: { type: "string" } } }).length // 2
 * ```
 *
 * @since 0.2.0
 * @category validation
 */
export const strictProblems = (schema: Tool.JsonSchema): ReadonlyArray<Change> => {
  const report = new Report()
  if (tooDeep(schema, report)) return report.problems
  if (schema.type !== "object") {
    report.problem("", `the root must be an object (type "object"), not ${describeType(schema)}`)
  }
  if ("anyOf" in schema) report.problem("", "the root must be one object, not a union (anyOf)")
  const check = (node: unknown, path: string, keyword?: string): unknown => {
    if (node === false && keyword === "additionalProperties") return node
    if (!Json.isObject(node)) {
      report.problem(path, "a schema must be an object")
      return node
    }
    for (const key of Object.keys(node)) {
      if (notStrictKeywords.has(key) || key === "unevaluatedProperties") {
        report.problem(path, `strict mode does not take ${key}`)
      }
    }
    if (typeof node.format === "string" && !strictFormats.has(node.format)) {
      report.problem(path, `strict mode does not take the format ${JSON.stringify(node.format)}`)
    }
    if (!hasShape(node)) report.problem(path, "a schema with no type")
    if (typeIncludes(node, "array") && !Json.isObject(node.items)) {
      report.problem(path, "an array needs one `items` schema")
    }
    if (typeof node.$ref === "string") {
      const pointer = localPointer(node.$ref)
      if (pointer === undefined || !isSchema(resolve(schema, pointer))) {
        report.problem(path, `$ref ${JSON.stringify(node.$ref)} names nothing in this schema`)
      }
    }
    if (isObjectNode(node)) {
      if (node.additionalProperties !== false) report.problem(path, "an object that is not closed")
      if (!Json.isObject(node.properties)) {
        report.problem(path, "an object with no properties")
      } else {
        const names = Object.keys(node.properties)
        const required: ReadonlyArray<unknown> = Array.isArray(node.required) ? node.required : []
        // A set, as an object can have many properties (D22).
        const listed = new Set(required)
        if (required.length !== names.length || !names.every((name) => listed.has(name))) {
          report.problem(path, "an object whose required does not list every property")
        }
      }
    }
    return mapChildren(node, path, check)
  }
  check(schema, "")
  return report.problems
}
