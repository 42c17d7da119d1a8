// The smoke test of the built packages (dist), bundled by esbuild for a browser and for workerd:
// a tool registered, a request encoded, a recorded stream decoded byte by byte, a completion
// streamed with @svir/client from @svir/testing's scripted server, and a conformance case run by
// @svir/conformance's main entry (which must import no `node:` builtin). Imports only what a browser
// or a Worker has; `run.mjs` drives it. Each check gives { name, ok, detail }.
import { Client } from "@svir/client"
import { Runner } from "@svir/conformance"
import { Codec, Request } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"
import { Tools } from "@svir/registry"
import { Cause, Effect, Schema, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
// A recording of a real stream (two calls, their names and arguments in pieces), as text.
import recorded from "../../packages/conformance/cases/openai/svir/recordings/tools.sse"

const check = (name, ok, detail) => ({ name, ok: ok === true, detail: String(detail) })

const tools = Tools.empty.pipe(
  Tools.add(
    "add",
    "Add two numbers.",
    Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
    ({ a, b }) => Effect.succeed(String(a + b)),
  ),
)

const registry = Effect.gen(function* () {
  const result = yield* Tools.call(tools, { id: "call_1", name: "add", arguments: '{"a":2,"b":3}' })
  return check("registry: Tools.add, then call", result.content === "5", JSON.stringify(result))
})

const encoding = Effect.gen(function* () {
  const request = yield* Request.make("m").pipe(
    Request.user("What is 2 + 3?"),
    Request.toolsFrom(tools),
  )
  const body = yield* OpenAiCodec.make().encode(request, { stream: true })
  const json = typeof body === "string" ? JSON.parse(body) : body
  const tool = json.tools?.[0]?.function?.name
  return check(
    "openai-codec: encode a request with a tool",
    tool === "add" && json.stream === true,
    tool,
  )
})

const decoding = Effect.sync(() => {
  const bytes = new TextEncoder().encode(recorded)
  const codec = OpenAiCodec.make()
  const whole = Codec.decodeChunks(codec, [bytes])
  const byByte = Codec.decodeChunks(
    codec,
    Array.from(bytes, (byte) => Uint8Array.of(byte)),
  )
  const done = (step) => step.events.find((event) => event._tag === "Completed")?.completion
  const a = done(whole)
  const b = done(byByte)
  const calls = (completion) =>
    completion?.calls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(" ")
  const same = a !== undefined && b !== undefined && calls(a) === calls(b) && a.finish === b.finish
  return check(
    "openai-codec: decode a recorded stream byte by byte, as whole",
    same && a.calls.length === 2 && whole.error === undefined && byByte.error === undefined,
    `${calls(b)} ${b?.finish}`,
  )
})

const conformance = Effect.gen(function* () {
  const sse = [
    'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}',
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
    "data: [DONE]",
  ].join("\n\n")
  const report = yield* Runner.run(OpenAiCodec.make, [
    { name: "text", sse: `${sse}\n\n`, expect: { ok: { text: "Hi", finish: "stop" } } },
  ])
  return check(
    "conformance: Runner.run a case at every chunking",
    report.passed > 0 && report.failed === 0,
    Runner.formatCounts(report),
  )
})

const streaming = (baseUrl) =>
  Effect.gen(function* () {
    // No apiKey: the client looks for OPENAI_API_KEY where the runtime has an environment, and
    // finds none here (a page has no `process`, a Worker no such variable), never a defect.
    const client = yield* Client.make({ baseUrl })
    const request = Request.make("scripted").pipe(Request.user("Hi"))
    const events = yield* Stream.runCollect(client.stream(request))
    const text = Array.from(events)
      .filter((event) => event._tag === "TextDelta")
      .map((event) => event.text)
      .join("")
    return check(
      "client: stream a completion from the scripted server",
      text === "Hello from the scripted server",
      text,
    )
  }).pipe(Effect.provide(FetchHttpClient.layer))

/** Runs every check; a failure or a defect of one is its failed check, never a throw. */
export const smoke = (baseUrl) => {
  const guarded = (name, effect) =>
    effect.pipe(
      Effect.catchCause((cause) => Effect.succeed(check(name, false, Cause.pretty(cause)))),
    )
  return Effect.runPromise(
    Effect.all([
      guarded("registry", registry),
      guarded("encode", encoding),
      guarded("decode", decoding),
      guarded("conformance", conformance),
      guarded("client", streaming(baseUrl)),
    ]),
  )
}
