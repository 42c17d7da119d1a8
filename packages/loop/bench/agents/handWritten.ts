/**
 * The job of the three agents: ask where order 42 is, with the seeds' two tools; print the text
 * as it streams and each call's result once answered; stop after 8 steps at most; give the
 * last answer's text. This one is the seeds' streamed loop, written by hand on svir's pieces.
 */
import { Client } from "@svir/client"
import { type Completion, Request, SvirError, Tool } from "@svir/core"
import { Tools } from "@svir/registry"
import { Effect, Schema, Stream } from "effect"
import { FetchHttpClient } from "effect/http"

const tools = Tools.empty.pipe(
  Tools.add("lookup", "Find an order by its number.", Schema.Struct({ id: Schema.Int }), (args) => {
    return `order ${args.id} is shipped`
  }),
  Tools.addTool(Tool.make("now", "The current time, UTC."), () => "2026-01-01T00:00:00Z"),
)

const turn = (client: Client.Service, request: Request.Request, print: (text: string) => void) =>
  Effect.gen(function* () {
    let done: Completion.Completion | undefined
    yield* client.stream(request).pipe(
      Stream.runForEach((event) =>
        Effect.sync(() => {
          if (event._tag === "TextDelta") print(event.text)
          if (event._tag === "Completed") done = event.completion
        }),
      ),
    )
    return done ?? (yield* SvirError.make("TruncatedStream", "the stream ended early"))
  })

export const agent = (baseUrl: string, print: (text: string) => void) =>
  Effect.gen(function* () {
    const client = yield* Client.make({ baseUrl })
    let request = yield* Request.make("scripted").pipe(
      Request.user("Where is order 42, and what time is it?"),
      Request.toolsFrom(tools),
    )
    for (let step = 0; step < 8; step++) {
      const done = yield* turn(client, request, print)
      if (done.calls.length === 0) return done.text
      const results = yield* Tools.callAll(tools, done.calls)
      for (const [i, call] of done.calls.entries())
        print(`\n${call.name}: ${results[i]!.content}\n`)
      request = request.pipe(Request.assistant(done), Request.toolResults(results))
    }
    return yield* SvirError.make("Unsupported", "the model kept calling tools")
  }).pipe(Effect.provide(FetchHttpClient.layer))
