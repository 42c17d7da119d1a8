import { SvirError } from "@svir/core"
import { type Answer, ScriptedServer } from "@svir/testing"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { Client } from "../src/index.js"

/** The key tests send; it must never show in an error. */
export const apiKey = "sk-test-secret-4242"

/**
 * A scripted server and a client pointed at it. Retries are quick, and an error body is waited
 * for briefly, so that a stalled body cannot slow a test.
 */
export const serverAndClient = (
  script: ReadonlyArray<Answer.Answer>,
  options: Client.Options = {},
  serverOptions: ScriptedServer.Options = {},
) =>
  Effect.gen(function* () {
    const server = yield* ScriptedServer.start(script, serverOptions)
    const client = yield* Client.make({
      baseUrl: server.url,
      apiKey,
      retry: { times: 2, baseDelay: "1 millis", maxDelay: "5 millis" },
      errorBodyTimeout: "200 millis",
      ...options,
    }).pipe(Effect.provide(FetchHttpClient.layer))
    return { server, client }
  })

/** The error an effect failed with; a success is a test failure. */
export const failure = <A>(effect: Effect.Effect<A, SvirError.SvirError>) =>
  Effect.flip(effect).pipe(
    Effect.tap((error) =>
      SvirError.isSvirError(error) ? Effect.void : Effect.die(new Error("not a SvirError")),
    ),
  )
