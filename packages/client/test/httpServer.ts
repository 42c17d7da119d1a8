import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

/** A request as a server received it. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** What a handler answers: a status, headers and a body sent at once. */
export interface Reply {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

/** A plain node:http server on a loopback address, recording every request it receives. */
export interface Server {
  readonly origin: string
  readonly received: ReadonlyArray<Received>
}

/**
 * Starts a server on `host` (a loopback address) that answers each request with `handle`, and
 * closes it with the scope.
 */
export const serve = (handle: (request: Received) => Reply, host = "127.0.0.1") =>
  Effect.acquireRelease(
    Effect.callback<{ readonly http: Http.Server; readonly server: Server }>((resume) => {
      const received: Array<Received> = []
      const http = Http.createServer((incoming, outgoing) => {
        const parts: Array<Buffer> = []
        incoming.on("data", (part: Buffer) => parts.push(part))
        incoming.on("end", () => {
          const request: Received = {
            method: incoming.method ?? "",
            path: incoming.url ?? "",
            headers: incoming.headers,
            body: Buffer.concat(parts).toString("utf8"),
          }
          received.push(request)
          const reply = handle(request)
          outgoing.writeHead(reply.status, reply.headers ?? {})
          outgoing.end(reply.body ?? "")
        })
      })
      http.listen(0, host, () => {
        const { port } = http.address() as AddressInfo
        resume(Effect.succeed({ http, server: { origin: `http://${host}:${port}`, received } }))
      })
    }),
    ({ http }) =>
      Effect.callback<void>((resume) => {
        http.closeAllConnections()
        http.close(() => resume(Effect.void))
      }),
  ).pipe(Effect.map(({ server }) => server))
