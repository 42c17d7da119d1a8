/**
 * "Without a registry" of the seeds (svir-tools.txt): `ToolCall.parse` decodes the arguments for
 * code that dispatches by hand. A model that calls a tool with no arguments may send an empty
 * string, which is not JSON: `ToolCall.parse` reads it as `{}`.
 *
 * Run it with `npx tsx --conditions=@svir/source examples/src/without-a-registry.ts`.
 */
import { fileURLToPath } from "node:url"
import { ToolCall, ToolResult } from "@svir/core"
import { Console, Effect, Schema } from "effect"

const Lookup = Schema.Struct({ id: Schema.Int })

/** Answers one call of `lookup` by hand. */
export const answer = (call: ToolCall.ToolCall): Effect.Effect<ToolResult.ToolResult> =>
  ToolCall.parse(call, Lookup).pipe(
    Effect.match({
      onSuccess: (args) => ToolResult.make(call.id, `order ${args.id} is shipped`),
      onFailure: (error) => ToolResult.error(call.id, `invalid arguments: ${error.message}`),
    }),
  )

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  Effect.runPromise(
    Effect.forEach(
      [
        ToolCall.make("c1", "lookup", '{"id": 42}'),
        ToolCall.make("c2", "lookup", '{"id": "42"}'),
        ToolCall.make("c3", "lookup", '{"id": 4'),
        ToolCall.make("c4", "lookup", ""),
      ],
      (call) => Effect.flatMap(answer(call), (result) => Console.log(result)),
    ),
  )
}
