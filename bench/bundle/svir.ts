/**
 * The bundle benchmark's program on svir: stream one answer that may call one tool, print its
 * text as it arrives, and answer the calls of the completed answer with the registry.
 */
import { Client } from "@svir/client"
import { type Completion, Request } from "@svir/core"
import { Tools } from "@svir/registry"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

const tools = Tools.empty.pipe(
  Tools.add(
    "weather",
    "The weather in a city.",
    Schema.Struct({ city: Schema.String }),
    ({ city }) => `sunny in ${city}`,
  ),
)

const program = Effect.gen(function* () {
  const request = yield* Request.make("gpt-4o-mini").pipe(
    Request.user("What is the weather in Paris?"),
    Request.toolsFrom(tools),
  )
  let done: Completion.Completion | undefined
  yield* Client.stream(request).pipe(
    Stream.runForEach((event) =>
      Effect.sync(() => {
        if (event._tag === "TextDelta") process.stdout.write(event.text)
        if (event._tag === "Completed") done = event.completion
      }),
    ),
  )
  const results = yield* Tools.callAll(tools, done?.calls ?? [])
  for (const result of results) console.log(result.content)
}).pipe(Effect.provide(Client.layerFetch()))

Effect.runPromise(program)
