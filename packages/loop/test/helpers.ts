import { Client } from "@svir/client"
import { Request, Tool, Toolbox, ToolCall, ToolResult } from "@svir/core"
import { Tools } from "@svir/registry"
import { type Answer, ScriptedServer } from "@svir/testing"
import { Effect, Schema } from "effect"
import { FetchHttpClient } from "effect/http"

/** The registry of the seeds: an order lookup and a clock. */
export const tools = Tools.empty.pipe(
  Tools.add(
    "lookup",
    "Find an order by its number.",
    Schema.Struct({ id: Schema.Int }),
    ({ id }) => `order ${id} is shipped`,
  ),
  Tools.addTool(Tool.make("now", "The current time, UTC."), () => "2026-01-01T00:00:00Z"),
)

/** A toolbox written by hand: it echoes the arguments it got, and knows no other tool. */
export const echo = Toolbox.make({
  tools: [Tool.make("echo", "Say it back.")],
  call: (call) =>
    Effect.succeed(
      call.name === "echo"
        ? ToolResult.make(call.id, `echo ${call.arguments}`)
        : ToolResult.unknownTool(call.id, call.name, ["echo"]),
    ),
})

/** A scripted server, a client of it, and the seeds' question with the registry's tools. */
export const serverAndClient = (
  script: ReadonlyArray<Answer.Answer>,
  options: ScriptedServer.Options = {},
) =>
  Effect.gen(function* () {
    const server = yield* ScriptedServer.start(script, { chunkSize: 3, ...options })
    const client = yield* Client.make({
      baseUrl: server.url,
      apiKey: "sk-test",
      retry: false,
    }).pipe(Effect.provide(FetchHttpClient.layer))
    const request = yield* Request.make("scripted").pipe(
      Request.user("Where is order 42, and what time is it?"),
      Request.toolsFrom(tools),
    )
    return { server, client, request }
  })

type Message = Readonly<Record<string, unknown>>

/** The messages of the chat request the server got at `index`. */
export const sent = (server: ScriptedServer.ScriptedServer, index: number) =>
  (server.bodies[index] as { readonly messages: ReadonlyArray<Message> }).messages

/** A call, as the codec gives it. */
export const call = (id: string, name: string, args: string) => ToolCall.make(id, name, args)
