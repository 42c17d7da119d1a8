/**
 * For the telemetry tests of every package: the real OpenTelemetry SDK behind Effect's tracer
 * (`@effect/opentelemetry`), keeping every ended span in memory. The peers it imports are linked
 * from `peers/` (DECISIONS.md 10).
 */
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import * as Resource from "@effect/opentelemetry/Resource"
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base"
import { Layer } from "effect"

/** A new in-memory exporter, and the layer that sends Effect's spans to it. */
export const otel = () => {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const layer = OtelTracer.layer.pipe(
    Layer.provide(Layer.succeed(OtelTracer.OtelTracerProvider, provider)),
    Layer.provide(Resource.layer({ serviceName: "svir" })),
  )
  return { exporter, layer }
}
