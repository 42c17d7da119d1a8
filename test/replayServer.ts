/**
 * A server on 127.0.0.1 that replays recorded streams of a real server: it answers the n-th
 * request with the n-th stream, as `text/event-stream`, and with 500 past the last, and keeps what
 * each request carried. Closed when the scope is. Read by the codecs' agent tests.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import { Effect } from "effect"

/** What a request carried: its headers, its path and its JSON body. */
export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly url: string | undefined
  readonly body: Record<string, unknown>
}

/** The server: its base URL (`.../v1`), what it received so far, and how to close it. */
export interface Started {
  readonly url: string
  readonly received: Array<Received>
  readonly close: () => Promise<void>
}

export const replayServer = (streams: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.callback<Started>((resume) => {
      const received: Array<Received> = []
      const server = createServer((request, response) => {
        let text = ""
        request.setEncoding("utf8")
        request.on("data", (piece: string) => {
          text += piece
        })
        request.on("end", () => {
          received.push({ headers: request.headers, url: request.url, body: JSON.parse(text) })
          const stream = streams[received.length - 1]
          if (stream === undefined) {
            response.writeHead(500).end()
            return
          }
          response.writeHead(200, { "content-type": "text/event-stream" })
          response.end(stream)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(
          Effect.succeed({
            url: `http://127.0.0.1:${port}/v1`,
            received,
            close: () => new Promise<void>((done) => server.close(() => done())),
          }),
        )
      })
    }),
    (started) => Effect.promise(started.close),
  )
