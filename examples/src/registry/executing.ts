import { Completion, Request } from "@svir/core"
import { Tools } from "@svir/registry"
import { Effect } from "effect"

/** Anything that answers a request: a client of a real server, or a fake in tests. */
export type Complete = (request: Request.Request) => Effect.Effect<Completion.Completion>

/** A model that keeps calling tools is stopped after this many answers. */
const turns = 8

export const run = <R>(complete: Complete, tools: Tools.Tools<R>, prompt: string) =>
  Effect.gen(function* () {
    let request = yield* Request.make("qwen3-27b").pipe(
      Request.system("You are a helpful assistant with access to tools."),
      Request.user(prompt),
      Request.toolsFrom(tools),
    )
    for (let turn = 0; turn < turns; turn++) {
      const done = yield* complete(request)
      if (done.calls.length === 0) return done
      // Every call gets exactly one result, in the order of the calls.
      const results = yield* Tools.callAll(tools, done.calls, { timeout: "30 seconds" })
      request = request.pipe(Request.assistant(done), Request.toolResults(results))
    }
    return Completion.make({ text: "the model kept calling tools", finish: "length" })
  })
