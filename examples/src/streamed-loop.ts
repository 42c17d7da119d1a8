/**
 * "The loop, streamed" of the seeds (svir-tools.txt): show text and calls as they arrive; run
 * the calls only from the completion.
 *
 * Run it with `npx tsx --conditions=@svir/source examples/src/streamed-loop.ts`. It plays a
 * scripted conversation on 127.0.0.1 and says so; set OPENAI_BASE_URL (and OPENAI_API_KEY,
 * SVIR_MODEL) to run the same loop against a real OpenAI-compatible server.
 */
import { fileURLToPath } from "node:url"
import type { Client } from "@svir/client"
import { type Completion, Request, SvirError } from "@svir/core"
import { Tools } from "@svir/registry"
import type { ScriptedServer } from "@svir/testing"
import { Console, Effect, Exit, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { setUp, type Target, TURNS, targetFromEnv, tools } from "./loop.js"

/** Where the pieces go: the text of the answer, and the calls as they are written. */
export interface Printer {
  readonly text: (piece: string) => void
  readonly call: (piece: string) => void
}

/** Text to stdout, calls to stderr, as in the seeds. */
export const terminal: Printer = {
  text: (piece) => process.stdout.write(piece),
  call: (piece) => process.stderr.write(piece),
}

/**
 * One streamed turn. `ToolCallDelta.index` tells pieces of different calls apart; the fragments
 * of arguments are not JSON until the decoder joins them, so calls are taken from the completion.
 */
export const turn = (
  client: Client.Service,
  request: Request.Request,
  print: Printer,
): Effect.Effect<Completion.Completion, SvirError.SvirError> =>
  Effect.gen(function* () {
    let done: Completion.Completion | undefined
    yield* client.stream(request).pipe(
      Stream.runForEach((event) =>
        Effect.sync(() => {
          switch (event._tag) {
            case "TextDelta":
              print.text(event.text)
              break
            // A piece of a call: a name once, then fragments of the arguments.
            case "ToolCallDelta":
              if (event.name !== undefined) print.call(`\ncalling ${event.name} `)
              print.call(event.arguments)
              break
            case "Completed":
              done = event.completion
              break
          }
        }),
      ),
    )
    if (done === undefined) {
      return yield* SvirError.make("TruncatedStream", "the stream ended without a completion")
    }
    return done
  })

/** The loop of the seeds, with each turn streamed. */
export const run = <R>(
  client: Client.Service,
  tools: Tools.Tools<R>,
  start: Request.Request,
  print: Printer,
  turns: number = TURNS,
): Effect.Effect<Completion.Completion, SvirError.SvirError, R> =>
  Effect.gen(function* () {
    let request = start
    for (let count = 0; count < turns; count++) {
      const done = yield* turn(client, request, print)
      if (done.calls.length === 0) return done

      const results = yield* Tools.callAll(tools, done.calls)
      request = request.pipe(Request.assistant(done), Request.toolResults(results))
    }
    return yield* SvirError.make("Unsupported", "the model kept calling tools")
  })

/** Asks where order 42 is, printing the answer as it streams. */
export const ask = (
  target: Target,
  print: Printer,
): Effect.Effect<Completion.Completion, SvirError.SvirError | ScriptedServer.ScriptedServerError> =>
  setUp(target).pipe(
    Effect.flatMap(({ client, request }) => run(client, tools, request, print)),
    Effect.provide(FetchHttpClient.layer),
    Effect.scoped,
  )

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  Effect.runPromiseExit(ask(targetFromEnv(), terminal).pipe(Effect.andThen(Console.log("")))).then(
    (exit) => {
      if (Exit.isFailure(exit)) {
        console.error(exit.cause)
        process.exitCode = 1
      }
    },
  )
}
