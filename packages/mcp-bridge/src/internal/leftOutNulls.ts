import { Json, type Tool } from "@svir/core"

/**
 * A tool's arguments without the `null`s that can only mean "left out". Never changes anything
 * else, and never changes the arguments given: what it changes, it copies.
 */
export type RemoveLeftOutNulls = (args: Record<string, unknown>) => Record<string, unknown>

/**
 * Makes, once per tool from its input schema, the function that removes from its arguments each
 * `null` given for a property that the schema leaves optional and does not let be `null`: the
 * strict form makes every optional property required and nullable, so a model sends `null` for
 * what it leaves out, and servers refuse it (D36). It reaches objects nested in properties,
 * array items and tuple positions, `$ref`s to this schema's own definitions (recursive ones too),
 * every branch of an `allOf`, and the one branch of an `anyOf`/`oneOf` that the value can fit,
 * told by its type (object or array) or by a property whose `const` differs in each branch.
 *
 * It keeps every `null` the schema may allow (a `"null"` type, `nullable: true`, `const: null`,
 * an `enum` with `null`, a branch that takes it, a schema that says nothing), every `null` for a
 * required property (the server says what is wrong with it), and every `null` in an array. Where
 * the schema cannot be read for sure (a `$ref` to another document, a union whose branch the value
 * does not single out, `additionalProperties`), the `null` is kept. The work of making it is
 * bounded by a multiple of the schema's size; each call costs one walk of the arguments, to
 * `Json.maxDepth` levels.
 */
export const leftOutNulls = (schema: unknown): RemoveLeftOutNulls => {
  const plan = new Planner(schema).root()
  return plan === undefined ? keepAll : (args) => apply(plan, args, 0) as Record<string, unknown>
}

const keepAll: RemoveLeftOutNulls = (args) => args

type Node = { readonly [key: string]: unknown }

/** The schemas a value at one place must fit, all of them: `false` fits nothing. */
type Members = ReadonlyArray<Node | false>

/** What to do to the value at one place of the arguments. */
type Plan = Shape | Choice | Later

/** An object's or an array's: the `null`s removed here, and the plans of what it holds. */
interface Shape {
  readonly _tag: "Shape"
  readonly drop: ReadonlySet<string>
  readonly properties: ReadonlyMap<string, Plan>
  readonly positions: ReadonlyArray<Plan | undefined>
  readonly rest: Plan | undefined
}

/** A union's: the plan of the branch the value fits, or `otherwise` when that is not sure. */
interface Choice {
  readonly _tag: "Choice"
  readonly otherwise: Plan | undefined
  readonly array: Plan | undefined
  readonly object: Plan | undefined
  /** A property whose `const` tells object branches apart, and the plan for each value of it. */
  readonly discriminator:
    | {
        readonly name: string
        readonly byValue: ReadonlyMap<unknown, Plan | undefined>
        readonly unmatched: Plan | undefined
      }
    | undefined
}

/** A plan still being made when it was needed: a recursive schema's. */
interface Later {
  readonly _tag: "Later"
  readonly get: () => Plan | undefined
}

// Choices and recursive plans followed for one value, at most: a union can name itself.
const maxHops = Json.maxDepth
// Values nest at most `Json.maxDepth` levels; a union at each level (an object or `null`) doubles
// the levels of plans they need.
const maxPlanDepth = 3 * Json.maxDepth

const apply = (planned: Plan | undefined, value: unknown, depth: number): unknown => {
  if (depth > Json.maxDepth || typeof value !== "object" || value === null) return value
  let plan = planned
  for (let hops = 0; plan !== undefined && plan._tag !== "Shape"; hops++) {
    if (hops > maxHops) return value
    plan = plan._tag === "Later" ? plan.get() : choose(plan, value)
  }
  if (plan === undefined) return value
  return Array.isArray(value)
    ? applyArray(plan, value, depth)
    : applyObject(plan, value as Node, depth)
}

const choose = (choice: Choice, value: object): Plan | undefined => {
  if (Array.isArray(value)) return choice.array
  const { discriminator } = choice
  if (discriminator === undefined) return choice.object
  const tag = (value as Node)[discriminator.name]
  if (tag === undefined || (typeof tag === "object" && tag !== null)) return choice.object
  const byValue = discriminator.byValue
  return byValue.has(tag) ? byValue.get(tag) : discriminator.unmatched
}

const applyObject = (plan: Shape, value: Node, depth: number): unknown => {
  let changed = false
  const entries: Array<[string, unknown]> = []
  for (const [name, field] of Object.entries(value)) {
    if (field === null && plan.drop.has(name)) {
      changed = true
      continue
    }
    const inner = plan.properties.get(name)
    const cleaned = inner === undefined ? field : apply(inner, field, depth + 1)
    if (cleaned !== field) changed = true
    entries.push([name, cleaned])
  }
  // `fromEntries` defines each key, so that a key `__proto__` stays a key.
  return changed ? Object.fromEntries(entries) : value
}

const applyArray = (plan: Shape, value: ReadonlyArray<unknown>, depth: number): unknown => {
  let changed = false
  const cleaned = value.map((item, i) => {
    const after = apply(i < plan.positions.length ? plan.positions[i] : plan.rest, item, depth + 1)
    if (after !== item) changed = true
    return after
  })
  return changed ? cleaned : value
}

const isSchema = (value: unknown): value is Node | boolean =>
  typeof value === "boolean" || Json.isObject(value)

/** The JSON Pointer of a `$ref` into this document (`#`, `#/$defs/Node`), if it is one. */
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

/** The value at a JSON Pointer, through own keys only. */
const resolve = (root: unknown, pointer: string): unknown => {
  let at = root
  for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~")
    if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(token)) at = at[Number(token)]
    else if (Json.isObject(at) && Object.hasOwn(at, token)) at = at[token]
    else return undefined
  }
  return at
}

/** How many JSON values a schema holds, without recursion. */
const sizeOf = (schema: unknown): number => {
  let size = 0
  const stack = [schema]
  while (stack.length > 0) {
    const value = stack.pop()
    size++
    if (typeof value !== "object" || value === null) continue
    for (const child of Object.values(value)) stack.push(child)
  }
  return size
}

/** The kinds of value a plan does anything to. */
type Kind = "object" | "array"

const kindOf = (value: unknown): Kind | undefined =>
  Array.isArray(value) ? "array" : Json.isObject(value) ? "object" : undefined

/**
 * Makes the plans of one schema. Each place of the arguments is planned from the schemas it must
 * fit together (its members), once per set of members. Every answer about a schema errs towards
 * keeping a `null`: a schema not read for sure lets `null` through and fits any value.
 */
class Planner {
  private readonly plans = new Map<string, Plan | undefined | typeof making>()
  private readonly ids = new WeakMap<Node, number>()
  private lastId = 0
  private readonly nulls = new WeakMap<Node, boolean>()
  private readonly kinds = {
    object: new WeakMap<Node, boolean>(),
    array: new WeakMap<Node, boolean>(),
  }
  private readonly withoutUnion = {
    anyOf: new WeakMap<Node, Node>(),
    oneOf: new WeakMap<Node, Node>(),
  }
  // Sets of members can multiply through `allOf` and unions: the work stops at a bound.
  private budget: number

  constructor(private readonly schema: unknown) {
    this.budget = 16 * sizeOf(schema) + 1_000
  }

  root(): Plan | undefined {
    return this.plan(this.members(this.schema), 0)
  }

  private spend(units: number): boolean {
    this.budget -= units
    return this.budget >= 0
  }

  /** The schemas `schema` stands for: itself, what its `$ref` names, and its `allOf` branches. */
  private members(
    schema: unknown,
    into: Array<Node | false> = [],
    refs: ReadonlyArray<string> = [],
    depth = 0,
  ): Array<Node | false> {
    if (schema === false) into.push(false)
    if (!Json.isObject(schema) || depth > Json.maxDepth || !this.spend(1)) return into
    if (typeof schema.$ref === "string") {
      // Keywords beside a `$ref` are not read: draft 7 ignores them.
      const pointer = localPointer(schema.$ref)
      if (pointer === undefined || refs.includes(pointer)) return into
      return this.members(resolve(this.schema, pointer), into, [...refs, pointer], depth + 1)
    }
    into.push(schema)
    if (Array.isArray(schema.allOf)) {
      for (const branch of schema.allOf) this.members(branch, into, refs, depth + 1)
    }
    return into
  }

  private idOf(member: Node | false): number {
    if (member === false) return 0
    let id = this.ids.get(member)
    if (id === undefined) {
      id = ++this.lastId
      this.ids.set(member, id)
    }
    return id
  }

  /** `depth` counts the objects, arrays and unions above: plans deeper than values are not made. */
  private plan(given: Members, depth: number): Plan | undefined {
    if (depth > maxPlanDepth || given.length === 0) return undefined
    const byId = new Map(given.map((member) => [this.idOf(member), member]))
    const key = [...byId.keys()].sort((a, b) => a - b).join(",")
    const known = this.plans.get(key)
    if (known === making) return { _tag: "Later", get: () => this.settled(key) }
    if (this.plans.has(key)) return known
    if (!this.spend(byId.size)) return undefined
    this.plans.set(key, making)
    const members = [...byId.values()]
    const union = members.findIndex(
      (member) => member !== false && (Array.isArray(member.anyOf) || Array.isArray(member.oneOf)),
    )
    const made = union === -1 ? this.shape(members, depth) : this.choice(members, union, depth)
    this.plans.set(key, made)
    return made
  }

  private settled(key: string): Plan | undefined {
    const plan = this.plans.get(key)
    return plan === making ? undefined : plan
  }

  private shape(members: Members, depth: number): Shape | undefined {
    const required = new Set<unknown>()
    const byName = new Map<string, Array<unknown>>()
    const tuples: Array<{ readonly leading: ReadonlyArray<unknown>; readonly rest: unknown }> = []
    const items: Array<unknown> = []
    for (const member of members) {
      if (member === false) continue
      if (Array.isArray(member.required)) {
        if (!this.spend(member.required.length)) return undefined
        for (const name of member.required) required.add(name)
      }
      if (Json.isObject(member.properties)) {
        const entries = Object.entries(member.properties)
        if (!this.spend(entries.length)) return undefined
        for (const [name, child] of entries) {
          const schemas = byName.get(name)
          if (schemas === undefined) byName.set(name, [child])
          else schemas.push(child)
        }
      }
      // Tuples as draft 2020-12 writes them (`prefixItems`, then `items`) and as draft 7 does.
      const leading = Array.isArray(member.prefixItems)
        ? member.prefixItems
        : Array.isArray(member.items)
          ? member.items
          : undefined
      if (leading !== undefined) {
        const rest = Array.isArray(member.prefixItems) ? member.items : member.additionalItems
        if (!this.spend(leading.length)) return undefined
        tuples.push({ leading, rest })
      } else if (isSchema(member.items)) {
        items.push(member.items)
      }
    }
    const drop = new Set<string>()
    const properties = new Map<string, Plan>()
    for (const [name, schemas] of byName) {
      // A `null` some schema of the property refuses cannot be meant: the value would not fit.
      if (!required.has(name) && schemas.some((schema) => !this.allowsNull(schema))) drop.add(name)
      const inner = this.plan(this.allMembers(schemas), depth + 1)
      if (inner !== undefined) properties.set(name, inner)
    }
    const length = Math.max(0, ...tuples.map((tuple) => tuple.leading.length))
    const positions = Array.from({ length }, (_, i) =>
      this.plan(
        this.allMembers([
          ...tuples.map((tuple) => (i < tuple.leading.length ? tuple.leading[i] : tuple.rest)),
          ...items,
        ]),
        depth + 1,
      ),
    )
    const rest = this.plan(
      this.allMembers([...tuples.map((tuple) => tuple.rest), ...items]),
      depth + 1,
    )
    if (
      drop.size === 0 &&
      properties.size === 0 &&
      rest === undefined &&
      positions.every((plan) => plan === undefined)
    ) {
      return undefined
    }
    return { _tag: "Shape", drop, properties, positions, rest }
  }

  private allMembers(schemas: ReadonlyArray<unknown>): Members {
    const into: Array<Node | false> = []
    for (const schema of schemas) this.members(schema, into)
    return into
  }

  /**
   * The plan of members one of which is a union: each branch planned with the other members, and
   * the branch that applies to a value found from what the value is (D36).
   */
  private choice(members: Members, at: number, depth: number): Choice | undefined {
    const union = members[at] as Node
    const keyword = Array.isArray(union.anyOf) ? "anyOf" : "oneOf"
    const branches = union[keyword] as ReadonlyArray<unknown>
    if (!this.spend(branches.length)) return undefined
    const others = members.map((member, i) => (i === at ? this.without(union, keyword) : member))
    const otherwise = this.plan(others, depth + 1)
    const planned = branches.map((branch) => ({
      branch,
      plan: this.plan(this.members(branch, [...others]), depth + 1),
    }))
    const fitting = (kind: Kind) => planned.filter(({ branch }) => this.admits(branch, kind))
    const single = (candidates: ReadonlyArray<{ readonly plan: Plan | undefined }>) =>
      candidates.length === 1 ? candidates[0]!.plan : otherwise
    const objects = fitting("object")
    const array = single(fitting("array"))
    const object = single(objects)
    const discriminator = objects.length > 1 ? this.discriminator(objects, otherwise) : undefined
    if (
      otherwise === undefined &&
      array === undefined &&
      object === undefined &&
      discriminator === undefined
    ) {
      return undefined
    }
    return { _tag: "Choice", otherwise, array, object, discriminator }
  }

  /** The first property that a `const` ties to a value in two object branches or more. */
  private discriminator(
    objects: ReadonlyArray<{ readonly branch: unknown; readonly plan: Plan | undefined }>,
    otherwise: Plan | undefined,
  ): Choice["discriminator"] {
    const tags = objects.map(({ branch }) => this.tagsOf(branch))
    const counts = new Map<string, number>()
    for (const found of tags)
      for (const name of found.keys()) counts.set(name, (counts.get(name) ?? 0) + 1)
    const name = [...counts].find(([, count]) => count >= 2)?.[0]
    if (name === undefined) return undefined
    const untagged = objects.filter((_, i) => !tags[i]!.has(name))
    const byValue = new Map<unknown, Plan | undefined>()
    for (const found of tags) {
      const value = found.get(name)
      if (value === undefined || byValue.has(value)) continue
      const candidates = [...objects.filter((_, i) => tags[i]!.get(name) === value), ...untagged]
      byValue.set(value, candidates.length === 1 ? candidates[0]!.plan : otherwise)
    }
    const unmatched = untagged.length === 1 ? untagged[0]!.plan : otherwise
    return { name, byValue, unmatched }
  }

  /** The properties a branch ties to one scalar value with `const` (or an `enum` of one). */
  private tagsOf(branch: unknown): ReadonlyMap<string, unknown> {
    const tags = new Map<string, unknown>()
    for (const member of this.members(branch)) {
      if (member === false || !Json.isObject(member.properties)) continue
      const entries = Object.entries(member.properties)
      if (!this.spend(entries.length)) break
      for (const [name, child] of entries) {
        if (!Json.isObject(child)) continue
        const value =
          "const" in child
            ? child.const
            : Array.isArray(child.enum) && child.enum.length === 1
              ? child.enum[0]
              : undefined
        if (value !== undefined && (typeof value !== "object" || value === null)) {
          tags.set(name, value)
        }
      }
    }
    return tags
  }

  private without(union: Node, keyword: "anyOf" | "oneOf"): Node {
    const cache = this.withoutUnion[keyword]
    let made = cache.get(union)
    if (made === undefined) {
      const { [keyword]: _union, ...rest } = union
      made = rest
      cache.set(union, made)
    }
    return made
  }

  /**
   * Whether a schema may let `null` through: `false` only when it surely does not (a type, an
   * `enum` or a `const` without it, a `$ref` or an `allOf` branch that refuses it, a union whose
   * every branch does). `nullable: true` (OpenAPI's) counts as letting it through.
   */
  private allowsNull(schema: unknown, depth = 0): boolean {
    if (schema === false) return false
    if (!Json.isObject(schema) || depth > Json.maxDepth) return true
    const known = this.nulls.get(schema)
    if (known !== undefined) return known
    // Until it is known, a schema that refers back to itself lets `null` through.
    this.nulls.set(schema, true)
    const allows = this.nodeAllowsNull(schema, depth + 1)
    this.nulls.set(schema, allows)
    return allows
  }

  private nodeAllowsNull(node: Node, depth: number): boolean {
    // Whoever wrote `null` into the schema means it, whatever the type beside it says.
    if (node.nullable === true) return true
    if (Array.isArray(node.enum) && node.enum.includes(null)) return true
    if ("const" in node && node.const === null) return true
    if (typeof node.$ref === "string") {
      const pointer = localPointer(node.$ref)
      return pointer === undefined || this.allowsNull(resolve(this.schema, pointer), depth)
    }
    const { type } = node
    if (typeof type === "string" && type !== "null") return false
    if (Array.isArray(type) && !type.includes("null")) return false
    if (Array.isArray(node.enum) || "const" in node) return false
    for (const keyword of ["anyOf", "oneOf"]) {
      const branches = node[keyword]
      if (Array.isArray(branches) && branches.length > 0) {
        if (!branches.some((branch) => this.allowsNull(branch, depth))) return false
      }
    }
    const all = node.allOf
    return !Array.isArray(all) || all.every((branch) => this.allowsNull(branch, depth))
  }

  /** Whether a schema may let a value of this kind through: `false` only when it surely does not. */
  private admits(schema: unknown, kind: Kind, depth = 0): boolean {
    if (schema === false) return false
    if (!Json.isObject(schema) || depth > Json.maxDepth) return true
    const cache = this.kinds[kind]
    const known = cache.get(schema)
    if (known !== undefined) return known
    cache.set(schema, true)
    const admits = this.nodeAdmits(schema, kind, depth + 1)
    cache.set(schema, admits)
    return admits
  }

  private nodeAdmits(node: Node, kind: Kind, depth: number): boolean {
    if (typeof node.$ref === "string") {
      const pointer = localPointer(node.$ref)
      return pointer === undefined || this.admits(resolve(this.schema, pointer), kind, depth)
    }
    const { type } = node
    if (typeof type === "string" && type !== kind) return false
    if (Array.isArray(type) && !type.includes(kind)) return false
    if (Array.isArray(node.enum) && !node.enum.some((value) => kindOf(value) === kind)) return false
    if ("const" in node && kindOf(node.const) !== kind) return false
    for (const keyword of ["anyOf", "oneOf"]) {
      const branches = node[keyword]
      if (Array.isArray(branches) && branches.length > 0) {
        if (!branches.some((branch) => this.admits(branch, kind, depth))) return false
      }
    }
    const all = node.allOf
    return !Array.isArray(all) || all.every((branch) => this.admits(branch, kind, depth))
  }
}

/** Marks a plan being made, so that a recursive schema finds it. */
const making = Symbol("making")

/** The function of each tool of a listing, by the name it is offered under. */
export interface LeftOutNullsByTool {
  /** The tool's function, made at its first call and kept; `undefined` for a name not listed. */
  readonly get: (name: string) => RemoveLeftOutNulls | undefined
}

/**
 * The functions of a listing's tools, each made when its tool is first called, as its output
 * check is compiled (D50): most tools of a listing are never called, and making them all took a
 * fifth of a listing's time.
 */
export const leftOutNullsByTool = (tools: ReadonlyArray<Tool.Tool>): LeftOutNullsByTool => {
  const made = new Map<string, RemoveLeftOutNulls>()
  let byName: ReadonlyMap<string, Tool.Tool> | undefined
  return {
    get: (name) => {
      const known = made.get(name)
      if (known !== undefined) return known
      byName ??= new Map(tools.map((tool) => [tool.name, tool]))
      const tool = byName.get(name)
      if (tool === undefined) return undefined
      const remove = leftOutNulls(tool.inputSchema)
      made.set(name, remove)
      return remove
    },
  }
}
