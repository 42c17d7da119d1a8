/**
 * Telemetry: install OpenTelemetry's SDK through `@effect/opentelemetry`, run a model call and a
 * tool call, and read the spans svir made, named and shaped by OpenTelemetry's GenAI conventions:
 * `chat {model}` with the models, the tokens, the finish reasons and the server;
 * `execute_tool {name}` with the tool and the call's id. No prompt, answer, argument or result
 * is in them unless `GenAi.RecordContent` is `true`.
 *
 * The spans here go to an in-memory exporter, to be printed; in a program of yours they go to
 * your collector (an OTLP exporter in the same place). Run it with
 * `npx tsx --conditions=@svir/source examples/src/telemetry.ts`: it talks to a scripted server
 * on 127.0.0.1.
 */
import { fileURLToPath } from "node:url"
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import * as Resource from "@effect/opentelemetry/Resource"
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base"
import { Client } from "@svir/client"
import { GenAi, Request, Toolbox } from "@svir/core"
import { Tools } from "@svir/registry"
import { Answer, ScriptedServer } from "@svir/testing"
import { Effect, Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"

/** Effect's tracer backed by OpenTelemetry's SDK, its spans kept in memory to be read. */
export const tracing = () => {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const layer = OtelTracer.layer.pipe(
    Layer.provide(Layer.succeed(OtelTracer.OtelTracerProvider, provider)),
    Layer.provide(Resource.layer({ serviceName: "svir" })),
  )
  return { exporter, layer }
}

/**
 * One line of spans, alike ones counted together, in the order they ended; the model calls with
 * their tokens: `chat qwen3 x2 (in 50 / out 12 tokens), execute_tool lookup x1`.
 */
export const summarize = (spans: ReadonlyArray<ReadableSpan>): string => {
  const byName = new Map<string, { count: number; input: number; output: number }>()
  for (const span of spans) {
    // svir's spans only: not Effect's HTTP spans or the program's own.
    if (span.attributes[GenAi.Attribute.operationName] === undefined) continue
    const seen = byName.get(span.name) ?? { count: 0, input: 0, output: 0 }
    seen.count++
    seen.input += Number(span.attributes[GenAi.Attribute.usageInputTokens] ?? 0)
    seen.output += Number(span.attributes[GenAi.Attribute.usageOutputTokens] ?? 0)
    byName.set(span.name, seen)
  }
  return [...byName]
    .map(([name, { count, input, output }]) =>
      input + output === 0
        ? `${name} x${count}`
        : `${name} x${count} (in ${input} / out ${output} tokens)`,
    )
    .join(", ")
}

const tools = Tools.empty.pipe(
  Tools.add("lookup", "Find an order.", Schema.Struct({ id: Schema.Int }), ({ id }) => {
    return `order ${id} is shipped`
  }),
)

/** A model call and the tool call it asks for, with the spans they made. */
export const traced = (recordContent: boolean) => {
  const { exporter, layer } = tracing()
  return Effect.gen(function* () {
    const server = yield* ScriptedServer.start([
      Answer.toolCalls([{ name: "lookup", arguments: { id: 42 } }], {
        usage: { input: 40, output: 8 },
      }),
    ])
    const client = yield* Client.make({ baseUrl: server.url })
    const request = yield* Request.make("qwen3").pipe(
      Request.user("Where is order 42?"),
      Request.toolsFrom(tools),
    )
    const done = yield* client.complete(request)
    yield* Toolbox.callAll(tools, done.calls)
    return exporter.getFinishedSpans()
  }).pipe(
    Effect.withSpan("my agent"),
    Effect.provideService(GenAi.RecordContent, recordContent),
    Effect.provide([FetchHttpClient.layer, layer]),
    Effect.scoped,
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  Effect.runPromise(traced(false)).then((spans) => {
    console.log(`spans: ${summarize(spans)}`)
    for (const span of spans) {
      if (span.attributes[GenAi.Attribute.operationName] === undefined) continue
      console.log(`\n${span.name}`)
      for (const [name, value] of Object.entries(span.attributes)) {
        console.log(`  ${name} = ${JSON.stringify(value)}`)
      }
    }
  })
}
