import { afterAll, assert, describe } from "@effect/vitest"
import { it as fc } from "@fast-check/vitest"
import fastCheck from "fast-check"
import OpenAI from "openai"
import { Answer, ScriptedServer } from "../src/index.js"
import { chat, joinChunks, sseData } from "./sse.js"

describe("streamed chunking", () => {
  const server = ScriptedServer.listen([])
  afterAll(async () => (await server).close())

  fc.prop(
    [
      fastCheck.string({ unit: "grapheme", maxLength: 60 }),
      fastCheck.option(fastCheck.json({ maxDepth: 2 }), { nil: undefined }),
      fastCheck.integer({ min: 1, max: 12 }),
    ],
    { numRuns: 40 },
  )(
    "joined pieces give back the text and the arguments, at any chunk size",
    async (text, args, size) => {
      const running = await server
      running.push(
        Answer.reply({ text, calls: [{ name: "f", arguments: args }] }, { chunkSize: size }),
      )
      const body = await (await chat(running.url, { stream: true })).text()
      const joined = joinChunks(sseData(body))
      assert.strictEqual(joined.text, text)
      assert.strictEqual(joined.calls[0]!.arguments, args ?? "{}")
    },
  )

  fc.prop(
    [
      fastCheck.string({ unit: "grapheme", maxLength: 60 }),
      fastCheck.string({ unit: "grapheme", maxLength: 30 }),
      fastCheck.option(fastCheck.json({ maxDepth: 2 }), { nil: undefined }),
      fastCheck.integer({ min: 1, max: 12 }),
    ],
    { numRuns: 30 },
  )(
    "OpenAI's SDK reads back the text, reasoning and arguments on Responses, at any chunk size",
    async (text, reasoning, args, size) => {
      const running = await server
      running.push(
        Answer.reply(
          { text, reasoning, calls: [{ name: "f", arguments: args }] },
          { chunkSize: size },
        ),
      )
      const client = new OpenAI({
        apiKey: "k",
        baseURL: running.url,
        maxRetries: 0,
        logLevel: "off",
      })
      const final = await client.responses
        .stream({ model: "scripted", input: "Hi" })
        .finalResponse()
      assert.strictEqual(final.output_text, text)
      const summary = final.output.flatMap((item) =>
        item.type === "reasoning" ? item.summary.map((part) => part.text) : [],
      )
      assert.deepStrictEqual(summary, reasoning === "" ? [] : [reasoning])
      const call = final.output.find((item) => item.type === "function_call")
      assert.strictEqual(call?.type === "function_call" ? call.arguments : undefined, args ?? "{}")
    },
  )

  fc.prop([fastCheck.string({ maxLength: 40 }), fastCheck.integer({ min: 1, max: 5 })], {
    numRuns: 20,
  })("CRLF and keep-alives do not change what the events carry", async (text, size) => {
    const running = await server
    running.push(
      Answer.text(text, { chunkSize: size, quirks: { crlf: true, keepAliveComments: true } }),
    )
    const body = await (await chat(running.url, { stream: true })).text()
    assert.strictEqual(joinChunks(sseData(body)).text, text)
  })
})
