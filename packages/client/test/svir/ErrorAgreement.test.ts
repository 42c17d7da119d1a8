/**
 * One error body, two places: as the body of a refused request (the codec's `http.readError`) and
 * as an error inside a stream (the codec's decoder). Both read it with the codec's `ServerError`,
 * so a context overflow or the content filter is told the same way in both; what is neither is
 * Unsupported over HTTP and Server in a stream (the Rust crate's D29, D30, D36).
 */
import { assert, describe, it } from "@effect/vitest"
import { Codec, type SvirError } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"

const bodies: ReadonlyArray<readonly [string, SvirError.Kind]> = [
  [
    '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208656 tokens > 200000 maximum"}}',
    "ContextOverflow",
  ],
  [
    '{"error":{"message":"This model\'s maximum context length is 8192 tokens."}}',
    "ContextOverflow",
  ],
  ['{"error":{"code":"context_length_exceeded","message":"too long"}}', "ContextOverflow"],
  ['{"error":{"code":400,"type":"exceed_context_size_error","message":"x"}}', "ContextOverflow"],
  ['{"detail":"Protected conversation exceeds the available context budget."}', "ContextOverflow"],
  ['{"error":{"code":"content_filter","message":"filtered"}}', "ContentFilter"],
  ['{"error":{"code":"invalid_api_key","message":"bad key"}}', "Unsupported"],
  ['{"error":"model not found"}', "Unsupported"],
]

const codec = OpenAiCodec.make()

const inStream = (body: string): SvirError.Kind | undefined => {
  const decoder = codec.decoder()
  const step = decoder.push(new TextEncoder().encode(`data: ${body}\n\n`))
  return (step.error ?? decoder.finish().error)?.reason._tag
}

describe("an error body over HTTP and inside a stream", () => {
  for (const [body, kind] of bodies) {
    it(`${body} is ${kind} on a 400, and the same inside a stream`, () => {
      assert.strictEqual(Codec.http(codec).readError({ status: 400, headers: {}, body }).kind, kind)
      // What is neither an overflow nor the filter is the server failing mid-answer in a stream.
      assert.strictEqual(inStream(body), kind === "Unsupported" ? "Server" : kind)
    })
  }
})
