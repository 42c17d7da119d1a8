import { assert, describe, it } from "@effect/vitest"
import { Body, Json } from "../src/index.js"

const framing = ["model", "stream"]

describe("Body", () => {
  it("adds extra fields to the body", () => {
    const body: Record<string, unknown> = { model: "m", temperature: 0 }
    assert.isUndefined(Body.addExtra(body, { top_k: 40, safe_prompt: true }, { framing }))
    assert.deepStrictEqual(body, { model: "m", temperature: 0, top_k: 40, safe_prompt: true })
    assert.isUndefined(Body.addExtra(body, undefined, { framing }))
  })

  it("refuses an extra field the body holds or the framing owns, and leaves the body as it was", () => {
    for (const extra of [{ temperature: 1 }, { top_k: 1, stream: true }]) {
      const body: Record<string, unknown> = { model: "m", temperature: 0 }
      const error = Body.addExtra(body, extra, { framing, hint: "MyCodec.options" })
      assert.strictEqual(error?.reason._tag, "Config")
      assert.include(error?.message, "(or MyCodec.options)")
      assert.deepStrictEqual(body, { model: "m", temperature: 0 })
    }
    const bare = Body.addExtra({}, { model: "x" }, { framing })
    assert.notInclude(bare?.message, "(or")
  })

  it("refuses an extra field that is not JSON or nests too deep, and adds none of the others", () => {
    let deep: unknown = 1
    for (let i = 0; i < Json.maxDepth + 1; i++) deep = [deep]
    for (const [extra, words] of [
      [{ fine: 1, count: 10n }, "the extra field count is not a JSON value"],
      [{ fine: 1, call: () => 1 }, "the extra field call is not a JSON value"],
      [{ fine: 1, deep }, `an extra field nests deeper than ${Json.maxDepth} levels`],
    ] as const) {
      const body: Record<string, unknown> = {}
      const error = Body.addExtra(body, extra, { framing })
      assert.strictEqual(error?.reason._tag, "Unsupported")
      assert.include(error?.message, words)
      assert.deepStrictEqual(body, {})
    }
  })

  it("tooDeep refuses a schema one level past the bound, or one that refers to itself", () => {
    let at: Record<string, unknown> = {}
    for (let i = 1; i < Json.maxDepth; i++) at = { items: at }
    assert.isUndefined(Body.tooDeep(at, "the schema"))
    assert.strictEqual(Body.tooDeep({ items: at }, "the schema")?.reason._tag, "Unsupported")
    const loop: Record<string, unknown> = {}
    loop.self = loop
    assert.include(
      Body.tooDeep(loop, "the schema of the tool t")?.message,
      "the schema of the tool t nests",
    )
  })

  it("admits a body that fits its context exactly, and refuses one byte more", () => {
    const body = { model: "m", messages: [{ role: "user", content: "naïve" }] }
    const bytes = new TextEncoder().encode(JSON.stringify(body)).length
    assert.isUndefined(Body.admit(body, { context: undefined, reserved: 10 }))
    assert.isUndefined(Body.admit(body, { context: bytes + 10, reserved: 10 }))
    const error = Body.admit(body, { context: bytes + 9, reserved: 10 })
    assert.strictEqual(error?.reason._tag, "ContextOverflow")
    assert.include(error?.message, `does not fit the context of ${bytes + 9} tokens by 1`)
  })
})
