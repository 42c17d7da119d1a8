/**
 * The arguments of a tool: the schema they are decoded with, and the JSON Schema the model sees,
 * derived from that same schema.
 *
 * @since 0.2.0
 * @module
 */
import { Json, type Tool } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "effect/StandardSchema"
import { allowsNull, mapChildren } from "./internal/jsonSchema.js"

/**
 * A schema from another library (zod 4, valibot, ArkType, ...) that both validates
 * (Standard Schema) and describes itself as JSON Schema (Standard JSON Schema), such as any zod 4
 * schema.
 *
 * @since 0.2.0
 * @category models
 */
export interface StandardArguments<A = unknown> {
  readonly "~standard": StandardSchemaV1.Props<unknown, A> & StandardJSONSchemaV1.Props<unknown, A>
}

/**
 * What the arguments of a tool can be described with: an Effect Schema (decoded through its
 * canonical JSON codec) or a {@link StandardArguments} schema.
 *
 * @since 0.2.0
 * @category models
 */
export type ArgumentsSchema = Schema.Top | StandardArguments<unknown>

/**
 * The decoded type of an {@link ArgumentsSchema}.
 *
 * @since 0.2.0
 * @category models
 */
export type Type<S> = S extends Schema.Top
  ? S["Type"]
  : S extends StandardArguments<infer A>
    ? A
    : never

/**
 * The services decoding an {@link ArgumentsSchema} needs (none for a Standard Schema).
 *
 * @since 0.2.0
 * @category models
 */
export type Services<S> = S extends Schema.Top ? S["DecodingServices"] : never

/**
 * Makes a field optional with a default: the model may leave it out, the handler always sees a
 * value, and the JSON Schema shows the default (polaris's `#[default(10)]`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Arguments } from "@svir/registry"
 *
 * const Search = Schema.Struct({
 *   query: Schema.String,
 *   limit: Schema.Int.pipe(Arguments.withDefault(10)),
 * })
 * // JSON Schema: limit is { type: "integer", default: 10 } and is not required
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const withDefault =
  <S extends Schema.Top>(value: S["Encoded"]) =>
  (self: S): Schema.withDecodingDefaultKey<S> =>
    // The annotation goes on the inner schema: that is where the JSON Schema compiler reads it.
    Schema.withDecodingDefaultKey<S>(Effect.succeed(value))(self.annotate({ default: value }) as S)

const maxSafe = Number.MAX_SAFE_INTEGER

const isNonFiniteStrings = (u: unknown): boolean =>
  Json.isObject(u) &&
  u.type === "string" &&
  Array.isArray(u.enum) &&
  u.enum.every((value) => value === "Infinity" || value === "-Infinity" || value === "NaN")

/**
 * Makes a JSON Schema plain for a model: numbers are `number` without the strings "NaN" and
 * "Infinity" that Effect's JSON form allows, integers lose the safe-integer bounds every `Int`
 * carries, an empty struct is an object with no fields, and objects that do not say otherwise
 * are closed.
 */
const isNotNull = (u: unknown): boolean =>
  Json.isObject(u) && Object.keys(u).length === 1 && u.type === "null"

const tidy = (node: unknown): unknown => {
  if (!Json.isObject(node)) return node
  const { $schema: _dialect, ...out } = mapChildren(node, tidy)
  // `Schema.Struct({})` emits "anything but null"; as arguments it means an object with no fields.
  if (isNotNull(out.not) && out.type === undefined) {
    delete out.not
    Object.assign(out, { type: "object", properties: {} })
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = out[key]
    if (!Array.isArray(branches) || !branches.some(isNonFiniteStrings)) continue
    const kept = branches.filter((branch) => !isNonFiniteStrings(branch))
    if (kept.length === 1 && Json.isObject(kept[0])) {
      delete out[key]
      Object.assign(out, kept[0], { ...out })
    } else {
      out[key] = kept
    }
  }
  if (out.type === "integer" && out.minimum === -maxSafe && out.maximum === maxSafe) {
    delete out.minimum
    delete out.maximum
  }
  if (out.type === "object" && Json.isObject(out.properties) && !("additionalProperties" in out)) {
    out.additionalProperties = false
  }
  return out
}

/**
 * The JSON Schema of an Effect Schema's arguments, as the model sees them: what the canonical
 * JSON codec decodes, with plain numbers, field descriptions from annotations, optional fields
 * and fields with defaults left out of `required`, defaults as `default`, and closed objects.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Arguments } from "@svir/registry"
 *
 * Arguments.jsonSchema(Schema.Struct({ id: Schema.Int.annotate({ description: "The order number" }) }))
 * // { type: "object", properties: { id: { type: "integer", description: "The order number" } },
 * //   required: ["id"], additionalProperties: false }
 * ```
 *
 * @since 0.2.0
 * @category converting
 */
export const jsonSchema = (schema: Schema.Top): Tool.JsonSchema => {
  const document = Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  const definitions = Object.keys(document.definitions).length > 0
  const root = tidy(
    definitions ? { ...document.schema, $defs: document.definitions } : document.schema,
  )
  return root as Tool.JsonSchema
}

/**
 * The JSON Schema a Standard JSON Schema (zod 4, ...) gives for its input, made plain the same
 * way as {@link jsonSchema}: no `$schema` line, closed objects.
 *
 * @since 0.2.0
 * @category converting
 */
export const standardJsonSchema = (schema: StandardArguments<unknown>): Tool.JsonSchema =>
  tidy(schema["~standard"].jsonSchema.input({ target: "draft-07" })) as Tool.JsonSchema

const nullable = (node: Record<string, unknown>): Record<string, unknown> => {
  if (allowsNull(node)) return node
  const { description, default: _default, ...rest } = node
  const branch =
    typeof rest.type === "string" && !("enum" in rest)
      ? { ...rest, type: [rest.type, "null"] }
      : { anyOf: [rest, { type: "null" }] }
  return description === undefined ? branch : { ...branch, description }
}

const describeDefault = (node: Record<string, unknown>): Record<string, unknown> => {
  if (!("default" in node)) return node
  const { default: value, ...rest } = node
  const note = `Default: ${JSON.stringify(value)}.`
  return {
    ...rest,
    description: typeof rest.description === "string" ? `${rest.description} ${note}` : note,
  }
}

const strictNode = (node: unknown): unknown => {
  if (!Json.isObject(node)) return node
  const out = mapChildren(node, strictNode)
  if (Json.isObject(out.properties)) {
    const required = new Set(Array.isArray(node.required) ? node.required : [])
    const properties: Record<string, unknown> = {}
    for (const [name, child] of Object.entries(out.properties)) {
      properties[name] = required.has(name) || !Json.isObject(child) ? child : nullable(child)
    }
    out.properties = properties
    out.required = Object.keys(properties)
    out.additionalProperties = false
  }
  return describeDefault(out)
}

/**
 * The strict form of a tool's JSON Schema, as OpenAI's `strict: true` function calling requires:
 * every property is required, a property that was optional accepts `null` instead (a `null`
 * argument reads as "left out" when the registry decodes it), every object is closed, and a
 * default moves into the description, since strict mode does not take the `default` keyword.
 *
 * @example
 * ```ts
 * import { Arguments } from "@svir/registry"
 *
 * Arguments.strict({
 *   type: "object",
 *   properties: { query: { type: "string" }, limit: { type: "integer", default: 10 } },
 *   required: ["query"],
 *   additionalProperties: false,
 * })
 * // { type: "object",
 * //   properties: { query: { type: "string" },
 * //                 limit: { type: ["integer", "null"], description: "Default: 10." } },
 * //   required: ["query", "limit"], additionalProperties: false }
 * ```
 *
 * @since 0.2.0
 * @category converting
 */
export const strict = (schema: Tool.JsonSchema): Tool.JsonSchema =>
  strictNode(schema) as Tool.JsonSchema
