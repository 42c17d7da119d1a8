import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Request, Tool, ToolChoice } from "../src/index.js"

const base = Request.make("m").pipe(Request.user("Hi"))
const label = Tool.make("label", "Label a ticket.")

/**
 * For each field, a function that sets it. Typed by `Request.Field`, so a field added to the
 * request does not compile here until this test knows how to set it.
 */
const setting: { readonly [F in Request.Field]: (request: Request.Request) => Request.Request } = {
  system: Request.system("Be brief."),
  tools: Request.tool(label),
  toolChoice: Request.toolChoice(ToolChoice.none),
  maxTokens: Request.maxTokens(64),
  temperature: Request.temperature(0.2),
  responseFormat: Request.responseFormat({ _tag: "Json" }),
  reasoningEffort: Request.reasoningEffort("low"),
  includeUsage: Request.includeUsage(false),
  sendReasoning: Request.sendReasoning(true),
  contextTokens: Request.contextTokens(4096),
  seed: Request.seed(7),
  topP: Request.topP(0.9),
  stop: Request.stop("END"),
  presencePenalty: Request.presencePenalty(0.5),
  frequencyPenalty: Request.frequencyPenalty(0.5),
  parallelToolCalls: Request.parallelToolCalls(false),
  extra: Request.extra({ top_k: 20 }),
}

const someFields = fc.subarray([...Request.fields])

describe("Request fields", () => {
  it("lists every field of a request but the model, the messages and the codec options", () => {
    const keys = Object.keys(Request.make("m")).filter(
      (key) => key !== "model" && key !== "messages" && key !== "codecOptions",
    )
    assert.deepStrictEqual([...Request.fields], keys)
    assert.deepStrictEqual([...Request.fields], Object.keys(setting))
  })

  it("a request with nothing set, or set to the defaults, needs no field claimed", () => {
    assert.isUndefined(Request.unclaimed(base, [], "none"))
    const defaults = base.pipe(
      Request.tools([]),
      Request.toolChoice(ToolChoice.auto),
      Request.responseFormat({ _tag: "Text" }),
      Request.sendReasoning(false),
      Request.extra({}),
    )
    assert.isUndefined(Request.unclaimed(defaults, [], "none"))
  })

  it("each field, once set, is refused by a codec that claims every other, naming it", () => {
    for (const field of Request.fields) {
      const request = setting[field](base)
      const others = Request.fields.filter((other) => other !== field)
      const error = Request.unclaimed(request, others, "toy")
      assert.strictEqual(error?.reason._tag, "Unsupported", field)
      assert.strictEqual(
        error?.message,
        `the request sets ${field}, which the toy codec does not send`,
      )
      assert.isUndefined(Request.unclaimed(request, [field], "toy"), field)
    }
  })

  it("refuses the first field set and not claimed, in the order of the fields", () => {
    fc.assert(
      fc.property(someFields, someFields, (set, claimed) => {
        const request = set.reduce((acc, field) => setting[field](acc), base)
        const expected = Request.fields.find(
          (field) => set.includes(field) && !claimed.includes(field),
        )
        const fromList = Request.unclaimed(request, claimed, "toy")
        const fromSet = Request.unclaimed(request, new Set(claimed), "toy")
        assert.strictEqual(fromList?.message, fromSet?.message)
        if (expected === undefined) assert.isUndefined(fromList)
        else assert.include(fromList?.message, `the request sets ${expected},`)
      }),
    )
  })

  it("codec options are never a field to claim: each codec reads only its own", () => {
    const request = base.pipe(
      Request.codecOptions("openai-chat", { serviceTier: "flex" }),
      Request.codecOptions("anthropic-messages", { topK: 5 }),
    )
    assert.isUndefined(Request.unclaimed(request, [], "toy"))
  })

  it("a toolChoice of None is set, even with no tools, and Auto is not", () => {
    assert.include(
      Request.unclaimed(Request.toolChoice(base, ToolChoice.none), [], "toy")?.message,
      "toolChoice",
    )
    assert.isUndefined(Request.unclaimed(Request.toolChoice(base, ToolChoice.auto), [], "toy"))
  })
})
