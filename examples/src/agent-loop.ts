/**
 * "The loop, streamed" of the seeds (svir-tools.txt) with `@svir/loop`: the same job as
 * `streamed-loop.ts`, whose `turn` and `run` become one `Loop.run`. Text and pieces of calls are
 * printed as they arrive; calls run only from a whole answer; the bound is the same.
 *
 * Run it with `npx tsx --conditions=@svir/source examples/src/agent-loop.ts`. It plays a
 * scripted conversation on 127.0.0.1 and says so; set OPENAI_BASE_URL (and OPENAI_API_KEY,
 * SVIR_MODEL) to run the same loop against a real OpenAI-compatible server.
 */
import { fileURLToPath } from "node:url"
import type { SvirError } from "@svir/core"
import { Loop } from "@svir/loop"
import type { ScriptedServer } from "@svir/testing"
import { Console, Effect, Exit } from "effect"
import { FetchHttpClient } from "effect/http"
import { setUp, type Target, TURNS, targetFromEnv, tools } from "./loop.js"
import { type Printer, terminal } from "./streamed-loop.js"

/** Asks where order 42 is, printing the answer and the calls as they stream. */
export const ask = (
  target: Target,
  print: Printer,
): Effect.Effect<Loop.Result, SvirError.SvirError | ScriptedServer.ScriptedServerError> =>
  setUp(target).pipe(
    Effect.flatMap(({ client, request }) =>
      Loop.run({
        send: client.stream,
        toolbox: tools,
        request,
        maxSteps: TURNS,
        onEvent: (event) => {
          if (event._tag === "TextDelta") print.text(event.text)
          // A piece of a call: a name once, then fragments of the arguments.
          if (event._tag === "ToolCallDelta") {
            if (event.name !== undefined) print.call(`\ncalling ${event.name} `)
            print.call(event.arguments)
          }
        },
      }),
    ),
    Effect.provide(FetchHttpClient.layer),
    Effect.scoped,
  )

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  Effect.runPromiseExit(
    ask(targetFromEnv(), terminal).pipe(
      Effect.flatMap((result) =>
        Console.log(`\n(${result.steps.length} steps, stopped: ${result.stop._tag})`),
      ),
    ),
  ).then((exit) => {
    if (Exit.isFailure(exit)) {
      console.error(exit.cause)
      process.exitCode = 1
    }
  })
}
