/**
 * An HTTP server on 127.0.0.1 that plays the attacker or the broken network: it says nothing,
 * drips a byte at a time, sends an endless body or a gzip bomb, or resets the connection. Every
 * socket is tracked, so a test can wait until the client has let go of all of them, and the
 * bytes written are counted, so a test can see that the client stopped reading early.
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Zlib from "node:zlib"
import { Effect } from "effect"
import type * as Scope from "effect/Scope"

/** What the server does with one request: it writes (or does not write) the response. */
export type Behaviour = (response: Http.ServerResponse, server: HostileServer) => void

export interface HostileServer {
  /** The base URL of the API, with `/v1`. */
  readonly url: string
  /** Requests received so far. */
  readonly requests: number
  /** Sockets that carried a request and are not closed yet. */
  readonly openSockets: number
  /** Body bytes handed to sockets, across every response. */
  readonly bytesWritten: number
  /** Resolves once `count` requests have arrived. */
  readonly whenRequests: (count: number) => Promise<void>
  /**
   * Resolves once every socket that carried a request is closed. A connection fetch opens ahead
   * of need and never uses is not counted: it is the pool's, and closes when idle.
   */
  readonly whenAllClosed: () => Promise<void>
  /** Counts body bytes written; for behaviours. */
  readonly wrote: (bytes: number) => void
  /** Runs `tick` every `millis` until the response closes or the server stops; for behaviours. */
  readonly every: (response: Http.ServerResponse, millis: number, tick: () => void) => void
}

/** A request as the server saw it: its number, from 0, and its body. */
export interface Arrival {
  readonly index: number
  readonly body: string
}

/**
 * Starts a server for the life of the Scope; `behaviour` picks what each request gets. Closing the
 * Scope stops the server and drops every open connection.
 */
export const start = (
  behaviour: (arrival: Arrival) => Behaviour,
): Effect.Effect<HostileServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => listen(behaviour)),
    (running) => Effect.promise(() => running.close()),
  )

const listen = (
  behaviour: (arrival: Arrival) => Behaviour,
): Promise<HostileServer & { readonly close: () => Promise<void> }> => {
  const sockets = new Set<Net.Socket>()
  const used = new Set<Net.Socket>()
  const timers = new Set<ReturnType<typeof setInterval>>()
  const requestWaiters: Array<{ readonly count: number; readonly resolve: () => void }> = []
  const closedWaiters: Array<() => void> = []
  let requests = 0
  let bytesWritten = 0

  const settle = () => {
    for (const waiter of requestWaiters.filter((waiter) => requests >= waiter.count)) {
      requestWaiters.splice(requestWaiters.indexOf(waiter), 1)
      waiter.resolve()
    }
    if (used.size === 0) for (const resolve of closedWaiters.splice(0)) resolve()
  }

  const handle: HostileServer = {
    url: "",
    get requests() {
      return requests
    },
    get openSockets() {
      return used.size
    },
    get bytesWritten() {
      return bytesWritten
    },
    whenRequests: (count) =>
      new Promise((resolve) => {
        requestWaiters.push({ count, resolve })
        settle()
      }),
    whenAllClosed: () =>
      new Promise((resolve) => {
        closedWaiters.push(resolve)
        settle()
      }),
    wrote: (bytes) => {
      bytesWritten += bytes
    },
    every: (response, millis, tick) => {
      const timer = setInterval(() => (response.destroyed ? stop() : tick()), millis)
      const stop = () => {
        clearInterval(timer)
        timers.delete(timer)
      }
      timers.add(timer)
      response.once("close", stop)
    },
  }

  const server = Http.createServer((request, response) => {
    const index = requests++
    if (!request.socket.destroyed) used.add(request.socket)
    // The request body is read whole, so that the client's upload is never what holds the socket.
    const parts: Array<Buffer> = []
    request.on("data", (part: Buffer) => parts.push(part))
    request.once("end", () =>
      behaviour({ index, body: Buffer.concat(parts).toString() })(response, handle),
    )
    settle()
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.once("close", () => {
      sockets.delete(socket)
      used.delete(socket)
      settle()
    })
  })

  return new Promise((resolve) => {
    // A backlog above Node's 511, so that a crowd of connections is not held back by SYN retries.
    server.listen({ port: 0, host: "127.0.0.1", backlog: 2048 }, () => {
      const { port } = server.address() as Net.AddressInfo
      resolve(
        Object.defineProperties(handle, {
          url: { value: `http://127.0.0.1:${port}/v1` },
          close: {
            value: () =>
              new Promise<void>((closed) => {
                for (const timer of timers) clearInterval(timer)
                timers.clear()
                server.close(() => closed())
                for (const socket of sockets) socket.destroy()
              }),
          },
        }) as HostileServer & { readonly close: () => Promise<void> },
      )
    })
  })
}

/** Silence: the request is read, and not a byte comes back, not even the headers. */
export const silent: Behaviour = () => {}

/** A complete, well-formed answer; the connection is closed after it, not kept alive. */
export const answer =
  (status: number, headers: Http.OutgoingHttpHeaders, body: string): Behaviour =>
  (response) => {
    response.writeHead(status, { ...headers, connection: "close" })
    response.end(body)
  }

/** The headers, then one byte of `text` (repeated) every `millis`, forever. */
export const drip =
  (
    status: number,
    headers: Http.OutgoingHttpHeaders,
    text: string,
    millis: number,
    prefix = "",
  ): Behaviour =>
  (response, server) => {
    response.writeHead(status, headers)
    response.write(prefix)
    response.flushHeaders()
    let at = 0
    server.every(response, millis, () => {
      response.write(text[at % text.length]!)
      server.wrote(1)
      at += 1
    })
  }

/**
 * The headers, then `prefix`, then `piece` again and again until `limit` bytes or until the client
 * goes, respecting backpressure: only what the client reads is made, never the whole body.
 */
export const endless =
  (
    status: number,
    headers: Http.OutgoingHttpHeaders,
    piece: Uint8Array,
    limit: number,
    prefix: Uint8Array = new Uint8Array(0),
  ): Behaviour =>
  (response, server) => {
    response.writeHead(status, headers)
    response.write(prefix)
    let sent = 0
    const write = () => {
      while (!response.destroyed) {
        if (sent >= limit) {
          response.end()
          return
        }
        sent += piece.length
        server.wrote(piece.length)
        if (!response.write(piece)) {
          response.once("drain", write)
          return
        }
      }
    }
    write()
  }

/**
 * The headers, then `body`, then the connection torn down mid-answer: with a TCP reset, or closed
 * before the chunked body's end.
 */
export const cutAfter =
  (headers: Http.OutgoingHttpHeaders, body: string, how: "reset" | "close"): Behaviour =>
  (response, server) => {
    response.writeHead(200, headers)
    response.flushHeaders()
    server.wrote(body.length)
    response.write(body, () =>
      how === "reset" ? response.socket?.resetAndDestroy() : response.socket?.destroy(),
    )
  }

/** SSE frames written every `millis`, forever: a stream that never ends but is never idle. */
export const eventsForever =
  (frame: string, millis: number): Behaviour =>
  (response, server) => {
    response.writeHead(200, { "content-type": "text/event-stream" })
    response.flushHeaders()
    server.every(response, millis, () => {
      response.write(frame)
      server.wrote(frame.length)
    })
  }

/** A gzip member of `bytes` bytes of `fill`; a few members inflate to gigabytes. */
export const gzipMember = (bytes: number, fill: number): Uint8Array =>
  gzip(Buffer.alloc(bytes, fill))

/** The bytes as one gzip member; members can follow each other in one gzip body. */
export const gzip = (bytes: Uint8Array): Uint8Array => Zlib.gzipSync(bytes, { level: 9 })

/** One `data:` SSE frame of a Chat Completions chunk. */
export const frame = (chunk: unknown): string => `data: ${JSON.stringify(chunk)}\n\n`

/** A Chat Completions chunk with the given delta. */
export const chunk = (delta: unknown, finish: string | null = null) => ({
  id: "chatcmpl-hostile",
  object: "chat.completion.chunk",
  created: 0,
  model: "hostile",
  choices: [{ index: 0, delta, finish_reason: finish }],
})

/** A whole Chat Completions answer with the given text. */
export const completion = (text: string) =>
  JSON.stringify({
    id: "chatcmpl-hostile",
    object: "chat.completion",
    created: 0,
    model: "hostile",
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
  })

/** A whole streamed answer with the given text. */
export const streamedText = (text: string): string =>
  [
    frame(chunk({ role: "assistant", content: text })),
    frame(chunk({}, "stop")),
    "data: [DONE]\n\n",
  ].join("")
