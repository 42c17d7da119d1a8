import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { eventErrors, requestErrors, responseErrors } from "./support/openapi.js"

const specFolder = join(
  import.meta.dirname,
  "..",
  "..",
  "conformance",
  "cases",
  "openai-responses",
  "spec",
)
const bytes = readFileSync(join(specFolder, "openapi.json"))
const readme = readFileSync(join(specFolder, "README.md"), "utf8")
const spec = JSON.parse(bytes.toString("utf8"))

/** The specification's own example of a response, as printed: it omits required fields. */
const printedExample = spec.components.schemas.ResponseResource.example
const omitted = {
  incomplete_details: null,
  previous_response_id: null,
  instructions: null,
  error: null,
  max_output_tokens: null,
  max_tool_calls: null,
  safety_identifier: null,
  prompt_cache_key: null,
  reasoning: null,
}
const example = { ...printedExample, ...omitted }
const textDelta = {
  type: "response.output_text.delta",
  sequence_number: 4,
  item_id: example.output[0].id,
  output_index: 0,
  content_index: 0,
  delta: "The image depicts",
}

describe("the vendored specification", () => {
  it("is the file its README describes", () => {
    const sha256 = createHash("sha256").update(bytes).digest("hex")
    assert.include(readme, `\`${sha256}\``)
    assert.include(readme, `\`${spec.info.version}\``)
  })
})

describe("requestErrors", () => {
  it("accepts a minimal body", () => {
    assert.deepStrictEqual(requestErrors({ model: "gpt-5.2", input: "Hello" }), [])
  })

  it("refuses a wrong type, a missing field and an unknown value", () => {
    assert.include(requestErrors({ model: 5 }), "CreateResponseBody at /model: must be string")
    assert.include(
      requestErrors({ tools: [{ type: "function" }] }),
      "CreateResponseBody at /tools/0: must have required property 'name'",
    )
    assert.include(
      requestErrors({ truncation: "sometimes" }),
      "CreateResponseBody at /truncation: must be equal to one of the allowed values: auto, disabled",
    )
  })
})

describe("responseErrors", () => {
  it("accepts the specification's example once the fields it omits are given", () => {
    assert.deepStrictEqual(responseErrors(example), [])
  })

  it("refuses the example as printed, for each field it omits", () => {
    const errors = responseErrors(printedExample)
    for (const field of Object.keys(omitted).filter((field) => field !== "reasoning")) {
      assert.include(errors, `ResponseResource: must have required property '${field}'`)
    }
    assert.include(errors, "ResponseResource at /reasoning: must have required property 'effort'")
  })

  it("refuses a wrong type, a missing field and an unknown item type", () => {
    assert.deepStrictEqual(responseErrors({ ...example, created_at: "1741476777" }), [
      "ResponseResource at /created_at: must be integer",
    ])
    const message = example.output[0]
    const part = { type: "output_text", text: message.content[0].text }
    assert.deepStrictEqual(
      responseErrors({ ...example, output: [{ ...message, content: [part] }] }),
      ["ResponseResource at /output/0/content/0: must have required property 'annotations'"],
    )
    assert.deepStrictEqual(responseErrors({ ...example, output: [{ ...message, type: "note" }] }), [
      'ResponseResource at /output/0: value of tag "type" must be in oneOf',
    ])
  })
})

describe("eventErrors", () => {
  it("accepts an event of each kind it is given", () => {
    assert.deepStrictEqual(eventErrors(textDelta), [])
    assert.deepStrictEqual(
      eventErrors({ type: "response.completed", sequence_number: 9, response: example }),
      [],
    )
  })

  it("names the event's own schema when it refuses a wrong type or a missing field", () => {
    assert.deepStrictEqual(eventErrors({ ...textDelta, delta: 5 }), [
      "ResponseOutputTextDeltaStreamingEvent at /delta: must be string",
    ])
    const { sequence_number: _, ...unnumbered } = textDelta
    assert.deepStrictEqual(eventErrors(unnumbered), [
      "ResponseOutputTextDeltaStreamingEvent: must have required property 'sequence_number'",
    ])
  })

  it("refuses a type the specification does not list", () => {
    assert.deepStrictEqual(eventErrors({ ...textDelta, type: "response.output_text.added" }), [
      'text/event-stream: value of tag "type" must be in oneOf',
    ])
  })
})
