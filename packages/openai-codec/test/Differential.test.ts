import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import OpenAI from "openai"
import { OpenAiCodec } from "../src/index.js"
import { expectations, feed, inputBytes, loadCases, optionsFor } from "./support/cases.js"

/**
 * Cases where openai-node reads the bytes without an error but is wrong, by design of this codec
 * (DECISIONS.md): it merges calls that reuse index 0 (D15), overwrites a name split over pieces
 * (D18), files a call with no index under `undefined`, and adds content given as typed parts to
 * the text as `[object Object]` (D59).
 */
const knownDifferent = new Set([
  "ollama-parallel-index-zero",
  "ollama-parallel-index-zero-one-chunk",
  "ollama-index-zero-reuse-fragments",
  "name-split-over-pieces",
  "content-not-string",
])

const readWithOpenAi = (bytes: Uint8Array) =>
  Effect.tryPromise(async () => {
    const client = new OpenAI({
      apiKey: "test",
      // It logs each data line it cannot parse; what it made of the stream is what is compared.
      logLevel: "off",
      baseURL: "http://127.0.0.1:9/v1",
      maxRetries: 0,
      fetch: async () =>
        new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream(), {
          headers: { "content-type": "text/event-stream" },
        }),
    })
    const stream = client.chat.completions.stream({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    })
    const done = await stream.finalChatCompletion()
    return done.choices[0]!.message
  })

const candidates = loadCases().flatMap((c) => {
  const bytes = inputBytes(c)
  if (bytes === undefined || knownDifferent.has(c.name)) return []
  const [mode, expectation] = expectations(c)[0]!
  if (!("ok" in expectation)) return []
  const ours = feed(OpenAiCodec.decoder(optionsFor(c, mode)), [bytes]).completion
  if (ours === undefined || (ours.finish !== "stop" && ours.finish !== "tool_calls")) return []
  return [{ c, bytes, ours }]
})

describe("differential: openai-node ChatCompletionStream", () => {
  it.effect("reads most of the fixtures it is compared on", () =>
    Effect.gen(function* () {
      let compared = 0
      for (const { c, bytes, ours } of candidates) {
        const message = yield* Effect.option(readWithOpenAi(bytes))
        if (message._tag === "None") continue
        compared++
        const theirs = message.value
        assert.strictEqual(ours.text, theirs.content ?? "", `${c.name}: text`)
        const theirCalls = (theirs.tool_calls ?? []).flatMap((call) =>
          call.type === "function" ? [call] : [],
        )
        assert.strictEqual(ours.calls.length, theirCalls.length, `${c.name}: number of calls`)
        theirCalls.forEach((call, i) => {
          const mine = ours.calls[i]!
          // Where the server sent no id, both generate one (ours: D11, made by `counterIds`).
          if (!/^gen\d+$/.test(mine.id))
            assert.strictEqual(mine.id, call.id, `${c.name}: id of call ${i}`)
          assert.strictEqual(mine.name, call.function.name, `${c.name}: name of call ${i}`)
          assert.strictEqual(
            mine.arguments,
            call.function.arguments,
            `${c.name}: arguments of call ${i}`,
          )
        })
      }
      assert.isAtLeast(compared, 60)
    }),
  )
})
