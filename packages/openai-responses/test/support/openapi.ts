import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js"
import { Ajv2020 } from "ajv/dist/2020.js"

/**
 * Validators of the Open Responses wire, from its OpenAPI description as vendored in
 * `@svir/conformance`'s `cases/openai-responses/spec` (provenance in its README; DECISIONS.md D28).
 * Each returns the errors of a body, one line each, naming the schema; none when it is valid.
 */

interface Json {
  readonly [key: string]: unknown
}

const document = JSON.parse(
  readFileSync(
    join(
      import.meta.dirname,
      "..",
      "..",
      "..",
      "conformance",
      "cases",
      "openai-responses",
      "spec",
      "openapi.json",
    ),
    "utf8",
  ),
) as Json

const documentId = "https://www.openresponses.org/openapi/openapi.json"
const componentPrefix = "#/components/schemas/"
const schemas = (document.components as Json).schemas as Record<string, Json>
const createResponse = ((document.paths as Json)["/responses"] as Json).post as Json

const componentOf = (ref: unknown): string => {
  if (typeof ref !== "string" || !ref.startsWith(componentPrefix)) {
    throw new Error(`not a component reference: ${String(ref)}`)
  }
  return ref.slice(componentPrefix.length)
}

const bodySchema = (content: unknown, mediaType: string): Json =>
  ((content as Record<string, Json>)[mediaType] as Json).schema as Json

const requestSchema = componentOf(
  bodySchema((createResponse.requestBody as Json).content, "application/json").$ref,
)
const answerContent = ((createResponse.responses as Json)["200"] as Json).content
const responseSchema = componentOf(bodySchema(answerContent, "application/json").$ref)
const streamSchema = bodySchema(answerContent, "text/event-stream")

const resolve = (schema: Json): Json =>
  typeof schema.$ref === "string" ? (schemas[componentOf(schema.$ref)] ?? {}) : schema

/** The one value a branch of a union fixes its `tag` property to, if it requires and fixes it. */
const fixedValue = (branch: Json, tag: string): unknown => {
  const schema = resolve(branch)
  const required = Array.isArray(schema.required) && schema.required.includes(tag)
  const property = ((schema.properties ?? {}) as Record<string, Json | undefined>)[tag]
  const values = Array.isArray(property?.enum) ? property.enum : [property?.const]
  return required && values.length === 1 ? values[0] : undefined
}

// An OpenAPI discriminator that ajv can follow: every branch of its `oneOf` requires the tag and
// fixes it to a distinct string. The others (beside a bare `$ref`, or over `ItemParam`, whose
// branches share `message` and whose item reference may omit `type`) are only dropped; being
// annotations in JSON Schema, dropping them changes no verdict (DECISIONS.md D28).
const followable = (schema: Json): boolean => {
  const tag = (schema.discriminator as Json).propertyName
  if (!Array.isArray(schema.oneOf) || typeof tag !== "string") return false
  const values = schema.oneOf.map((branch: Json) => fixedValue(branch, tag))
  return (
    values.every((value) => typeof value === "string") && new Set(values).size === values.length
  )
}

const withFollowableDiscriminators = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withFollowableDiscriminators)
  if (typeof node !== "object" || node === null) return node
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "discriminator" && !followable(node as Json)) continue
    copy[key] = withFollowableDiscriminators(value)
  }
  return copy
}

// strict: false lets keywords JSON Schema lacks (`example`, `x-*`, dropped discriminators) pass.
const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: true })
ajv.addSchema(withFollowableDiscriminators(document) as Json, documentId)

const compile = (pointer: string): ValidateFunction => {
  const validate = ajv.getSchema(`${documentId}${pointer}`)
  if (validate === undefined) throw new Error(`no schema at ${pointer}`)
  return validate
}

const request = compile(`${componentPrefix}${requestSchema}`)
const response = compile(`${componentPrefix}${responseSchema}`)
const anyEvent = compile("#/paths/~1responses/post/responses/200/content/text~1event-stream/schema")
const eventSchemaByType = new Map(
  (streamSchema.oneOf as ReadonlyArray<Json>).map((branch) => {
    const name = componentOf(branch.$ref)
    return [fixedValue(branch, "type"), { name, validate: compile(`${componentPrefix}${name}`) }]
  }),
)

const describe = (schema: string, error: ErrorObject): string => {
  const at = error.instancePath === "" ? "" : ` at ${error.instancePath}`
  const allowed =
    error.keyword === "enum" ? `: ${(error.params.allowedValues as Array<unknown>).join(", ")}` : ""
  return `${schema}${at}: ${error.message ?? error.keyword}${allowed}`
}

const errorsOf = (schema: string, validate: ValidateFunction, json: unknown) =>
  validate(json) ? [] : (validate.errors ?? []).map((error) => describe(schema, error))

/** The errors of a request body against the `application/json` body of `POST /responses`. */
export const requestErrors = (body: unknown): ReadonlyArray<string> =>
  errorsOf(requestSchema, request, body)

/** The errors of an answer against the `application/json` body of the 200 of `POST /responses`. */
export const responseErrors = (json: unknown): ReadonlyArray<string> =>
  errorsOf(responseSchema, response, json)

/**
 * The errors of one streamed event's data against the `text/event-stream` body of
 * `POST /responses`: against the event's own schema, chosen by its `type`, when the type is one
 * the specification lists.
 */
export const eventErrors = (json: unknown): ReadonlyArray<string> => {
  const type = typeof json === "object" && json !== null ? (json as Json).type : undefined
  const event = eventSchemaByType.get(type)
  return event === undefined
    ? errorsOf("text/event-stream", anyEvent, json)
    : errorsOf(event.name, event.validate, json)
}
