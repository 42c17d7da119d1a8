/**
 * The README's examples, read from the README itself and run: a request encoded, a stream
 * decoded, and the codec wrapped with plain fetch (here a fetch that answers from memory). Each
 * ```ts block is written as a module that exports the names a test uses, then imported.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import type { Completion, Event, Request, SvirError } from "@svir/core"
import { Effect, Result, Stream } from "effect"
import type { RequestBody } from "../src/index.js"

const blocks = [
  ...readFileSync(new URL("../README.md", import.meta.url), "utf8").matchAll(
    /^```ts\n([\s\S]*?)^```$/gm,
  ),
].map((match) => match[1]!)

/** The README's `index`th TypeScript block, as a module that exports `names`. */
const readmeBlock = async <A>(index: number, ...names: ReadonlyArray<string>): Promise<A> => {
  const folder = new URL("../.examples/", import.meta.url)
  mkdirSync(folder, { recursive: true })
  const file = new URL(`readme-${index}.ts`, folder)
  writeFileSync(file, `${blocks[index]}\nexport { ${names.join(", ")} }\n`)
  return (await import(file.href)) as A
}

const { request, body } = await readmeBlock<{
  readonly request: Request.Request
  readonly body: Effect.Effect<RequestBody.RequestBody, SvirError.SvirError>
}>(0, "request", "body")
const { decodeAll } = await readmeBlock<{
  readonly decodeAll: (
    chunks: Iterable<Uint8Array>,
    onText: (text: string) => void,
  ) => Result.Result<Completion.Completion, SvirError.SvirError>
}>(1, "decodeAll")
const { streamWithFetch } = await readmeBlock<{
  readonly streamWithFetch: (
    fetchFn: typeof fetch,
    baseUrl: string,
    apiKey: string,
    request: Request.Request,
  ) => Stream.Stream<Event.Event, SvirError.SvirError>
}>(2, "streamWithFetch")

const sse = [
  'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Sunny"},"finish_reason":null}]}\n\n',
  'data: {"choices":[{"index":0,"delta":{"content":" in Paris."},"finish_reason":"stop"}]}\n\n',
  "data: [DONE]\n\n",
]

describe("README examples", () => {
  it.effect("encodes a request", () =>
    Effect.gen(function* () {
      const encoded = yield* body
      assert.strictEqual(encoded.stream, true)
      assert.strictEqual(encoded.tools?.[0]?.function.name, "weather")
    }),
  )

  it("decodes a stream synchronously", () => {
    let shown = ""
    const done = decodeAll(
      sse.map((chunk) => new TextEncoder().encode(chunk)),
      (text) => {
        shown += text
      },
    )
    assert.isTrue(Result.isSuccess(done))
    assert.strictEqual(Result.isSuccess(done) ? done.success.text : undefined, "Sunny in Paris.")
    assert.strictEqual(shown, "Sunny in Paris.")
  })

  it.effect("runs over plain fetch", () =>
    Effect.gen(function* () {
      let sent: unknown
      const fakeFetch: typeof fetch = async (_url, init) => {
        sent = JSON.parse(String(init?.body))
        return new Response(new Blob(sse).stream(), {
          headers: { "content-type": "text/event-stream" },
        })
      }
      const events = yield* Stream.runCollect(
        streamWithFetch(fakeFetch, "http://127.0.0.1:9/v1", "key", request),
      )
      const last = events.at(-1)
      assert.strictEqual(
        last?._tag === "Completed" ? last.completion.text : undefined,
        "Sunny in Paris.",
      )
      assert.strictEqual((sent as { model: string }).model, "gpt-4o-mini")
    }),
  )
})
