import type { JsonSchemaType, jsonSchemaValidator } from "@modelcontextprotocol/client"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv"
import { Ajv } from "ajv"
import * as ajvFormats from "ajv-formats"
import { RE2JS } from "re2js"
import { schemaProblem, subschemaProblem } from "./schemaBounds.js"

/**
 * A pattern longer than this, or whose RE2 program is larger, is not compiled: RE2's time is
 * linear in the text but grows with the program (D38). Zod's longest format pattern, an
 * ISO date-time, has 256 characters and a program of 94.
 */
const maxPatternChars = 1_000
/** The largest RE2 program of a pattern that is run, in instructions (see {@link maxPatternChars}). */
const maxPatternProgram = 500

/** What Ajv needs of a compiled pattern; `toString` is its key in Ajv's code. */
interface Pattern {
  test(text: string): boolean
  toString(): string
}

/**
 * A pattern in RE2's syntax, or `undefined` when RE2 cannot run it in linear time:
 * backreferences and lookaround. `translateRegExp` turns a JavaScript pattern into RE2's syntax;
 * it reads the named backreference `\k<name>` as the letter `k`, so that escape is refused first.
 */
const linearPattern = (pattern: string): RE2JS | undefined => {
  if (hasNamedBackreference(pattern)) return undefined
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern))
  } catch {
    return undefined
  }
}

const hasNamedBackreference = (pattern: string): boolean => {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== "\\") continue
    if (pattern[i + 1] === "k") return true
    i += 1
  }
  return false
}

/**
 * Ajv's engine for the patterns of a server's schemas (`pattern`, `patternProperties`): RE2,
 * whose time is linear in the text, never the backtracking RegExp, for which a 28-character
 * text can take seconds (D38). A pattern RE2 cannot run is not checked: it passes every text
 * (the listing reports it, see {@link uncheckedPatterns}). One that is not valid JavaScript, or
 * too large to run cheaply, is a compile error, so the schema is refused.
 */
const linearRegExp = Object.assign(
  (pattern: string, flags: string): Pattern => {
    const key = `re2:${pattern}`
    if (pattern.length > maxPatternChars) {
      throw new Error(`its pattern is longer than ${maxPatternChars} characters`)
    }
    // A JSON Schema pattern is ECMAScript's: one JavaScript refuses is refused as before (Python's
    // `(?P<name>`, which RE2 would take). Constructing only parses; nothing is matched.
    new RegExp(pattern, flags)
    const compiled = linearPattern(pattern)
    if (compiled === undefined) return { test: () => true, toString: () => key }
    if (compiled.programSize() > maxPatternProgram) {
      throw new Error(`its pattern ${JSON.stringify(pattern.slice(0, 100))} is too complex to run`)
    }
    return { test: (text) => compiled.test(text), toString: () => key }
  },
  // Read by Ajv only when it writes standalone code, which the bridge never does.
  { code: "re2js" },
)

/**
 * The patterns of a schema that are not checked because RE2 cannot run them (the strings under
 * `pattern` and the keys of `patternProperties`), for the listing to report.
 */
export const uncheckedPatterns = (schema: unknown): ReadonlyArray<string> => {
  const unchecked: Array<string> = []
  const stack: Array<unknown> = [schema]
  while (stack.length > 0) {
    const value = stack.pop()
    if (typeof value !== "object" || value === null) continue
    const fields = value as { readonly [key: string]: unknown }
    const patterns = [
      ...(typeof fields.pattern === "string" ? [fields.pattern] : []),
      ...(typeof fields.patternProperties === "object" && fields.patternProperties !== null
        ? Object.keys(fields.patternProperties)
        : []),
    ]
    for (const pattern of patterns) {
      if (pattern.length <= maxPatternChars && linearPattern(pattern) === undefined) {
        unchecked.push(pattern)
      }
    }
    stack.push(...Object.values(value))
  }
  return unchecked
}

/**
 * `uniqueItems` in time linear in the array: Ajv compares items of unknown type pairwise, so an
 * array of 20 000 objects took 14.5 s. Equal JSON values have the same canonical text.
 */
const uniqueItems = {
  keyword: "uniqueItems",
  type: "array",
  schemaType: "boolean",
  errors: false,
  validate: (unique: boolean, data: ReadonlyArray<unknown>): boolean => {
    if (!unique) return true
    const seen = new Set<string>()
    for (const item of data) {
      const text = canonical(item)
      if (seen.has(text)) return false
      seen.add(text)
    }
    return true
  },
} as const

/** JSON text with the keys of each object in order, so that equal values give equal texts. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

// ajv-formats is CommonJS: its function is the module itself, or its `default` when bundled.
const addFormats = ((ajvFormats as { readonly default?: unknown }).default ??
  ajvFormats) as unknown as (ajv: Ajv) => Ajv

/**
 * The options of the SDK's own Ajv (`createDefaultAjvInstance`), with RE2 for patterns and a
 * linear `uniqueItems`. The formats of ajv-formats run fixed regular expressions, measured
 * linear on texts of 200 000 characters; `format: "regex"` only compiles the text.
 */
const makeAjv = (): Ajv => {
  const ajv = new Ajv({
    strict: false,
    validateFormats: true,
    validateSchema: false,
    allErrors: true,
    code: { regExp: linearRegExp },
  })
  addFormats(ajv)
  ajv.removeKeyword("uniqueItems")
  ajv.addKeyword(uniqueItems)
  return ajv
}

/** What checking a value against a compiled schema says: Ajv's words when it does not fit. */
interface CheckResult {
  readonly valid: boolean
  readonly errorMessage?: string | undefined
}

/** The check of one compiled schema. */
export type SchemaCheck = (value: unknown) => CheckResult

/** The bridge's schema validator: its own checks, and the same Ajv as the SDK's Client takes it. */
export interface SchemaValidator {
  /**
   * The check of `schema`, compiled once per schema object. A schema over the bounds of
   * `schemaBounds`, or one Ajv cannot compile, throws, with the reason.
   */
  readonly compile: (schema: object) => SchemaCheck
  /**
   * Why {@link compile} would refuse `schema`, a schema within the bounds (`schemaProblem` found
   * none, D40), told without compiling it, in the words compiling gives, or `undefined`: a
   * pattern that is not valid JavaScript or too large for RE2 (D38), a `type` that names no JSON
   * type, a keyword whose value Ajv does not take (D50). Cheap next to compiling, which generates
   * and loads code.
   */
  readonly refusal: (schema: object) => string | undefined
  /**
   * For the SDK's Client (its `jsonSchemaValidator`): the same Ajv and bounds, for whatever the
   * SDK checks itself, so that no server's pattern runs on the backtracking RegExp there either.
   */
  readonly sdk: jsonSchemaValidator
}

const jsonTypes = new Set(["string", "number", "integer", "boolean", "null", "object", "array"])

/**
 * Whether a keyword's value has a type its definition takes, as Ajv reads it when compiling
 * (`validSchemaType`, ajv 8 `compile/validate/keyword.js`).
 */
const takesValue = (value: unknown, schemaType: ReadonlyArray<string>): boolean =>
  schemaType.length === 0 ||
  schemaType.some((type) =>
    type === "array"
      ? Array.isArray(value)
      : type === "object"
        ? typeof value === "object" && value !== null && !Array.isArray(value)
        : typeof value === type,
  )

/** What compiling one subschema would throw for its `type` and `nullable` (ajv 8 `getSchemaTypes`). */
const typeRefusal = (schema: { readonly [key: string]: unknown }): string | undefined => {
  const given = schema.type
  const types: ReadonlyArray<unknown> = Array.isArray(given) ? given : given ? [given] : []
  if (!types.every((type) => typeof type === "string" && jsonTypes.has(type))) {
    return `type must be JSONType or JSONType[]: ${types.join(",")}`
  }
  if (types.includes("null")) {
    return schema.nullable === false ? "type: null contradicts nullable: false" : undefined
  }
  return types.length === 0 && schema.nullable !== undefined
    ? '"nullable" cannot be used without "type"'
    : undefined
}

/** What running `pattern` through {@link linearRegExp} throws, as Ajv runs it (flag `u`). */
const patternRefusal = (pattern: string): string | undefined => {
  try {
    linearRegExp(pattern, "u")
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/** What compiling one subschema with `ajv` would throw, as far as it is told without compiling. */
const subschemaRefusal =
  (ajv: Ajv) =>
  (schema: { readonly [key: string]: unknown }): string | undefined => {
    const typed = typeRefusal(schema)
    if (typed !== undefined) return typed
    // What two of Ajv's keywords throw when compiled (ajv 8 `vocabularies/core/id.js`,
    // `vocabularies/validation/enum.js`).
    if (schema.id !== undefined) return 'NOT SUPPORTED: keyword "id", use "$id" for schema ID'
    if (Array.isArray(schema.enum) && schema.enum.length === 0) {
      return "enum must have non-empty array"
    }
    for (const [keyword, value] of Object.entries(schema)) {
      if (keyword === "type") continue
      const definition = ajv.getKeyword(keyword)
      if (typeof definition === "object" && !takesValue(value, definition.schemaType)) {
        return `${keyword} value must be ${JSON.stringify(definition.schemaType)}`
      }
      const patterns =
        keyword === "pattern" && typeof value === "string"
          ? [value]
          : keyword === "patternProperties" && typeof value === "object" && value !== null
            ? Object.keys(value)
            : []
      for (const pattern of patterns) {
        const refused = patternRefusal(pattern)
        if (refused !== undefined) return refused
      }
    }
    return undefined
  }

/**
 * The schema validator of one Client, over an Ajv of {@link makeAjv}. A compiled schema is kept
 * only as long as the schema object lives, and Ajv forgets it at once, so that no `$id` of one
 * server's schema stands in for another's and a listing's schemas go with it.
 */
export const makeSchemaValidator = (): SchemaValidator => {
  const ajv = makeAjv()
  const sdk = new AjvJsonSchemaValidator(ajv)
  const compiled = new WeakMap<object, SchemaCheck>()
  const bounded = <A>(schema: object, compile: () => A): A => {
    const problem = schemaProblem(schema)
    if (problem !== undefined) throw new Error(problem)
    try {
      return compile()
    } finally {
      ajv.removeSchema(schema)
    }
  }
  return {
    compile: (schema) => {
      const known = compiled.get(schema)
      if (known !== undefined) return known
      const validate = bounded(schema, () => ajv.compile(schema))
      // Ajv's words, as the SDK's `AjvJsonSchemaValidator` gives them.
      const check: SchemaCheck = (value) =>
        validate(value)
          ? { valid: true }
          : { valid: false, errorMessage: ajv.errorsText(validate.errors) }
      compiled.set(schema, check)
      return check
    },
    refusal: (schema) => subschemaProblem(schema, subschemaRefusal(ajv)),
    sdk: {
      getValidator: <T>(schema: JsonSchemaType) =>
        bounded(schema, () => sdk.getValidator<T>(schema)),
    },
  }
}
