import { assert, describe, it } from "@effect/vitest"
import { paramHeaders, paramHeadersOf } from "../src/internal/paramHeaders.js"

const marked = (properties: Record<string, unknown>) => ({ type: "object", properties })

describe("x-mcp-header marks of a tool's input schema (SEP-2243, D51)", () => {
  it("finds the marks reached through properties, at any depth", () => {
    const schema = marked({
      region: { type: "string", "x-mcp-header": "Region" },
      nested: { type: "object", properties: { on: { type: "boolean", "x-mcp-header": "On" } } },
      query: { type: "string" },
    })
    assert.deepStrictEqual(paramHeadersOf(schema), {
      headers: [
        { path: ["region"], headerName: "Region" },
        { path: ["nested", "on"], headerName: "On" },
      ],
    })
  })

  it("refuses a mark on a number, an object, under items or anyOf, not a token, or twice", () => {
    const refused = [
      marked({ score: { type: "number", "x-mcp-header": "Score" } }),
      marked({ data: { type: "object", "x-mcp-header": "Data" } }),
      marked({ list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } }),
      { anyOf: [marked({ a: { type: "string", "x-mcp-header": "A" } })] },
      marked({ a: { type: "string", "x-mcp-header": "My Region" } }),
      marked({ a: { type: "string", "x-mcp-header": "" } }),
      marked({
        a: { type: "string", "x-mcp-header": "MyField" },
        b: { type: "string", "x-mcp-header": "myfield" },
      }),
      { type: "string", "x-mcp-header": "Root" },
    ]
    assert.deepStrictEqual(
      refused.map((schema) => "problem" in paramHeadersOf(schema)),
      refused.map(() => true),
    )
  })

  it("writes each value as text, in Base64 when a header cannot carry it as it is", () => {
    const headers = ["plain", "flag", "count", "spaced", "wide", "empty", "gone", "nothing"].map(
      (name) => ({ path: [name], headerName: name }),
    )
    const sent = paramHeaders(headers, {
      plain: "us west 1",
      flag: false,
      count: 42,
      spaced: " padded ",
      wide: "Hello, 世界",
      empty: "",
      nothing: null,
    })
    assert.deepStrictEqual(sent, {
      "Mcp-Param-plain": "us west 1",
      "Mcp-Param-flag": "false",
      "Mcp-Param-count": "42",
      "Mcp-Param-spaced": `=?base64?${btoa(" padded ")}?=`,
      "Mcp-Param-wide": `=?base64?${Buffer.from("Hello, 世界").toString("base64")}?=`,
      "Mcp-Param-empty": "=?base64??=",
    })
  })
})
