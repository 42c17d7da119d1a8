import { assert, describe, it } from "@effect/vitest"
import type { Tool } from "@svir/core"
import { Json, Request } from "@svir/core"
import { Cause, Effect, Exit } from "effect"
import { OpenAiCodec } from "../src/index.js"
import { feed } from "./support/cases.js"

// Deeper than any stack a recursive walker (JSON.stringify, String of an array) can follow.
const levels = 100_000
const deepArray = `${"[".repeat(levels)}${"]".repeat(levels)}`
const deepObject = `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`

const chunk = (delta: string, finish = "null") =>
  `data: {"id":"c","choices":[{"index":0,"delta":${delta},"finish_reason":${finish}}]}\n\n`
const finished = `${chunk("{}", '"tool_calls"')}data: [DONE]\n\n`
const deepArguments = `${chunk(`{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"w","arguments":${deepObject}}}]}`)}${finished}`

const streams: ReadonlyArray<readonly [string, string]> = [
  ["a whole chunk", `data: ${deepArray}\n\n${finished}`],
  ["an error object's code", `data: {"error":{"code":${deepArray}}}\n\n`],
  ["an error object's message", `data: {"error":{"message":${deepObject}}}\n\n`],
  ["an error that is an array", `data: {"error":${deepArray}}\n\n`],
  ["detail", `data: {"detail":${deepArray}}\n\n`],
  ["detail[0]", `data: {"detail":[${deepObject}]}\n\n`],
  ["event: error", `event: error\ndata: {"error":${deepObject}}\n\n`],
  ["event: error, a bare object", `event: error\ndata: ${deepObject}\n\n`],
  ["tool-call arguments sent as an object", deepArguments],
  ["a tool-call index", chunk(`{"tool_calls":[{"index":${deepArray},"id":"call_1"}]}`) + finished],
  ["a choice index", `data: {"choices":[{"index":${deepArray},"delta":{}}]}\n\n${finished}`],
  ["usage", `data: {"usage":${deepObject},"choices":[]}\n\n${finished}`],
  ["a finish reason", chunk("{}", deepArray)],
]

const bodies: ReadonlyArray<readonly [string, string]> = [
  ["a whole body", deepArray],
  ["an error object's code", `{"error":{"code":${deepArray}}}`],
  ["an error that is an array", `{"error":${deepArray}}`],
  ["detail", `{"detail":${deepArray}}`],
  ["detail[0]", `{"detail":[${deepObject}]}`],
  [
    "tool-call arguments sent as an object",
    `{"choices":[{"index":0,"message":{"tool_calls":[{"id":"call_1","function":{"name":"w","arguments":${deepObject}}}]},"finish_reason":"tool_calls"}]}`,
  ],
  ["a finish reason", `{"choices":[{"index":0,"message":{},"finish_reason":${deepArray}}]}`],
  ["usage", `{"choices":[{"index":0,"message":{},"finish_reason":"stop"}],"usage":${deepObject}}`],
]

const modes = ["strict", "lenient"] as const
const bytes = (text: string) => new TextEncoder().encode(text)

describe("JSON nested 100,000 levels deep", () => {
  for (const mode of modes) {
    for (const [where, sse] of streams) {
      it(`in ${where} of a stream is a typed error (${mode})`, () => {
        const input = bytes(sse)
        for (const chunks of [[input], [input.subarray(0, 7), input.subarray(7)]]) {
          const outcome = feed(OpenAiCodec.decoder({ mode }), chunks)
          assert.isDefined(outcome.error, "a deep value was read as an answer")
          assert.isUndefined(outcome.completion)
        }
      })
    }
    for (const [where, body] of bodies) {
      it(`in ${where} of a whole response is a typed error (${mode})`, () => {
        const exit = Effect.runSyncExit(OpenAiCodec.decodeResponse(body, { mode }))
        assert.isTrue(Exit.isFailure(exit))
        if (Exit.isFailure(exit)) {
          assert.isFalse(Cause.hasDies(exit.cause), "decodeResponse died")
          assert.strictEqual(Cause.squash(exit.cause) instanceof Error, true)
        }
      })
    }
  }

  it("error chunks and bodies nested too deep to read are Protocol errors", () => {
    for (const [, sse] of streams.slice(1, 6)) {
      assert.strictEqual(feed(OpenAiCodec.decoder(), [bytes(sse)]).error, "protocol")
    }
    for (const [, body] of bodies.slice(1, 5)) {
      const error = Effect.runSync(Effect.flip(OpenAiCodec.decodeResponse(body)))
      assert.strictEqual(error.reason._tag, "Protocol")
    }
  })

  it("`event: error` with data too deep to read is still a server error", () => {
    assert.strictEqual(
      feed(OpenAiCodec.decoder(), [bytes(`event: error\ndata: ${deepObject}\n\n`)]).error,
      "server",
    )
  })
})

describe("encoding user-given JSON nested too deep", () => {
  const deepValue = (): Tool.JsonSchema => {
    let value: Tool.JsonSchema = {}
    for (let i = 0; i < levels; i++) value = { a: value }
    return value
  }
  const tool = (inputSchema: Tool.JsonSchema): Tool.Tool => ({
    name: "w",
    description: "",
    inputSchema,
  })

  it.effect("a tool's input schema is an Unsupported error, not a body JSON cannot write", () =>
    Effect.gen(function* () {
      const request = Request.make("m").pipe(Request.user("Hi"), Request.tools([tool(deepValue())]))
      const error = yield* Effect.flip(OpenAiCodec.encode(request))
      assert.strictEqual(error.reason._tag, "Unsupported")
    }),
  )

  it.effect("a tool's input schema that refers to itself is an Unsupported error", () =>
    Effect.gen(function* () {
      const schema: { [key: string]: unknown } = { type: "object" }
      schema.properties = { self: schema }
      const request = Request.make("m").pipe(Request.user("Hi"), Request.tools([tool(schema)]))
      const error = yield* Effect.flip(OpenAiCodec.encode(request))
      assert.strictEqual(error.reason._tag, "Unsupported")
    }),
  )

  it.effect("a response format's schema is an Unsupported error", () =>
    Effect.gen(function* () {
      const request = Request.make("m").pipe(
        Request.user("Hi"),
        Request.responseFormat({ _tag: "JsonSchema", name: "deep", schema: deepValue() }),
      )
      const error = yield* Effect.flip(OpenAiCodec.encode(request))
      assert.strictEqual(error.reason._tag, "Unsupported")
    }),
  )

  it.effect("a schema at the depth bound is encoded and can be written as JSON", () =>
    Effect.gen(function* () {
      let schema: Tool.JsonSchema = {}
      // The body adds tools[], the tool, function and parameters around the schema.
      for (let i = 1; i < Json.maxDepth; i++) schema = { a: schema }
      const request = Request.make("m").pipe(Request.user("Hi"), Request.tools([tool(schema)]))
      const body = yield* OpenAiCodec.encode(request)
      assert.isString(JSON.stringify(body))
    }),
  )
})
