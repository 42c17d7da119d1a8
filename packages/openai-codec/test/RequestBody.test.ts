/**
 * Type tests, checked by `npm run typecheck` (vitest runs the file too): every body the encoder
 * can give satisfies the official `openai` package's `ChatCompletionCreateParams`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Completion, Request } from "@svir/core"
import { Effect } from "effect"
import type {
  ChatCompletionCreateParams,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions"
import { expectTypeOf } from "vitest"
import { OpenAiCodec, type RequestBody } from "../src/index.js"

describe("RequestBody", () => {
  it("satisfies the official client's parameters", () => {
    expectTypeOf<RequestBody.RequestBody>().toExtend<ChatCompletionCreateParams>()
    expectTypeOf<RequestBody.Streaming>().toExtend<ChatCompletionCreateParamsStreaming>()
    expectTypeOf<RequestBody.NonStreaming>().toExtend<ChatCompletionCreateParamsNonStreaming>()
    expectTypeOf<RequestBody.ChatMessage>().toExtend<
      ChatCompletionCreateParams["messages"][number]
    >()
    // The check is not vacuous: a body the client would refuse does not type.
    // @ts-expect-error `stream` must be a boolean
    const refused: ChatCompletionCreateParams = { model: "m", messages: [], stream: "yes" }
    assert.isDefined(refused)
  })

  it.effect("the encoder's result is one", () =>
    Effect.gen(function* () {
      const body = yield* OpenAiCodec.encode(Request.make("m").pipe(Request.user("Hi")), {
        stream: true,
      })
      const params: ChatCompletionCreateParams = body
      assert.strictEqual(params.model, "m")
    }),
  )

  it.effect("so is a lean body, and one that sends reasoning back", () =>
    Effect.gen(function* () {
      const answer = Completion.make({
        text: "42",
        reasoningBySource: [{ source: "reasoning_content", text: "thought" }],
        finish: "stop",
      })
      const request = Request.make("m").pipe(
        Request.user("Hi"),
        Request.assistant(answer),
        Request.user("And?"),
        Request.sendReasoning(true),
        Request.includeUsage(true),
      )
      const lean: ChatCompletionCreateParams = yield* OpenAiCodec.encode(request, {
        stream: true,
        lean: true,
      })
      assert.notProperty(lean, "stream_options")
      const params: ChatCompletionCreateParams = yield* OpenAiCodec.encode(request, {
        stream: true,
      })
      assert.deepStrictEqual(params.messages[1], {
        role: "assistant",
        content: "42",
        reasoning_content: "thought",
      } as ChatCompletionCreateParams["messages"][number])
    }),
  )
})
