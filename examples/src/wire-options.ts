/**
 * The options of the wire, end to end: sampling options, the codec's own options and a server's
 * own fields on the request, a query string on every URL (Azure's classic `api-version`), and what comes back
 * beside the text: log probabilities, streamed and whole, and the usage with its details, summed
 * over two turns.
 *
 * It plays a scripted server on 127.0.0.1 (the answers are written out below, as vLLM would send
 * them). Run it with `npx tsx --conditions=@svir/source examples/src/wire-options.ts`.
 */
import { fileURLToPath } from "node:url"
import { Client } from "@svir/client"
import { Completion, Request } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"
import { Answer, ScriptedServer } from "@svir/testing"
import { Console, Effect, Stream } from "effect"
import { FetchHttpClient } from "effect/http"

/** A question, sampled reproducibly, with the likeliest two tokens at each position. */
export const question = Request.make("Qwen/Qwen3-8B").pipe(
  Request.user("Is the Danube longer than the Rhine? Answer yes or no."),
  Request.seed(7),
  Request.topP(0.9),
  Request.stop("\n"),
  // Options only Chat Completions has, under the codec's name: another wire ignores them.
  OpenAiCodec.options({ logprobs: true, topLogprobs: 2 }),
  // vLLM's own switch, sent as it is: no thinking for a yes or no.
  Request.extra({ chat_template_kwargs: { enable_thinking: false } }),
)

const chunk = (body: object) => `data: ${JSON.stringify({ id: "chatcmpl-1", ...body })}\n\n`

/** How vLLM streams the answer: log probabilities beside the text, then the usage. */
const streamedAnswer = Answer.raw([
  chunk({
    choices: [
      {
        index: 0,
        delta: { role: "assistant", content: "Yes" },
        logprobs: {
          content: [
            {
              token: "Yes",
              logprob: -0.02,
              bytes: [89, 101, 115],
              top_logprobs: [
                { token: "Yes", logprob: -0.02, bytes: [89, 101, 115] },
                { token: "No", logprob: -3.9, bytes: [78, 111] },
              ],
            },
          ],
        },
        finish_reason: "stop",
      },
    ],
  }),
  chunk({
    choices: [],
    usage: {
      prompt_tokens: 31,
      completion_tokens: 1,
      total_tokens: 32,
      prompt_tokens_details: { cached_tokens: 16 },
    },
  }),
  "data: [DONE]\n\n",
])

/** The second turn, answered whole, as vLLM does without `stream`. */
const wholeAnswer = Answer.raw(
  JSON.stringify({
    id: "chatcmpl-2",
    object: "chat.completion",
    model: "Qwen/Qwen3-8B",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: "About 2,850 km." },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: {
      prompt_tokens: 48,
      completion_tokens: 9,
      total_tokens: 57,
      prompt_tokens_details: { cached_tokens: 32 },
    },
  }),
  { headers: { "content-type": "application/json" } },
)

export interface Summary {
  readonly first: string
  readonly alternatives: ReadonlyArray<string>
  readonly second: string
  readonly usage: Completion.Usage | undefined
}

/** Two turns against the scripted server, through a client that adds a query to every URL. */
export const run = Effect.scoped(
  Effect.gen(function* () {
    const server = yield* ScriptedServer.start([streamedAnswer, wholeAnswer])
    const client = yield* Client.make({
      baseUrl: server.url,
      query: { "api-version": "2024-10-21" },
    })
    let first: Completion.Completion | undefined
    const alternatives: Array<string> = []
    yield* client.stream(question).pipe(
      Stream.runForEach((event) =>
        Effect.sync(() => {
          if (event._tag === "LogprobsDelta") {
            for (const token of event.tokens) {
              alternatives.push(
                token.topLogprobs.map((top) => `${top.token} ${top.logprob}`).join(", "),
              )
            }
          }
          if (event._tag === "Completed") first = event.completion
        }),
      ),
    )
    if (first === undefined) return yield* Effect.die("the stream ended without its answer")
    const next = question.pipe(Request.assistant(first), Request.user("How long is the Danube?"))
    const second = yield* client.complete(next)
    const usage =
      first.usage !== undefined && second.usage !== undefined
        ? Completion.addUsage(first.usage, second.usage)
        : undefined
    return { first: first.text, alternatives, second: second.text, usage } satisfies Summary
  }),
).pipe(Effect.provide(FetchHttpClient.layer))

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  Effect.runPromise(
    Effect.flatMap(run, (summary) =>
      Console.log(
        [
          `first answer:  ${summary.first} (alternatives: ${summary.alternatives.join("; ")})`,
          `second answer: ${summary.second}`,
          `usage, both turns: ${JSON.stringify(summary.usage)}`,
        ].join("\n"),
      ),
    ),
  )
}
