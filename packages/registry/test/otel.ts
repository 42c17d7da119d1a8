import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import * as Resource from "@effect/opentelemetry/Resource"
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base"
import { Layer } from "effect"

/** The real OpenTelemetry SDK behind Effect's tracer, keeping every ended span in memory. */
export const otel = () => {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const layer = OtelTracer.layer.pipe(
    Layer.provide(Layer.succeed(OtelTracer.OtelTracerProvider, provider)),
    Layer.provide(Resource.layer({ serviceName: "svir" })),
  )
  return { exporter, layer }
}
