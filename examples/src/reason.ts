/**
 * Polaris's "Wiring tools into LLM calls" and "The reason extension" (polaris-tool-calling.txt):
 * offer a registry's tools with `Request.toolsFrom`, and for a single-shot tool-use call refuse a
 * request that offers no tools before anything is sent (`Request.requireTools`). A failure of the
 * call itself stays the client's typed error.
 *
 * Run it with `npx tsx --conditions=@svir/source examples/src/reason.ts`: it plays a scripted
 * answer on 127.0.0.1 and says so.
 */
import { fileURLToPath } from "node:url"
import { Client } from "@svir/client"
import { type Completion, Request, type SvirError } from "@svir/core"
import { Tools } from "@svir/registry"
import { Answer, ScriptedServer } from "@svir/testing"
import { Console, Effect, Schema } from "effect"
import { FetchHttpClient } from "effect/http"

/** One tool-use answer: fails with Unsupported when the request offers no tools. */
export const reason = (
  client: Client.Service,
  request: Request.Request,
): Effect.Effect<Completion.Completion, SvirError.SvirError> =>
  Effect.flatMap(Request.requireTools(request), client.complete)

const ListFiles = Schema.Struct({
  path: Schema.String.annotate({
    description: "Directory path relative to the working directory.",
  }),
})

/** A registry with one tool, as polaris's `with_registry` would offer it. */
export const registry = Tools.empty.pipe(
  Tools.add(
    "list_files",
    "List files in a directory.",
    ListFiles,
    (args) => `README.md\nsrc/ (in ${args.path})`,
  ),
)

/** Asks a question with the registry's tools, single-shot. */
export const singleShot = (client: Client.Service) =>
  Effect.gen(function* () {
    const request = yield* Request.make("qwen3-27b").pipe(
      Request.system("You are a helpful assistant with access to tools."),
      Request.user("What files are in the current directory?"),
      Request.toolsFrom(registry),
    )
    return yield* reason(client, request)
  })

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const program = Effect.gen(function* () {
    const server = yield* ScriptedServer.start([
      Answer.toolCalls([{ name: "list_files", arguments: { path: "." } }]),
    ])
    yield* Console.log(`(a scripted server at ${server.url} plays the model)`)
    const client = yield* Client.make({ baseUrl: server.url })
    const response = yield* singleShot(client)
    if (response.calls.length > 0) {
      yield* Console.log(`the model calls: ${response.calls.map((call) => call.name).join(", ")}`)
    } else yield* Console.log(response.text)
    const refused = yield* Effect.flip(
      reason(client, Request.make("qwen3-27b").pipe(Request.user("Hi"))),
    )
    yield* Console.log(`without tools: ${refused.reason._tag}: ${refused.message}`)
  })
  Effect.runPromise(program.pipe(Effect.provide(FetchHttpClient.layer), Effect.scoped))
}
