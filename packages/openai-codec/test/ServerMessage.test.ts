import { assert, describe, it } from "@effect/vitest"
import type { Codec, SvirError } from "@svir/core"
import { Effect } from "effect"
import { OpenAiCodec } from "../src/index.js"

// What a server can echo back: a key, or the user's prompt (pydantic's `input` field in FastAPI
// validation errors echoes the request body).
const secret = "sk-proj-SECRET0123456789 and the prompt: tell me my password"
const quoted = JSON.stringify(secret)
const chunk = (delta: string, finish = "null") =>
  `data: {"id":"c","choices":[{"index":0,"delta":${delta},"finish_reason":${finish}}]}\n\n`

const streams: ReadonlyArray<readonly [string, string, SvirError.Kind]> = [
  ["an error object in a chunk", `data: {"error":{"message":${quoted},"code":"x"}}\n\n`, "Server"],
  ["an error string in a chunk (mlx-lm)", `data: {"error":${quoted}}\n\n`, "Server"],
  ["detail as a string", `data: {"detail":${quoted}}\n\n`, "Server"],
  ["detail as a list", `data: {"detail":[{"msg":${quoted},"input":${quoted}}]}\n\n`, "Server"],
  ["detail as a list without msg", `data: {"detail":[{"input":${quoted}}]}\n\n`, "Server"],
  ["an error object without a message", `data: {"error":{"code":${quoted}}}\n\n`, "Server"],
  ["event: error with JSON", `event: error\ndata: {"error":{"message":${quoted}}}\n\n`, "Server"],
  ["event: error with a bare object", `event: error\ndata: {"message":${quoted}}\n\n`, "Server"],
  ["event: error with text", `event: error\ndata: ${secret}\n\n`, "Server"],
  [
    "an overflow message",
    `data: {"error":{"message":"context length exceeded: ${secret}"}}\n\n`,
    "ContextOverflow",
  ],
  ["data that is not JSON", `data: ${secret}\n\n`, "Protocol"],
  ["an unknown finish reason", chunk("{}", quoted), "Unsupported"],
]

const bodies: ReadonlyArray<readonly [string, string, SvirError.Kind]> = [
  ["an error object", `{"error":{"message":${quoted},"type":"invalid_request_error"}}`, "Server"],
  ["an error string", `{"error":${quoted}}`, "Server"],
  ["detail", `{"detail":[{"msg":${quoted}}]}`, "Server"],
  ["a body that is not JSON", `<html>${secret}</html>`, "Protocol"],
  [
    "an unknown finish reason",
    `{"choices":[{"index":0,"message":{"content":"Hi"},"finish_reason":${quoted}}]}`,
    "Unsupported",
  ],
]

const errorOf = (sse: string): SvirError.SvirError | undefined => {
  const decoder = OpenAiCodec.decoder()
  const steps: Array<Codec.DecodeStep> = [decoder.push(new TextEncoder().encode(sse))]
  if (!decoder.done()) steps.push(decoder.finish())
  return steps.find((step) => step.error !== undefined)?.error
}

describe("the server's own words", () => {
  for (const [where, sse, kind] of streams) {
    it(`from ${where} in a stream are in serverMessage, not in message`, () => {
      const error = errorOf(sse)
      assert.strictEqual(error?.reason._tag, kind)
      assert.notInclude(error!.message, "SECRET")
      assert.include(error!.serverMessage ?? "", "SECRET")
    })
  }
  for (const [where, body, kind] of bodies) {
    it.effect(`from ${where} in a whole response are in serverMessage, not in message`, () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(OpenAiCodec.decodeResponse(body))
        assert.strictEqual(error.reason._tag, kind)
        assert.notInclude(error.message, "SECRET")
        assert.include(error.serverMessage ?? "", "SECRET")
      }),
    )
  }

  it("a stream's error says in the codec's words what happened", () => {
    assert.strictEqual(
      errorOf(`data: {"error":{"message":${quoted}}}\n\n`)?.message,
      "the server reported an error in the stream",
    )
  })
})
