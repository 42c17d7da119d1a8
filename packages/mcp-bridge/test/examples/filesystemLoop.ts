// The example of the README, compiled and run by test/Readme.test.ts.
import { type Completion, Request, SvirError, Toolbox } from "@svir/core"
import { Effect } from "effect"
import { McpToolbox } from "../../src/index.js"

/** A model that keeps calling tools is stopped after this many answers. */
const turns = 8

/** Sends a request to a model: `@svir/client` gives one; any function of this shape will do. */
export type Complete = (
  request: Request.Request,
) => Effect.Effect<Completion.Completion, SvirError.SvirError>

/** Answers a question with the tools of a filesystem server; the server stops at the end. */
export const askAboutFiles = (
  complete: Complete,
  server: McpToolbox.StdioServer,
  question: string,
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const files = yield* McpToolbox.stdio(server, { prefix: "files", timeoutMillis: 30_000 })
      let request = yield* Request.make("qwen3-27b").pipe(
        Request.user(question),
        Request.toolsFrom(files),
      )
      for (let turn = 0; turn < turns; turn++) {
        const done = yield* complete(request)
        if (done.calls.length === 0) return done.text
        const results = yield* Toolbox.callAll(files, done.calls)
        request = request.pipe(Request.assistant(done), Request.toolResults(results))
      }
      return yield* SvirError.make("Unsupported", "the model kept calling tools")
    }),
  )
