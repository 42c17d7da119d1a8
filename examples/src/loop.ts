/**
 * "The loop" of the seeds (svir-tools.txt): ask the model, run the calls it made, send the
 * assistant turn and the results back, until it answers without calls or the bound is reached.
 *
 * Run it with `npx tsx --conditions=@svir/source examples/src/loop.ts`. It plays a scripted
 * conversation on 127.0.0.1 and says so; set OPENAI_BASE_URL (and OPENAI_API_KEY, SVIR_MODEL) to
 * run the same loop against a real OpenAI-compatible server.
 */
import { fileURLToPath } from "node:url"
import { Client } from "@svir/client"
import { type Completion, Request, SvirError, Tool } from "@svir/core"
import { Tools } from "@svir/registry"
import { Answer, ScriptedServer } from "@svir/testing"
import { Console, Effect, Exit, Schema, type Scope } from "effect"
import { FetchHttpClient, type HttpClient } from "effect/http"

/** A model that keeps calling tools is stopped after this many answers. */
export const TURNS = 8

const lookup = Tool.make("lookup", "Find an order by its number.", {
  type: "object",
  properties: { id: { type: "integer", description: "The order number" } },
  required: ["id"],
})
// A tool that takes no arguments needs no schema.
const now = Tool.make("now", "The current time, UTC.")

/** The seeds' registry: an order lookup and a clock. */
export const tools = Tools.empty.pipe(
  Tools.addTool(lookup, Schema.Struct({ id: Schema.Int }), (args) => `order ${args.id} is shipped`),
  Tools.addTool(now, () => "2026-01-01T00:00:00Z"),
)

/**
 * The loop. The request passed in already carries the tools and the user's message. The
 * assistant turn goes back first, then the results, one per call, in order. It tests calls, not
 * the finish reason: an answer cut off by the output limit has no calls and ends the loop.
 */
export const run = <R>(
  client: Client.Service,
  tools: Tools.Tools<R>,
  start: Request.Request,
  turns: number = TURNS,
): Effect.Effect<Completion.Completion, SvirError.SvirError, R> =>
  Effect.gen(function* () {
    let request = start
    for (let turn = 0; turn < turns; turn++) {
      const done = yield* client.complete(request)
      if (done.calls.length === 0) return done

      const results = yield* Tools.callAll(tools, done.calls)
      request = request.pipe(Request.assistant(done), Request.toolResults(results))
    }
    return yield* SvirError.make("Unsupported", "the model kept calling tools")
  })

/** What the scripted server plays when no real server is given. */
export const script: ReadonlyArray<Answer.Answer> = [
  Answer.toolCalls([{ name: "lookup", arguments: { id: 42 } }, { name: "now" }]),
  Answer.text("Order 42 is shipped (checked at 2026-01-01T00:00:00Z)."),
]

/** Which server and model to talk to; no base URL means the scripted server. */
export interface Target {
  readonly baseUrl: string | undefined
  readonly model: string
}

/** The target named by OPENAI_BASE_URL and SVIR_MODEL. */
export const targetFromEnv = (): Target => ({
  baseUrl: process.env.OPENAI_BASE_URL || undefined,
  model: process.env.SVIR_MODEL ?? "scripted",
})

/** The base URL of the real server, or of a scripted one started for the Scope. */
export const serverUrl = (
  target: Target,
): Effect.Effect<string, ScriptedServer.ScriptedServerError, Scope.Scope> =>
  Effect.gen(function* () {
    if (target.baseUrl !== undefined) return target.baseUrl
    const server = yield* ScriptedServer.start(script)
    yield* Console.error(`(no OPENAI_BASE_URL: talking to a scripted server at ${server.url})`)
    return server.url
  })

/** A client of the target's server, and the question with the tools offered. */
export const setUp = (
  target: Target,
): Effect.Effect<
  { readonly client: Client.Service; readonly request: Request.Request },
  SvirError.SvirError | ScriptedServer.ScriptedServerError,
  HttpClient.HttpClient | Scope.Scope
> =>
  Effect.gen(function* () {
    const client = yield* Client.make({ baseUrl: yield* serverUrl(target) })
    const request = yield* Request.make(target.model).pipe(
      Request.user("Where is order 42, and what time is it?"),
      Request.toolsFrom(tools),
    )
    return { client, request }
  })

/** Asks where order 42 is, and gives the final answer. */
export const ask = (
  target: Target,
): Effect.Effect<Completion.Completion, SvirError.SvirError | ScriptedServer.ScriptedServerError> =>
  setUp(target).pipe(
    Effect.flatMap(({ client, request }) => run(client, tools, request)),
    Effect.provide(FetchHttpClient.layer),
    Effect.scoped,
  )

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  Effect.runPromiseExit(
    ask(targetFromEnv()).pipe(Effect.flatMap((done) => Console.log(done.text))),
  ).then((exit) => {
    if (Exit.isFailure(exit)) {
      console.error(exit.cause)
      process.exitCode = 1
    }
  })
}
