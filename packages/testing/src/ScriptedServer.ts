/**
 * A scripted server on 127.0.0.1, for testing a tool-calling loop without a model. Each
 * `POST /v1/chat/completions` (or `/chat/completions`) takes the next answer of the script and
 * gets it as Chat Completions; each `POST /v1/messages` (or `/messages`) as Anthropic's Messages
 * API (thinking, text and `tool_use` blocks, `message_start` to `message_stop`); each
 * `POST /v1/responses` (or `/responses`) as OpenAI's Responses API (reasoning, message and
 * `function_call` items, `response.created` to `response.completed`). On Messages and Responses
 * the quirks of line ends, delays and faults apply, those of Chat Completions' chunks do not.
 * `GET /v1/models` lists the models in a body every wire reads. Every request is recorded, so a
 * test can check what was sent.
 *
 * @since 0.2.0
 * @module
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Answer from "./Answer.js"
import * as ChatBodies from "./internal/chatBodies.js"
import * as MessagesBodies from "./internal/messagesBodies.js"
import * as ResponsesBodies from "./internal/responsesBodies.js"

/**
 * A request the server received: method, path, headers (names in lower case), the body as text
 * and as parsed JSON (`undefined` when it is not JSON), and whether the client left before its
 * answer was whole.
 *
 * @since 0.2.0
 * @category models
 */
export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
  readonly body: unknown
  /** The client closed the connection before the answer ended (read it after the fact). */
  readonly abandoned: boolean
}

/**
 * Options of a scripted server.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Characters per streamed piece of text, reasoning or arguments (default 8). */
  readonly chunkSize?: number | undefined
  /** Quirks and faults for every reply; an answer's own quirks override them. */
  readonly quirks?: Answer.Quirks | undefined
  /** The model named in answers, and listed by `GET /v1/models` (default `"scripted"`). */
  readonly model?: string | undefined
  /** More models listed by `GET /v1/models`. */
  readonly models?: ReadonlyArray<string> | undefined
  /**
   * Every request takes the next answer of the script, whatever its method and path: the list of
   * models, a redirect's target, anything. For tests that script a whole exchange, request by
   * request. A request beyond the script gets the 500 of an exhausted script.
   *
   * @since 0.2.0
   */
  readonly scriptEveryRequest?: boolean | undefined
  /**
   * The `Access-Control-Allow-Origin` of every answer (default `"*"`), so a page in a browser can
   * talk to the server; CORS preflights (`OPTIONS` with `Access-Control-Request-Method`) are then
   * answered with 204, allowing the method and headers asked for, and are not recorded nor take
   * an answer of the script. `false` sends no CORS header and leaves `OPTIONS` to the routes.
   *
   * @since 0.2.0
   */
  readonly allowOrigin?: string | false | undefined
}

/**
 * A running scripted server.
 *
 * @since 0.2.0
 * @category models
 */
export interface ScriptedServer {
  /** The base URL of the API, with `/v1`: `http://127.0.0.1:<port>/v1`. */
  readonly url: string
  /** Every request received, in order of arrival. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** The parsed bodies of the requests that took an answer (any wire's), in order. */
  readonly bodies: ReadonlyArray<unknown>
  /** How many answers of the script are left. */
  readonly remaining: number
  /** Adds answers at the end of the script. */
  readonly push: (...answers: ReadonlyArray<Answer.Answer>) => void
  /**
   * Resolves when the client closes the connection of the request at `index` (counting every
   * request, in order of arrival) before its answer ended; waits for that request if it has not
   * arrived yet.
   */
  readonly whenAbandoned: (index: number) => Promise<void>
}

/**
 * A scripted server started without Effect: close it when done.
 *
 * @since 0.2.0
 * @category models
 */
export interface RunningScriptedServer extends ScriptedServer {
  /** Stops the server and drops every open connection. */
  readonly close: () => Promise<void>
}

/**
 * The server could not listen on 127.0.0.1.
 *
 * @since 0.2.0
 * @category errors
 */
export class ScriptedServerError extends Data.TaggedError("ScriptedServerError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/**
 * The message of the 500 a request gets when the script has no answer left.
 *
 * @since 0.2.0
 * @category models
 */
export const exhaustedMessage = (requestNumber: number, scriptLength: number): string =>
  `svir testing: the script has no answer for chat request ${requestNumber}; it had ${scriptLength} answer(s)`

/**
 * Starts a scripted server for the life of the Scope: closing the Scope stops it and drops every
 * open connection.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Answer, ScriptedServer } from "@svir/testing"
 *
 * const program = Effect.scoped(
 *   Effect.gen(function* () {
 *     const server = yield* ScriptedServer.start([
 *       Answer.toolCalls([{ name: "now" }]),
 *       Answer.text("It is noon."),
 *     ])
 *     // point a client at server.url, then check server.bodies
 *   }),
 * )
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const start = (
  script: ReadonlyArray<Answer.Answer>,
  options: Options = {},
): Effect.Effect<ScriptedServer, ScriptedServerError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => listen(script, options),
      catch: (cause) =>
        cause instanceof ScriptedServerError
          ? cause
          : new ScriptedServerError({ message: "the scripted server could not start", cause }),
    }),
    (server) => Effect.promise(() => server.close()),
  )

/**
 * Starts a scripted server from plain Promise code. Rejects only with a
 * {@link ScriptedServerError}.
 *
 * @example
 * ```ts
 * import { Answer, ScriptedServer } from "@svir/testing"
 *
 * const server = await ScriptedServer.listen([Answer.text("Hi")])
 * try {
 *   const response = await fetch(`${server.url}/chat/completions`, {
 *     method: "POST",
 *     headers: { "content-type": "application/json" },
 *     body: JSON.stringify({ model: "scripted", messages: [] }),
 *   })
 * } finally {
 *   await server.close()
 * }
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const listen = (
  script: ReadonlyArray<Answer.Answer>,
  options: Options = {},
): Promise<RunningScriptedServer> => {
  const state = new ServerState(script, options)
  return new Promise((resolve, reject) => {
    const server = Http.createServer((request, response) => state.handle(request, response))
    server.on("connection", (socket) => {
      state.sockets.add(socket)
      socket.on("close", () => state.sockets.delete(socket))
    })
    server.once("error", (cause) =>
      reject(
        new ScriptedServerError({
          message: "the scripted server could not listen on 127.0.0.1",
          cause,
        }),
      ),
    )
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as Net.AddressInfo
      resolve(state.handleFor(`http://127.0.0.1:${address.port}/v1`, server))
    })
  })
}

interface MutableRecord extends RecordedRequest {
  abandoned: boolean
}

interface Signal {
  readonly promise: Promise<void>
  readonly resolve: () => void
}

const makeSignal = (): Signal => {
  let resolve: () => void = () => {}
  const promise = new Promise<void>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

/** Reads at most this many bytes of a request body; a loop test never needs more. */
const maxRequestBytes = 32 * 1024 * 1024

class ServerState {
  readonly sockets = new Set<Net.Socket>()
  readonly timers = new Set<ReturnType<typeof setTimeout>>()
  readonly records: Array<MutableRecord> = []
  readonly abandonSignals = new Map<number, Signal>()
  readonly script: Array<Answer.Answer>
  scriptLength: number
  chatRequests = 0
  callIds = 0
  closing = false

  constructor(
    initial: ReadonlyArray<Answer.Answer>,
    readonly options: Options,
  ) {
    this.script = [...initial]
    this.scriptLength = initial.length
  }

  abandonSignal(index: number): Signal {
    let signal = this.abandonSignals.get(index)
    if (signal === undefined) {
      signal = makeSignal()
      this.abandonSignals.set(index, signal)
    }
    return signal
  }

  handleFor(url: string, server: Http.Server): RunningScriptedServer {
    const state = this
    return {
      url,
      get requests() {
        return state.records
      },
      get bodies() {
        return state.records
          .filter((record) => wireOf(record.path) !== undefined)
          .map((record) => record.body)
      },
      get remaining() {
        return state.script.length
      },
      push: (...answers) => {
        state.scriptLength += answers.length
        state.script.push(...answers)
      },
      whenAbandoned: (index) => state.abandonSignal(index).promise,
      close: () => state.close(server),
    }
  }

  close(server: Http.Server): Promise<void> {
    this.closing = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    return new Promise((resolve) => {
      server.close(() => resolve())
      for (const socket of this.sockets) socket.destroy()
    })
  }

  sleep(millis: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer)
        resolve()
      }, millis)
      this.timers.add(timer)
    })
  }

  handle(request: Http.IncomingMessage, response: Http.ServerResponse): void {
    const origin = this.options.allowOrigin ?? "*"
    if (origin !== false) {
      response.setHeader("access-control-allow-origin", origin)
      // Lets a page read every header of an answer: retry-after, x-request-id, a quirk's own.
      response.setHeader("access-control-expose-headers", "*")
      if (origin !== "*") response.setHeader("vary", "origin")
      if (request.method === "OPTIONS" && request.headers["access-control-request-method"]) {
        answerPreflight(request, response)
        return
      }
    }
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxRequestBytes) chunks.push(chunk)
    })
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      const record = this.record(request, response, text)
      void this.route(record, response).catch(() => response.destroy())
    })
  }

  record(request: Http.IncomingMessage, response: Http.ServerResponse, text: string) {
    const index = this.records.length
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
    }
    const record: MutableRecord = {
      method: request.method ?? "GET",
      path: (request.url ?? "/").split("?")[0]!,
      headers,
      text,
      body: parseJson(text),
      abandoned: false,
    }
    response.on("close", () => {
      if (!response.writableFinished && !this.closing && !faulted.has(response)) {
        record.abandoned = true
        this.abandonSignal(index).resolve()
      }
    })
    this.records.push(record)
    return record
  }

  async route(record: MutableRecord, response: Http.ServerResponse): Promise<void> {
    if (
      this.options.scriptEveryRequest === true ||
      (record.method === "POST" && wireOf(record.path) !== undefined)
    ) {
      this.chatRequests += 1
      const answer = this.script.shift()
      if (answer === undefined) {
        const message = exhaustedMessage(this.chatRequests, this.scriptLength)
        return sendJson(response, 500, { error: { message, type: "script_exhausted" } })
      }
      return this.answer(answer, record, response)
    }
    if (record.method === "GET" && (record.path === "/v1/models" || record.path === "/models")) {
      const names = [this.options.model ?? "scripted", ...(this.options.models ?? [])]
      // One body that every wire's listing reads: OpenAI's fields and Anthropic's.
      return sendJson(response, 200, {
        object: "list",
        data: names.map((id) => ({
          id,
          object: "model",
          created: 0,
          owned_by: "svir-testing",
          type: "model",
          display_name: id,
          created_at: "1970-01-01T00:00:00Z",
        })),
        has_more: false,
      })
    }
    const message = `svir testing: no route for ${record.method} ${record.path}`
    return sendJson(response, 404, { error: { message, type: "not_found" } })
  }

  async answer(
    answer: Answer.Answer,
    record: MutableRecord,
    response: Http.ServerResponse,
  ): Promise<void> {
    switch (answer._tag) {
      case "Hang":
        return
      case "Status": {
        response.writeHead(answer.status, answer.headers)
        if (answer.stallBody) {
          response.flushHeaders()
          return
        }
        response.end(answer.body)
        return
      }
      case "Raw": {
        if (answer.closeDelimited) {
          // No content-length and no chunks: Node then sends `connection: close`, and the body
          // ends when the connection does.
          response.useChunkedEncodingByDefault = false
          response.shouldKeepAlive = false
        }
        response.writeHead(answer.status, answer.headers)
        response.flushHeaders()
        for (const [i, piece] of answer.pieces.entries()) {
          if (i > 0 && answer.delayMillis > 0) await this.sleep(answer.delayMillis)
          if (response.destroyed) return
          if (piece !== "") response.write(piece)
        }
        if (!answer.holdOpen) response.end()
        return
      }
      case "Reply":
        return this.reply(answer, record, response)
    }
  }

  async reply(
    answer: Answer.Reply,
    record: MutableRecord,
    response: Http.ServerResponse,
  ): Promise<void> {
    const body = isObject(record.body) ? record.body : {}
    // A scripted request on another path (scriptEveryRequest) is answered as Chat Completions.
    const wire = wireOf(record.path) ?? "chat"
    const resolved = ChatBodies.resolve(answer, {
      id: `${wires[wire].idPrefix}${this.chatRequests}`,
      model: this.options.model ?? "scripted",
      requestText: record.text,
      chunkSize: this.options.chunkSize ?? 8,
      quirks: this.options.quirks ?? {},
      nextCallId: () => `${wire === "messages" ? "toolu_" : "call_"}${++this.callIds}`,
    })
    const { quirks } = resolved
    if (body.stream !== true || quirks.notEventStream) {
      const json = wholeBody(wire, resolved, body)
      response.writeHead(200, { "content-type": "application/json" })
      response.flushHeaders()
      if (quirks.firstTokenDelayMillis) await this.sleep(quirks.firstTokenDelayMillis)
      if (response.destroyed) return
      if (quirks.resetAfterEvents !== undefined) {
        response.write(json.slice(0, Math.floor(json.length / 2)))
        return this.resetWhenSent(response)
      }
      if (quirks.stallAfterEvents !== undefined) return
      response.end(json)
      return
    }
    const events = streamFrames(wire, resolved, body)
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
    })
    response.flushHeaders()
    if (quirks.firstTokenDelayMillis) await this.sleep(quirks.firstTokenDelayMillis)
    for (const [i, event] of events.entries()) {
      if (i === quirks.resetAfterEvents) return this.resetWhenSent(response)
      if (i === quirks.stallAfterEvents) return
      if (i > 0 && quirks.eventDelayMillis) await this.sleep(quirks.eventDelayMillis)
      if (response.destroyed) return
      response.write(event)
    }
    response.end()
  }

  /**
   * Resets the connection once what was written has left: Bun's `node:http` holds the headers and
   * writes back and sends them later, so a reset at once reached the client before the headers,
   * a different fault from the one scripted (#17). Waits for the write callback, then a little
   * longer, on every runtime, so the fault is the same on Node and on Bun.
   */
  async resetWhenSent(response: Http.ServerResponse): Promise<void> {
    await new Promise<void>((resolve) => response.write("", () => resolve()))
    await this.sleep(resetDelayMillis)
    if (!response.destroyed) reset(response)
  }
}

/** How long a reset waits after the write callback (Bun: 10 ms sent everything in 12 of 12 runs). */
const resetDelayMillis = 10

/** The answer to a CORS preflight: the method and headers asked for are allowed. */
const answerPreflight = (request: Http.IncomingMessage, response: Http.ServerResponse): void => {
  const headers: Record<string, string> = {
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-max-age": "600",
  }
  const asked = request.headers["access-control-request-headers"]
  if (asked !== undefined) headers["access-control-allow-headers"] = asked
  request.resume()
  response.writeHead(204, headers)
  response.end()
}

/** Responses the script itself cut off: their close is not the client leaving. */
const faulted = new WeakSet<Http.ServerResponse>()

const reset = (response: Http.ServerResponse): void => {
  faulted.add(response)
  const socket = response.socket
  if (socket === null) return
  // An RST, not a FIN: what a crashed proxy or a dropped network looks like to the client.
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy()
  else socket.destroy()
}

/** The wires the server speaks: the path each is posted to, and the prefix of its answers' ids. */
const wires = {
  chat: { path: "/chat/completions", idPrefix: "chatcmpl-scripted-" },
  messages: { path: "/messages", idPrefix: "msg_scripted_" },
  responses: { path: "/responses", idPrefix: "resp_scripted_" },
} as const

type Wire = keyof typeof wires

/** The wire a path is posted to, with or without `/v1`. */
const wireOf = (path: string): Wire | undefined => {
  const bare = path.startsWith("/v1/") ? path.slice(3) : path
  return (Object.keys(wires) as ReadonlyArray<Wire>).find((wire) => wires[wire].path === bare)
}

/** The whole body of a reply on a wire. */
const wholeBody = (
  wire: Wire,
  reply: ChatBodies.Resolved,
  request: Readonly<Record<string, unknown>>,
): string => {
  switch (wire) {
    case "chat":
      return ChatBodies.completionJson(reply)
    case "messages":
      return MessagesBodies.messageJson(reply)
    case "responses":
      return ResponsesBodies.responseJson(reply, ResponsesBodies.requestEcho(request))
  }
}

/** The events of a streamed reply on a wire, each a whole Server-Sent Event. */
const streamFrames = (
  wire: Wire,
  reply: ChatBodies.Resolved,
  request: Readonly<Record<string, unknown>>,
): ReadonlyArray<string> => {
  const { quirks } = reply
  switch (wire) {
    case "chat": {
      const streamOptions = isObject(request.stream_options) ? request.stream_options : {}
      const includeUsage = streamOptions.include_usage === true
      return ChatBodies.streamEvents(reply, { includeUsage }).map((data) =>
        ChatBodies.sseEvent(data, quirks),
      )
    }
    case "messages":
      return MessagesBodies.streamEvents(reply).map((event) =>
        MessagesBodies.sseEvent(event, quirks),
      )
    case "responses":
      return ResponsesBodies.streamEvents(reply, ResponsesBodies.requestEcho(request)).map(
        (event) => ResponsesBodies.sseEvent(event, quirks),
      )
  }
}

const sendJson = (response: Http.ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify(body))
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

// Not core's `Json.isObject`: this package depends on effect only, so it can test any client.
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
