/**
 * "A toolbox of your own" of the seeds (svir-tools.txt): tools that share state, or that come
 * from somewhere else, implement the Toolbox contract directly. `call` returns a ToolResult and
 * never fails: what went wrong is a failed result for the model.
 *
 * Run it with `npx tsx --conditions=@svir/source examples/src/toolbox-of-your-own.ts`.
 */
import { fileURLToPath } from "node:url"
import { Tool, Toolbox, ToolCall, ToolResult } from "@svir/core"
import { Console, Effect, Ref, Schema } from "effect"

const Note = Schema.Struct({ text: Schema.String })

const note = Tool.make("note", "Keep a note for later.", {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
})
const notes = Tool.make("notes", "Read back every note kept so far.")

/** A toolbox that keeps notes in a `Ref`: Effect's own state, safe across fibers. */
export const makeNotes = Effect.gen(function* () {
  const kept = yield* Ref.make<ReadonlyArray<string>>([])

  const answer = (call: ToolCall.ToolCall): Effect.Effect<string, string> => {
    switch (call.name) {
      case "note":
        return ToolCall.parse(call, Note).pipe(
          Effect.mapError((error) => `invalid arguments: ${error.message}`),
          Effect.flatMap((args) => Ref.update(kept, (all) => [...all, args.text])),
          Effect.as("kept"),
        )
      case "notes":
        return Effect.map(Ref.get(kept), (all) => all.join("\n"))
      default:
        return Effect.fail(`no tool named ${call.name}`)
    }
  }

  return Toolbox.make({
    tools: [note, notes],
    // A failure is a result too: the model reads it and can try again.
    call: (call) =>
      answer(call).pipe(
        Effect.match({
          onSuccess: (content) => ToolResult.make(call.id, content),
          onFailure: (message) => ToolResult.error(call.id, message),
        }),
      ),
  })
})

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  Effect.runPromise(
    Effect.gen(function* () {
      const toolbox = yield* makeNotes
      const results = yield* Toolbox.callAll(toolbox, [
        ToolCall.make("c1", "note", '{"text": "buy milk"}'),
        ToolCall.make("c2", "note", '{"txt": "typo"}'),
        ToolCall.make("c3", "notes"),
      ])
      yield* Effect.forEach(results, (result) => Console.log(result))
    }),
  )
}
