/**
 * The registry's quick check (R6): for a struct of plain JSON fields, a check of the parsed value
 * that passes exactly when Schema's decoding would give that same value, at the cost of checks
 * written by hand. It is the one place where Schema's rules are written a second time; its
 * agreement with `Schema.decodeUnknown` is property-tested on generated values, valid and
 * invalid ("the quick check of plain fields agrees with full decoding"). It reads Effect Schema's
 * AST, as only this folder does (R15).
 */
import { Json } from "@svir/core"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"

const leafTags = new Set(["String", "Number", "Boolean", "Literal", "Null", "Undefined", "Enum"])

const isPlainValue = (ast: SchemaAST.AST): boolean => {
  if (ast.encoding !== undefined) return false
  if (leafTags.has(ast._tag)) return true
  if (ast._tag === "Union") return ast.types.every(isPlainValue)
  if (ast._tag === "Arrays") return ast.elements.every(isPlainValue) && ast.rest.every(isPlainValue)
  return false
}

const typeCheck = (ast: SchemaAST.AST): ((value: unknown) => boolean) | undefined => {
  switch (ast._tag) {
    case "String":
      return (value) => typeof value === "string"
    case "Number":
      return (value) => typeof value === "number"
    case "Boolean":
      return (value) => typeof value === "boolean"
    case "Null":
      return (value) => value === null
    case "Literal": {
      const literal = ast.literal
      return (value) => value === literal
    }
    default:
      return undefined
  }
}

const filtersOf = (
  checks: ReadonlyArray<SchemaAST.Check<unknown>>,
): Array<SchemaAST.Filter<unknown>> | undefined => {
  const filters: Array<SchemaAST.Filter<unknown>> = []
  for (const check of checks) {
    if (check._tag === "Filter") filters.push(check)
    else {
      const inner = filtersOf(check.checks)
      if (inner === undefined) return undefined
      filters.push(...inner)
    }
  }
  return filters
}

const checkOptions: SchemaAST.ParseOptions = { errors: "first" }

/**
 * A check of one field's JSON value: a plain type and its filters (`Int`, `minLength`, ...) run
 * directly, anything else through `Schema.is`.
 */
const fieldCheck = (ast: SchemaAST.AST): ((value: unknown) => boolean) => {
  const type = typeCheck(ast)
  const filters = ast.checks === undefined ? [] : filtersOf(ast.checks)
  if (type === undefined || filters === undefined) return Schema.is(Schema.make<Schema.Top>(ast))
  if (filters.length === 0) return type
  return (value) => {
    if (!type(value)) return false
    for (const filter of filters)
      if (filter.run(value, ast, checkOptions) !== undefined) return false
    return true
  }
}

/**
 * For a struct whose fields are JSON values as they are (no transformation, no default, no
 * nested object), a check of a parsed JSON value that passes exactly when decoding would give that
 * same value; `undefined` for any other schema. It costs about what checks written by hand cost,
 * a few times less than decoding; a value that fails it is decoded, for the full report.
 */
export const plainStructCheck = (ast: SchemaAST.AST): ((json: unknown) => boolean) | undefined => {
  if (ast._tag !== "Objects" || ast.encoding !== undefined || ast.checks !== undefined) {
    return undefined
  }
  if (ast.indexSignatures.length > 0) return undefined
  const fields: Array<readonly [string, boolean, (value: unknown) => boolean]> = []
  for (const property of ast.propertySignatures) {
    if (typeof property.name !== "string" || !isPlainValue(property.type)) return undefined
    const optional = property.type.context?.isOptional === true
    fields.push([property.name, optional, fieldCheck(property.type)])
  }
  const known = new Set(fields.map(([name]) => name))
  return (json) => {
    if (!Json.isObject(json)) return false
    for (const [name, optional, check] of fields) {
      const value = json[name]
      // JSON has no `undefined`: a field that reads as undefined is a field left out.
      if (value === undefined ? !optional : !check(value)) return false
    }
    for (const key in json) if (!known.has(key)) return false
    return true
  }
}
