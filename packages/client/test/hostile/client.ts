import type { SvirError } from "@svir/core"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { Client } from "../../src/index.js"
import { apiKey } from "../helpers.js"
import type { HostileServer } from "./HostileServer.js"

/** A client of the hostile server, over fetch, without retries unless asked. */
export const clientOf = (
  server: HostileServer,
  options: Client.Options = {},
): Effect.Effect<Client.Service, SvirError.SvirError> =>
  Client.make({ baseUrl: server.url, apiKey, retry: false, ...options }).pipe(
    Effect.provide(FetchHttpClient.layer),
  )

/**
 * Waits until the client has closed every connection to the server. A socket still open after a
 * few seconds is a leak: the test fails saying how many, rather than hanging.
 */
export const allClosed = (server: HostileServer) =>
  Effect.promise(() => server.whenAllClosed()).pipe(
    Effect.timeoutOrElse({
      duration: "5 seconds",
      orElse: () => Effect.die(new Error(`${server.openSockets} socket(s) left open`)),
    }),
  )
