import { assert, describe, it } from "@effect/vitest"
import type { Completion, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { feed, joined } from "../../../test/decoding.js"
import { Reasoning, ResponsesCodec, ServerError } from "../src/index.js"
import { eventErrors, responseErrors } from "./support/openapi.js"
import {
  answers,
  apiFramed,
  events,
  paths,
  read,
  streams,
  vercelFramed,
} from "./support/recordings.js"

const utf8 = new TextEncoder()

type Mode = "strict" | "lenient"

const modes = ["strict", "lenient"] as const

/** A stream decoded whole, in a mode. */
const decode = (text: string, mode: Mode = "strict") =>
  feed(ResponsesCodec.decoder({ mode }), [utf8.encode(text)])

/** The text of a chunks recording, in both framings: both must give the same outcome. */
const decodeChunksText = (chunks: string, mode: Mode = "strict") => {
  const api = decode(apiFramed(chunks), mode)
  const vercel = decode(vercelFramed(chunks), mode)
  assert.deepStrictEqual(vercel, api, "the framing changed the outcome")
  return api
}

const decodeChunks = (path: string, mode: Mode = "strict") => decodeChunksText(read(path), mode)

const completed = (outcome: ReturnType<typeof decode>): Completion.Completion => {
  assert.isUndefined(outcome.error, outcome.error?.message)
  assert.isDefined(outcome.completion)
  return outcome.completion!
}

/** The outcome of a stream, the same in both modes. */
const completedInBothModes = (
  decodeIn: (mode: Mode) => ReturnType<typeof decode>,
): Completion.Completion => {
  const strict = decodeIn("strict")
  assert.deepStrictEqual(decodeIn("lenient"), strict, "the mode changed the outcome")
  return completed(strict)
}

const whole = (path: string, mode: Mode = "strict") =>
  Effect.runSyncExit(ResponsesCodec.decodeResponse(read(path), { mode }))

const wholeCompletion = (path: string, mode: Mode = "strict"): Completion.Completion => {
  const exit = whole(path, mode)
  if (Exit.isFailure(exit)) assert.fail(`${path} failed: ${String(exit.cause)}`)
  return exit.value
}

const wholeError = (path: string, mode: Mode = "strict"): SvirError.SvirError => {
  const exit = whole(path, mode)
  if (Exit.isSuccess(exit)) return assert.fail(`${path} gave a completion`)
  const reason = exit.cause.reasons[0]
  if (reason?._tag !== "Fail") return assert.fail(`${path} did not fail with an error`)
  return reason.error
}

type JsonObject = { readonly [key: string]: unknown }

/** A usage as the codec reads it: input, output and total tokens, then the details. */
const usage = (
  input: number,
  output: number,
  total: number,
  details: { readonly cached: number; readonly reasoning: number },
): Completion.Usage => ({
  input,
  output,
  total,
  cachedInput: details.cached,
  reasoning: details.reasoning,
})

/** The items a completion carries, to compare with the recording's items. */
const carried = (done: Completion.Completion): ReadonlyArray<JsonObject> => Reasoning.items(done)

/** The item of the recording's `output_item.done` with this id, as the server completed it. */
const itemDone = (path: string, id: string): JsonObject => {
  for (const event of events(path) as ReadonlyArray<JsonObject>) {
    const item = event.item as JsonObject | undefined
    if (event.type === "response.output_item.done" && item?.id === id) return item
  }
  return assert.fail(`${path} has no output_item.done for ${id}`)
}

/** The recording's `response.output_text.done` texts, joined. */
const doneText = (path: string): string =>
  (events(path) as ReadonlyArray<JsonObject>)
    .filter((event) => event.type === "response.output_text.done")
    .map((event) => event.text as string)
    .join("")

describe("streams of function calls", () => {
  it("issue-19493 (gpt-5.1): one call, its arguments in six pieces, the obfuscation fields ignored", () => {
    const outcome = decodeChunks("vercel/issue-19493-gpt-5.1-tool-call.chunks.txt")
    const done = completedInBothModes((mode) =>
      decodeChunks("vercel/issue-19493-gpt-5.1-tool-call.chunks.txt", mode),
    )
    assert.deepStrictEqual(done.calls, [
      { id: "call_2FQdm3Br7Qb35YUBSkDR7kue", name: "get_weather", arguments: '{"city":"Beijing"}' },
    ])
    assert.strictEqual(done.finish, "tool_calls")
    assert.strictEqual(done.id, "resp_0775572d10a16b66006a8d85285ef487d2ae865d3657af7276")
    assert.strictEqual(done.model, "gpt-5.1-2025-11-13")
    assert.deepStrictEqual(done.usage, usage(45, 25, 70, { cached: 0, reasoning: 0 }))
    const calls = outcome.events.filter((event) => event._tag === "ToolCallDelta")
    assert.deepStrictEqual(calls[0], {
      _tag: "ToolCallDelta",
      index: 0,
      id: "call_2FQdm3Br7Qb35YUBSkDR7kue",
      name: "get_weather",
      arguments: "",
    })
    assert.deepStrictEqual(
      calls.slice(1).map((event) => event.arguments),
      ['{"', "city", '":"', "Be", "ijing", '"}'],
    )
  })

  it("prism stream-with-tools-responses-1 (gpt-4o): two calls of one answer, in their order", () => {
    const outcome = decode(read("prism/stream-with-tools-responses-1.sse"))
    const done = completedInBothModes((mode) =>
      decode(read("prism/stream-with-tools-responses-1.sse"), mode),
    )
    assert.deepStrictEqual(done.calls, [
      {
        id: "call_okunv0eUNIXE8kqY81fgYvCs",
        name: "search",
        arguments: '{"query":"Detroit Tigers game schedule October 10, 2023"}',
      },
      { id: "call_ydtVlYcFLcDX2C7dcHgKZjl3", name: "weather", arguments: '{"city":"Detroit"}' },
    ])
    assert.strictEqual(done.finish, "tool_calls")
    assert.deepStrictEqual(done.usage, usage(92, 52, 144, { cached: 0, reasoning: 0 }))
    // Each call's pieces under its own index, the first event of each naming it.
    assert.deepStrictEqual(joined(outcome.events).calls, done.calls)
  })

  it("azure-tool-call.1 (Azure OpenAI, gpt-5.1): the call, the content_filters field ignored", () => {
    const done = completedInBothModes((mode) =>
      decodeChunks("vercel/azure-tool-call.1.chunks.txt", mode),
    )
    assert.deepStrictEqual(done.calls, [
      {
        id: "call_H5DxLSFnsGhiROnUiDHmgyc8",
        name: "weather",
        arguments: '{"location":"San Francisco"}',
      },
    ])
    assert.strictEqual(done.model, "gpt-5.1")
    assert.deepStrictEqual(done.usage, usage(45, 24, 69, { cached: 0, reasoning: 0 }))
  })

  it("issue-19067: the parallel wrapper is a call named parallel, its arguments as sent", () => {
    // Made by hand after gpt-5.4 answers; response.completed has an empty output (D16).
    const done = completedInBothModes((mode) =>
      decodeChunks("vercel/issue-19067-parallel-tool-call-wrapper.chunks.txt", mode),
    )
    assert.strictEqual(done.calls.length, 1)
    assert.strictEqual(done.calls[0]!.id, "call_parallel")
    assert.strictEqual(done.calls[0]!.name, "parallel")
    assert.deepStrictEqual(JSON.parse(done.calls[0]!.arguments), {
      tool_uses: [
        { recipient_name: "functions.weather", parameters: { location: "San Francisco" } },
        { recipient_name: "functions.cityAttractions", parameters: { city: "Rome" } },
      ],
    })
    assert.deepStrictEqual(done.usage, usage(34, 28, 62, { cached: 0, reasoning: 0 }))
  })
})

describe("streams of text", () => {
  it("azure-text.1 (Azure OpenAI): Hello", () => {
    const done = completedInBothModes((mode) =>
      decodeChunks("vercel/azure-text.1.chunks.txt", mode),
    )
    assert.strictEqual(done.text, "Hello")
    assert.strictEqual(done.finish, "stop")
    assert.strictEqual(done.id, "resp_02ce8deeb6197db200698c5196e9588197a572bbea62d38cd1")
    assert.deepStrictEqual(done.usage, usage(11, 11, 22, { cached: 0, reasoning: 0 }))
  })

  it("issue-20047 (gpt-4o-mini): OK", () => {
    const done = completedInBothModes((mode) =>
      decodeChunks("vercel/issue-20047-openai-responses.chunks.txt", mode),
    )
    assert.strictEqual(done.text, "OK")
    assert.strictEqual(done.id, "resp_sanitized_streaming")
    assert.strictEqual(done.model, "gpt-4o-mini-2024-07-18")
    assert.deepStrictEqual(done.calls, [])
    assert.deepStrictEqual(done.usage, usage(12, 2, 14, { cached: 0, reasoning: 0 }))
  })

  it("prism stream-basic-text-responses-1 (gpt-4-0613): 60 pieces, as the API framed them", () => {
    const outcome = decode(read("prism/stream-basic-text-responses-1.sse"))
    const done = completedInBothModes((mode) =>
      decode(read("prism/stream-basic-text-responses-1.sse"), mode),
    )
    assert.strictEqual(
      done.text,
      "I am OpenAI's language model, known as GPT-3. I'm an artificial intelligence designed to comprehend text inputs and generate text outputs based on those inputs. I'm trained on a wide range of internet text, but I don't have personal experiences because I am a machine learning model.",
    )
    assert.strictEqual(outcome.events.filter((event) => event._tag === "TextDelta").length, 60)
    assert.deepStrictEqual(done.usage, usage(10, 62, 72, { cached: 0, reasoning: 0 }))
  })
})

describe("streams of reasoning", () => {
  it("openai-reasoning-encrypted-content.1: the first answer is read, its reasoning item carried whole", () => {
    const path = "vercel/openai-reasoning-encrypted-content.1.chunks.txt"
    const done = completedInBothModes((mode) => decodeChunks(path, mode))
    assert.strictEqual(done.model, "gpt-5.1-codex-max")
    assert.deepStrictEqual(done.calls, [
      {
        id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
        name: "calculator",
        arguments: '{"a":12,"b":7,"op":"add"}',
      },
    ])
    const item = itemDone(path, "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9")
    // The item as output_item.done gave it: its encrypted content is not the one of
    // output_item.added (844 characters) nor of response.completed (encrypted anew).
    assert.deepStrictEqual(carried(done), [item])
    assert.strictEqual((item.encrypted_content as string).length, 1060)
    assert.isTrue(done.reasoning.startsWith("**Calculating step-by-step using calculator**"))
    assert.deepStrictEqual(done.usage, usage(134, 28, 162, { cached: 0, reasoning: 0 }))
  })

  it("openai-reasoning-encrypted-content.1: the bytes after response.completed are not read", () => {
    const steps = answers(read("vercel/openai-reasoning-encrypted-content.1.chunks.txt"))
    assert.strictEqual(steps.length, 4)
    assert.deepStrictEqual(
      decodeChunks("vercel/openai-reasoning-encrypted-content.1.chunks.txt"),
      decodeChunksText(steps[0]!),
    )
  })

  it("openai-reasoning-encrypted-content.1: each step of the loop, read as an answer of its own", () => {
    const steps = answers(read("vercel/openai-reasoning-encrypted-content.1.chunks.txt")).map(
      (step) => completedInBothModes((mode) => decodeChunksText(step, mode)),
    )
    assert.deepStrictEqual(
      steps.map((step) => step.calls.map((call) => call.arguments)),
      [
        ['{"a":12,"b":7,"op":"add"}'],
        ['{"a":19,"b":3,"op":"multiply"}'],
        ['{"a":57,"b":10,"op":"multiply"}'],
        [],
      ],
    )
    assert.deepStrictEqual(
      steps.map((step) => step.finish),
      ["tool_calls", "tool_calls", "tool_calls", "stop"],
    )
    assert.strictEqual(steps[3]!.text, "The final result is **570**.")
    assert.deepStrictEqual(steps[3]!.usage, usage(299, 12, 311, { cached: 0, reasoning: 0 }))
    assert.deepStrictEqual(
      steps.map((step) => Reasoning.items(step).length),
      [1, 0, 0, 0],
    )
  })

  it("gpt-5-4-split: twelve summary parts joined by blank lines, the encrypted content kept", () => {
    const path = "vercel/openai-reasoning-encrypted-content-gpt-5-4-split.1.chunks.txt"
    const outcome = decodeChunks(path)
    const done = completedInBothModes((mode) => decodeChunks(path, mode))
    const item = itemDone(path, "rs_0842a5a14f2f9e5c0169ad5f6e6cd08197b2d264053c22098a")
    const summary = item.summary as ReadonlyArray<{ readonly text: string }>
    assert.strictEqual(summary.length, 12)
    assert.deepStrictEqual(carried(done), [item])
    assert.strictEqual((item.encrypted_content as string).length, 17060)
    assert.strictEqual(done.reasoning, summary.map((part) => part.text).join("\n\n"))
    assert.strictEqual(done.text, doneText(path))
    assert.isTrue(done.text.startsWith("Taqueria La Cumbre and El Farolito"))
    assert.strictEqual(done.model, "gpt-5.4-2026-03-05")
    assert.deepStrictEqual(done.usage, usage(42, 2655, 2697, { cached: 0, reasoning: 2539 }))
    // The 1,237 pieces and the separators between parts add up to the reasoning.
    assert.strictEqual(joined(outcome.events).reasoning, done.reasoning)
  })

  it("prism reasoning-1 (o3-mini): a reasoning item with no summary is carried, with no text", () => {
    const done = completedInBothModes((mode) =>
      decode(read("prism/stream-multi-tool-conversation-responses-reasoning-1.sse"), mode),
    )
    assert.strictEqual(done.reasoning, "")
    const items = Reasoning.items(done)
    assert.deepStrictEqual(
      items.map((item) => [item.id, item.summary.length, item.encrypted_content]),
      [["rs_684d56f6756c819b9b613969b065f0db047d862f728dc6af", 0, undefined]],
    )
    assert.deepStrictEqual(done.calls, [
      {
        id: "call_pwommJaQW44clnyKtxwUQv0D",
        name: "search",
        arguments: '{"query": "Detroit Tigers game time today"}',
      },
    ])
    assert.deepStrictEqual(done.usage, usage(78, 851, 929, { cached: 0, reasoning: 832 }))
  })

  it("lmstudio-tool-call.1 (LM Studio): reasoning_text content, a message, a call given whole", () => {
    const outcome = decodeChunks("vercel/lmstudio-tool-call.1.chunks.txt")
    const done = completedInBothModes((mode) =>
      decodeChunks("vercel/lmstudio-tool-call.1.chunks.txt", mode),
    )
    assert.strictEqual(
      done.reasoning,
      'The user is asking for the weather in San Francisco. I have a weather function available that takes a location parameter. The user has provided "San Francisco" as the location, so I have all the required information to make the function call.',
    )
    assert.strictEqual(
      done.text,
      "I'll get the current weather information for San Francisco for you.",
    )
    assert.deepStrictEqual(done.calls, [
      {
        id: "call_2025306790300011",
        name: "weather",
        arguments: '{"location":"San Francisco"}',
      },
    ])
    assert.strictEqual(done.model, "zai-org/glm-4.7-flash")
    assert.deepStrictEqual(done.usage, usage(182, 61, 243, { cached: 2, reasoning: 48 }))
    // No argument pieces came: the arguments of output_item.done are given as one piece.
    assert.deepStrictEqual(
      outcome.events.filter((event) => event._tag === "ToolCallDelta"),
      [
        {
          _tag: "ToolCallDelta",
          index: 0,
          id: "call_2025306790300011",
          name: "weather",
          arguments: "",
        },
        { _tag: "ToolCallDelta", index: 0, arguments: '{"location":"San Francisco"}' },
      ],
    )
  })

  it("github-copilot-id-rotation (gpt-5.3-codex): items found by output_index though every event names another id", () => {
    const path = "vercel/github-copilot-id-rotation.1.chunks.txt"
    const done = completedInBothModes((mode) => decodeChunks(path, mode))
    assert.strictEqual(
      done.text,
      "There are **3** letter **“r”**s in **“strawberry.”**\n\nBreakdown: **s t r a w b e r r y**  \nYou can see **r** at positions **3, 8, and 9**.",
    )
    assert.strictEqual(done.reasoning, "**Counting character occurrences**")
    assert.deepStrictEqual(carried(done), [itemDone(path, "capture-id-8")])
    assert.strictEqual(done.id, "capture-id-1", "the id of the first event that names one")
    assert.strictEqual(done.model, "gpt-5.3-codex")
    assert.deepStrictEqual(done.usage, usage(19, 105, 124, { cached: 0, reasoning: 44 }))
  })

  it("azure-gpt5 multi-summary: the anonymized text pieces are not the text done (strict refuses, lenient keeps the item)", () => {
    // vercel/ai replaced the text pieces by X's and the text done by a placeholder sentence: the
    // stream contradicts itself (D15).
    for (const [file, parts] of [
      ["azure-gpt5-reasoning-multi-summary-no-encryption.chunks.txt", 3],
      ["azure-gpt5-reasoning-multi-summary-with-encryption.chunks.txt", 6],
    ] as const) {
      const path = `vercel/${file}`
      const strict = decodeChunks(path)
      assert.strictEqual(strict.error?.reason._tag, "Protocol", file)
      assert.isUndefined(strict.completion)
      const lenient = completed(decodeChunks(path, "lenient"))
      assert.strictEqual(lenient.text, "Anonymized assistant response text.")
      assert.deepStrictEqual(lenient.notes, [
        "the streamed pieces of an output item were not what the item holds; the item is kept",
      ])
      const items = Reasoning.items(lenient)
      assert.strictEqual(items.length, 1)
      assert.strictEqual(items[0]!.summary.length, parts)
      assert.deepStrictEqual(carried(lenient)[0], itemDone(path, items[0]!.id))
    }
  })

  it("azure-gpt5 with encryption: the whole encrypted content of output_item.done, not the partial one of output_item.added", () => {
    const lenient = completed(
      decodeChunks(
        "vercel/azure-gpt5-reasoning-multi-summary-with-encryption.chunks.txt",
        "lenient",
      ),
    )
    const encrypted = Reasoning.items(lenient)[0]!.encrypted_content!
    assert.strictEqual(encrypted.length, 13688)
    assert.isTrue(encrypted.startsWith("AZURE_FIXTURE_CANONICAL_"))
    assert.deepStrictEqual(lenient.usage, usage(100, 500, 600, { cached: 0, reasoning: 300 }))
  })
})

describe("a built-in tool's items", () => {
  it("openai-web-search-tool.1: refused in strict mode, left out with notes in lenient mode", () => {
    const path = "vercel/openai-web-search-tool.1.chunks.txt"
    const strict = decodeChunks(path)
    assert.strictEqual(strict.error?.reason._tag, "Unsupported")
    assert.isUndefined(strict.completion)
    const lenient = completed(decodeChunks(path, "lenient"))
    assert.strictEqual(lenient.notes?.length, 2)
    assert.strictEqual(lenient.notes?.[0], "an output item of type web_search_call was left out")
    assert.isTrue(lenient.notes?.[1]?.startsWith("annotations of the text"))
    assert.strictEqual(lenient.text, doneText(path))
    assert.isTrue(lenient.text.startsWith("Here’s what’s notable in Berlin today"))
    assert.deepStrictEqual(lenient.calls, [], "a built-in tool's call is not the caller's to run")
    assert.strictEqual(lenient.finish, "stop")
    // Its five reasoning items (no summary, no encrypted content) are carried all the same.
    assert.strictEqual(Reasoning.items(lenient).length, 5)
    assert.deepStrictEqual(
      lenient.usage,
      usage(60093, 4080, 64173, { cached: 34560, reasoning: 3648 }),
    )
  })
})

/** A stream that ended in the server's error: no completion, the error's kind and words. */
const assertServerError = (
  outcome: ReturnType<typeof decode>,
  kind: SvirError.Kind,
  words: string,
): void => {
  assert.isUndefined(outcome.completion)
  assert.strictEqual(outcome.error?.reason._tag, kind)
  assert.strictEqual(outcome.error?.serverMessage, words)
}

describe("errors in the stream", () => {
  it("openai-error.1: the error event (insufficient_quota) ends the answer, before response.failed", () => {
    for (const mode of modes) {
      const outcome = decodeChunks("vercel/openai-error.1.chunks.txt", mode)
      assertServerError(
        outcome,
        "Authentication",
        "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
      )
      assert.isFalse(outcome.error?.isRetryable)
    }
  })

  it("openai-error-null-code, .1: a server_error with code null is a retryable Transport error", () => {
    for (const [file, words] of [
      ["openai-error-null-code.chunks.txt", "An error occurred while processing the request."],
      ["openai-error-null-code.1.chunks.txt", "Sorry, something went wrong."],
    ] as const) {
      for (const mode of modes) {
        const outcome = decodeChunks(`vercel/${file}`, mode)
        assertServerError(outcome, "Transport", words)
        assert.deepStrictEqual(outcome.events, [])
        assert.isTrue(outcome.error?.isRetryable)
      }
    }
  })

  it("openai-response-failed-only.1: response.failed alone gives its error, rate_limit_exceeded", () => {
    for (const mode of modes) {
      const outcome = decodeChunks("vercel/openai-response-failed-only.1.chunks.txt", mode)
      assertServerError(
        outcome,
        "RateLimited",
        "Request too large for gpt-4o-mini in organization on tokens per min (TPM): Limit 30000, Requested 35364.",
      )
      assert.isTrue(outcome.error?.isRetryable)
    }
  })

  it("prism stream-rate-limited-1: rate_limit_exceeded whose type is tokens", () => {
    const path = "prism/stream-rate-limited-1.sse"
    const error = (events(path) as ReadonlyArray<JsonObject>).find(
      (event) => event.type === "error",
    )?.error as JsonObject
    assert.strictEqual(error.type, "tokens")
    for (const mode of modes) {
      const outcome = decode(read(path), mode)
      assertServerError(outcome, "RateLimited", error.message as string)
      assert.isTrue(outcome.error?.isRetryable)
    }
  })
})

describe("whole answers", () => {
  it("issue-20047-openai-responses.json: OK, as streamed", () => {
    for (const mode of modes) {
      const done = wholeCompletion("vercel/issue-20047-openai-responses.json", mode)
      assert.strictEqual(done.text, "OK")
      assert.strictEqual(done.finish, "stop")
      assert.strictEqual(done.id, "resp_sanitized_normal")
      assert.deepStrictEqual(done.usage, usage(12, 2, 14, { cached: 0, reasoning: 0 }))
    }
  })

  it("azure-tool-call.1.json and lmstudio-tool-call.1.json: one call each", () => {
    const azure = wholeCompletion("vercel/azure-tool-call.1.json")
    assert.deepStrictEqual(azure.calls, [
      {
        id: "call_YunNGbIwdVJ2i0y0Mybva4Pw",
        name: "weather",
        arguments: '{"location":"San Francisco"}',
      },
    ])
    assert.strictEqual(azure.finish, "tool_calls")
    const lmstudio = wholeCompletion("vercel/lmstudio-tool-call.1.json")
    assert.deepStrictEqual(lmstudio.calls, [
      {
        id: "call_2866856768160095",
        name: "weather",
        arguments: '{"location":"San Francisco"}',
      },
    ])
    assert.strictEqual(lmstudio.model, "mistralai/ministral-3-14b-reasoning")
    assert.deepStrictEqual(lmstudio.usage, usage(1189, 11, 1200, { cached: 891, reasoning: 0 }))
  })

  it("openai-reasoning-encrypted-content.1.json: the reasoning item carried with its encrypted content, then the text", () => {
    const path = "vercel/openai-reasoning-encrypted-content.1.json"
    const done = wholeCompletion(path)
    const body = JSON.parse(read(path)) as { readonly output: ReadonlyArray<JsonObject> }
    assert.deepStrictEqual(carried(done), body.output.slice(0, 1))
    assert.isTrue(
      (Reasoning.items(done)[0]!.encrypted_content ?? "").startsWith("gAAAAABpPMlcH0HHEv5_"),
    )
    assert.isTrue(done.reasoning.startsWith("**Reporting final result**\n\nThe tool returned 570"))
    assert.strictEqual(done.text, "12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570")
    assert.strictEqual(done.model, "gpt-5-mini-2025-08-07")
    assert.deepStrictEqual(done.usage, usage(865, 163, 1028, { cached: 0, reasoning: 128 }))
  })

  it("parallel-tool-call-wrapper.1.json: as streamed", () => {
    const done = wholeCompletion("vercel/parallel-tool-call-wrapper.1.json")
    const streamed = completed(
      decodeChunks("vercel/issue-19067-parallel-tool-call-wrapper.chunks.txt"),
    )
    assert.deepStrictEqual(done.calls, streamed.calls)
    assert.deepStrictEqual(done.usage, streamed.usage)
  })

  it("openai-web-search-tool.1.json: refused in strict mode, left out with notes in lenient mode", () => {
    assert.strictEqual(
      wholeError("vercel/openai-web-search-tool.1.json").reason._tag,
      "Unsupported",
    )
    const lenient = wholeCompletion("vercel/openai-web-search-tool.1.json", "lenient")
    assert.strictEqual(lenient.notes?.length, 2)
    assert.strictEqual(lenient.notes?.[0], "an output item of type web_search_call was left out")
    assert.isTrue(lenient.text.startsWith("Last week in San Francisco"))
    assert.deepStrictEqual(lenient.calls, [])
  })
})

describe("error bodies", () => {
  const bodies = [
    {
      path: "vercel/openai-error.1.json",
      status: 429,
      kind: "Authentication",
      words:
        "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
    },
    {
      path: "vercel/issue-12754-strict-compatible-error.json",
      status: 400,
      kind: "Unsupported",
      words: "Invalid request body: [INVALID_ARGUMENT] input must be string or input items",
    },
    {
      path: "vercel/reasoning-model-temperature-error.json",
      status: 400,
      kind: "Unsupported",
      words: "Unsupported parameter: 'temperature' is not supported with this model.",
    },
    {
      path: "vercel/openai-issue-17402-error.1.json",
      status: 400,
      kind: "Unsupported",
      words: "Missing required parameter: 'input[1].arguments'.",
    },
  ] as const

  it("ServerError.readError: the kind of each HTTP error answer, and the server's words", () => {
    for (const { path, status, kind, words } of bodies) {
      assert.deepStrictEqual(
        ServerError.readError({ status, headers: {}, body: read(path) }),
        { kind, words },
        path,
      )
    }
  })

  it("decodeResponse of an error body fails with the server's words, in both modes", () => {
    for (const { path, words } of bodies) {
      for (const mode of modes) {
        assert.strictEqual(wholeError(path, mode).serverMessage, words, path)
      }
    }
  })
})

describe("every streamed recording", () => {
  it("its events add up to its completion, when the stream does not contradict itself", () => {
    let checked = 0
    for (const { name, bytes } of streams()) {
      const outcome = feed(ResponsesCodec.decoder({ mode: "lenient" }), [bytes])
      const done = outcome.completion
      if (
        done === undefined ||
        done.notes?.some((note) => note.startsWith("the streamed pieces"))
      ) {
        continue
      }
      const pieces = joined(outcome.events)
      assert.strictEqual(pieces.text, done.text, name)
      assert.strictEqual(pieces.reasoning, done.reasoning, name)
      if (done.finish === "tool_calls") assert.deepStrictEqual(pieces.calls, done.calls, name)
      checked++
    }
    // 36 streams: 4 azure-gpt5 ones contradict themselves, 9 end in an error.
    assert.strictEqual(checked, 23)
  })
})

/**
 * What a recording departs from in the Open Responses specification: the fields its responses
 * lack (`ResponseResource` requires them all, null or not), the event types it does not list, and
 * every other error, with the lifecycle events' and the item events' schema names folded into
 * `response` and `item`.
 */
interface Departures {
  readonly missing?: ReadonlyArray<string>
  readonly events?: ReadonlyArray<string>
  readonly other?: ReadonlyArray<string>
}

const departuresOf = (path: string): Departures | undefined => {
  const missing = new Set<string>()
  const unknown = new Set<string>()
  const other = new Set<string>()
  const take = (type: unknown, error: string) => {
    if (error.startsWith("text/event-stream: ")) {
      unknown.add(String(type))
      return
    }
    const folded = error
      .replace(/^Response\w+StreamingEvent at \/response(\/\S*)?:/, (_, at: string | undefined) =>
        at === undefined ? "response:" : `response at ${at}:`,
      )
      .replace(
        /^ResponseResource( at \S+)?:/,
        (_, at: string | undefined) => `response${at ?? ""}:`,
      )
      .replace(/^ResponseOutputItem(?:Added|Done)StreamingEvent at \/item(\/\S*)?:/, (_, at) =>
        at === undefined ? "item:" : `item at ${at}:`,
      )
    const field = /^response: must have required property '(\w+)'$/.exec(folded)
    if (field !== null) missing.add(field[1]!)
    else other.add(folded)
  }
  if (path.endsWith(".json")) {
    const body = JSON.parse(read(path)) as JsonObject
    // An HTTP error body is no answer: the specification describes only the 200 answer.
    if (body.object !== "response") return undefined
    for (const error of responseErrors(body)) take(undefined, error)
  } else {
    for (const event of events(path) as ReadonlyArray<JsonObject>) {
      for (const error of eventErrors(event)) take(event.type, error)
    }
  }
  const sorted = (set: Set<string>) => (set.size === 0 ? undefined : [...set].sort())
  const found = { missing: sorted(missing), events: sorted(unknown), other: sorted(other) }
  return Object.fromEntries(Object.entries(found).filter(([, value]) => value !== undefined))
}

// Fields of ResponseResource that OpenAI's API added over 2025 (`completed_at`,
// `presence_penalty`, `frequency_penalty` came last): answers recorded before them lack them.
const beforeCompletedAt = ["completed_at", "frequency_penalty", "presence_penalty"]
// June 2025 answers (prism) lack four more, and the answers vercel/ai made by hand lack nine.
const june2025 = [
  ...beforeCompletedAt,
  "max_tool_calls",
  "prompt_cache_key",
  "safety_identifier",
  "top_logprobs",
].sort()
const madeByHand = [...june2025, "background", "service_tier"].sort()

// The built-in web_search tool: ResponseResource's `tools` lists only FunctionTool (type
// `function` with name, description, parameters, strict), its `output` and the item events list no
// `web_search_call` item, and the specification has no `response.web_search_call.*` event.
const webSearchTool = [
  "response at /tools/0/type: must be equal to one of the allowed values: function",
  "response at /tools/0: must have required property 'description'",
  "response at /tools/0: must have required property 'name'",
  "response at /tools/0: must have required property 'parameters'",
  "response at /tools/0: must have required property 'strict'",
]

/** Every departure of the recordings from the specification, by recording; the others have none. */
const knownDepartures: { readonly [path: string]: Departures | undefined } = {
  // Azure OpenAI answers without presence_penalty and frequency_penalty.
  "vercel/azure-text.1.chunks.txt": { missing: ["frequency_penalty", "presence_penalty"] },
  "vercel/azure-tool-call.1.chunks.txt": { missing: ["frequency_penalty", "presence_penalty"] },
  "vercel/azure-tool-call.1.json": { missing: ["frequency_penalty", "presence_penalty"] },
  // GitHub Copilot sends no prompt_cache_key, and `encrypted_content: null` in a reasoning item
  // (ReasoningBody allows a string only); ajv then reports the item's other branch (null) too.
  "vercel/github-copilot-id-rotation.1.chunks.txt": {
    missing: ["prompt_cache_key"],
    other: [
      "item at /encrypted_content: must be string",
      "item: must be null",
      "item: must match a schema in anyOf",
      "response at /output/0/encrypted_content: must be string",
    ],
  },
  // Made by hand: no sequence_number on any event (every streaming event requires it).
  "vercel/issue-19067-parallel-tool-call-wrapper.chunks.txt": {
    missing: madeByHand,
    other: [
      "ResponseCompletedStreamingEvent: must have required property 'sequence_number'",
      "ResponseCreatedStreamingEvent: must have required property 'sequence_number'",
      "ResponseFunctionCallArgumentsDeltaStreamingEvent: must have required property 'sequence_number'",
      "ResponseFunctionCallArgumentsDoneStreamingEvent: must have required property 'sequence_number'",
      "ResponseOutputItemAddedStreamingEvent: must have required property 'sequence_number'",
      "ResponseOutputItemDoneStreamingEvent: must have required property 'sequence_number'",
    ],
  },
  "vercel/parallel-tool-call-wrapper.1.json": { missing: madeByHand },
  // LM Studio streams reasoning content as OpenAI names it, response.reasoning_text.delta and
  // .done; the specification names those events response.reasoning.delta and .done.
  "vercel/lmstudio-tool-call.1.chunks.txt": {
    events: ["response.reasoning_text.delta", "response.reasoning_text.done"],
  },
  "vercel/openai-error.1.chunks.txt": { missing: beforeCompletedAt },
  "vercel/openai-reasoning-encrypted-content.1.chunks.txt": { missing: beforeCompletedAt },
  "vercel/openai-reasoning-encrypted-content.1.json": { missing: beforeCompletedAt },
  "vercel/openai-response-failed-only.1.chunks.txt": { missing: beforeCompletedAt },
  "vercel/openai-web-search-tool.1.chunks.txt": {
    missing: beforeCompletedAt,
    events: [
      "response.web_search_call.completed",
      "response.web_search_call.in_progress",
      "response.web_search_call.searching",
    ],
    other: [
      "item: must be null",
      "item: must match a schema in anyOf",
      'item: value of tag "type" must be in oneOf',
      'response at /output/1: value of tag "type" must be in oneOf',
      'response at /output/3: value of tag "type" must be in oneOf',
      'response at /output/5: value of tag "type" must be in oneOf',
      'response at /output/7: value of tag "type" must be in oneOf',
      ...webSearchTool,
    ].sort(),
  },
  "vercel/openai-web-search-tool.1.json": {
    missing: madeByHand,
    other: [
      'response at /output/0: value of tag "type" must be in oneOf',
      'response at /output/1: value of tag "type" must be in oneOf',
      ...webSearchTool,
    ].sort(),
  },
  "prism/stream-basic-text-responses-1.sse": { missing: june2025 },
  "prism/stream-multi-tool-conversation-responses-reasoning-1.sse": { missing: june2025 },
  "prism/stream-with-tools-responses-1.sse": { missing: june2025 },
  // July 2025: top_logprobs and max_tool_calls were there by then.
  "prism/stream-rate-limited-1.sse": {
    missing: [...beforeCompletedAt, "prompt_cache_key", "safety_identifier"].sort(),
  },
}

describe("the recordings against the Open Responses specification", () => {
  it("every event and every whole answer is valid, but for the known departures", () => {
    const found: { [path: string]: Departures } = {}
    for (const path of paths()) {
      if (path.endsWith(".md")) continue
      const departures = departuresOf(path)
      if (departures !== undefined && Object.keys(departures).length > 0) found[path] = departures
    }
    assert.deepStrictEqual(found, knownDepartures)
  })

  it("the recordings of OpenAI's API of late 2025 on are valid whole", () => {
    for (const path of [
      "vercel/issue-19493-gpt-5.1-tool-call.chunks.txt",
      "vercel/issue-20047-openai-responses.chunks.txt",
      "vercel/issue-20047-openai-responses.json",
      "vercel/openai-reasoning-encrypted-content-gpt-5-4-split.1.chunks.txt",
    ]) {
      assert.deepStrictEqual(departuresOf(path), {}, path)
    }
  })
})
