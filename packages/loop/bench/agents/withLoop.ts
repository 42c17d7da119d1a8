/**
 * The same job as `handWritten.ts`, with `@svir/loop`.
 */
import { Client } from "@svir/client"
import { Request, Tool } from "@svir/core"
import { Loop } from "@svir/loop"
import { Tools } from "@svir/registry"
import { Effect, Schema } from "effect"
import { FetchHttpClient } from "effect/http"

const tools = Tools.empty.pipe(
  Tools.add("lookup", "Find an order by its number.", Schema.Struct({ id: Schema.Int }), (args) => {
    return `order ${args.id} is shipped`
  }),
  Tools.addTool(Tool.make("now", "The current time, UTC."), () => "2026-01-01T00:00:00Z"),
)

export const agent = (baseUrl: string, print: (text: string) => void) =>
  Effect.gen(function* () {
    const client = yield* Client.make({ baseUrl })
    const request = yield* Request.make("scripted").pipe(
      Request.user("Where is order 42, and what time is it?"),
      Request.toolsFrom(tools),
    )
    const result = yield* Loop.run({
      send: client.stream,
      toolbox: tools,
      request,
      maxSteps: 8,
      onEvent: (event) => {
        if (event._tag === "TextDelta") print(event.text)
        if (event._tag === "CallFinished") print(`\n${event.call.name}: ${event.result.content}\n`)
      },
    })
    return result.text
  }).pipe(Effect.provide(FetchHttpClient.layer))
