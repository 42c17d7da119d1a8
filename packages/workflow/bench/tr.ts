import { Effect, Layer } from "effect"
import * as Tracer from "effect/Tracer"

let n = 0
const t = Tracer.make({
  span: (o) => {
    n++
    return new Tracer.NativeSpan(o)
  },
})
const L = Layer.effectDiscard(
  Effect.forkDetach(
    Effect.forever(Effect.andThen(Effect.sleep(1), Effect.withSpan(Effect.void, "x"))),
  ),
)
await Effect.runPromise(
  Effect.scoped(
    Effect.andThen(
      Layer.build(L.pipe(Layer.provide(Layer.succeed(Tracer.Tracer, t)))),
      Effect.sleep(100),
    ),
  ),
)
console.log("spans", n)
await Effect.runPromise(
  Effect.withSpan(Effect.void, "y").pipe(Effect.provideService(Tracer.Tracer, t)),
)
console.log("spans", n)
