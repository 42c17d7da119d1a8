// Run by Deno with no --allow-env (#17): `Client.make({ baseUrl })`, the README's example, against
// the built packages, must give a working client or a typed error, never a defect. Deno refuses
// every read of the environment here (NotCapable), so the client finds OPENAI_API_KEY "not set"
// (client DECISIONS D22) and talks to a scripted server on 127.0.0.1 without a key.
// `deno run --no-prompt --allow-net=127.0.0.1 scripts/runtimes/deno-env.mjs`: prints one JSON
// line, exits 0 for a client or a typed error, 1 for a defect.
import { Client } from "@svir/client"
import { Request, SvirError } from "@svir/core"
import { Answer, ScriptedServer } from "@svir/testing"
import { Cause, Effect, Exit } from "effect"
import { FetchHttpClient } from "effect/http"

const program = Effect.scoped(
  Effect.gen(function* () {
    const server = yield* ScriptedServer.start([Answer.text("Hello from Deno")])
    const client = yield* Client.make({ baseUrl: server.url })
    const done = yield* client.complete(Request.make("scripted").pipe(Request.user("Hi")))
    return {
      outcome: "client",
      text: done.text,
      authorization: server.requests[0]?.headers.authorization ?? "none",
    }
  }),
).pipe(Effect.provide(FetchHttpClient.layer))

const exit = await Effect.runPromiseExit(program)
let outcome
if (Exit.isSuccess(exit)) outcome = exit.value
else {
  const error = Cause.findErrorOption(exit.cause)
  outcome =
    error._tag === "Some" && SvirError.isSvirError(error.value)
      ? { outcome: "typed error", kind: error.value.reason._tag, message: error.value.message }
      : { outcome: "defect", cause: Cause.pretty(exit.cause) }
}
console.log(`deno, no --allow-env: ${JSON.stringify(outcome)}`)
let envRefused = false
try {
  Deno.env.get("HOME")
} catch {
  envRefused = true
}
if (!envRefused) console.log("deno: the environment could be read: run with no --allow-env")
process.exitCode = outcome.outcome !== "defect" && envRefused ? 0 : 1
