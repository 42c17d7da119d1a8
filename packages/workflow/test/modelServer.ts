/**
 * A model on 127.0.0.1 for the kill tests: Chat Completions over SSE, answering each request from
 * what it carries (the first user message names the conversation, the assistant messages so far
 * its step), so that a request sent again after a crash gets the same answer, whichever runner
 * sends it and in whatever order runs interleave. `@svir/testing`'s scripted server answers from a
 * queue in order of arrival, which a hundred runs in two processes cannot keep to.
 *
 * A stream can be held: it sends the first half of its events and waits until the test releases
 * it, or until the runner reading it is killed.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

/** A tool call the model makes. */
export interface Call {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/** What the model answers to one request. */
export type Reply =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Calls"; readonly calls: ReadonlyArray<Call> }
  | { readonly _tag: "Status"; readonly status: number; readonly body: string }

/** A request as the server read it. */
export interface Received {
  readonly headers: Http.IncomingHttpHeaders
  /** The first user message's text: the conversation. */
  readonly conversation: string
  /** How many assistant messages the request carries: the step it asks for. */
  readonly step: number
  /** Whether the whole answer was written (false while held, and for a stream cut by a kill). */
  finished: boolean
  held: boolean
}

export interface ModelServer {
  readonly url: string
  readonly received: ReadonlyArray<Received>
  /** Holds, from now on, every stream whose request `matches`, after half of its events. */
  readonly hold: (matches: (request: Received) => boolean) => void
  /** Lets every held stream go on, and holds no more. */
  readonly release: () => void
  /** Resolves once `holds` is true of the requests; checked at each request and each answer. */
  readonly until: (holds: (received: ReadonlyArray<Received>) => boolean) => Effect.Effect<void>
}

interface Message {
  readonly role?: unknown
  readonly content?: unknown
}

const conversationOf = (messages: ReadonlyArray<Message>): string => {
  const first = messages.find((message) => message.role === "user")
  return typeof first?.content === "string" ? first.content : JSON.stringify(first?.content)
}

/** A promise and the function that resolves it. */
const gate = () => {
  let resolve: () => void = () => {}
  const promise = new Promise<void>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

/**
 * The events of one answer, in the shape OpenAI's Chat Completions streams have (a role chunk,
 * the content or the calls in pieces, a chunk with the finish reason, the usage chunk asked for
 * with `stream_options.include_usage`, `[DONE]`), replayed from that shape rather than recorded.
 */
const streamEvents = (reply: Reply, id: string, includeUsage: boolean): Array<string> => {
  const chunk = (delta: unknown, finish: string | null) => ({
    id,
    object: "chat.completion.chunk",
    created: 1_767_225_600,
    model: "scripted",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })
  const chunks: Array<unknown> = []
  if (reply._tag === "Text") {
    chunks.push(chunk({ role: "assistant", content: "" }, null))
    for (const word of reply.text.split(/(?<= )/)) chunks.push(chunk({ content: word }, null))
    chunks.push(chunk({}, "stop"))
  } else if (reply._tag === "Calls") {
    reply.calls.forEach((call, index) => {
      const half = Math.floor(call.arguments.length / 2)
      chunks.push(
        chunk(
          {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                index,
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: "" },
              },
            ],
          },
          null,
        ),
      )
      for (const piece of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
        chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null))
      }
    })
    chunks.push(chunk({}, "tool_calls"))
  }
  if (includeUsage) {
    chunks.push({
      id,
      object: "chat.completion.chunk",
      created: 1_767_225_600,
      model: "scripted",
      choices: [],
      usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
    })
  }
  return [...chunks.map((data) => `data: ${JSON.stringify(data)}\n\n`), "data: [DONE]\n\n"]
}

/**
 * Starts the server for the life of the scope; `answer` gives the reply to a request.
 */
export const serve = (answer: (request: Received) => Reply) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly http: Http.Server; readonly server: ModelServer }>((resume) => {
      const received: Array<Received> = []
      const watchers = new Set<() => void>()
      const changed = () => {
        for (const watcher of watchers) watcher()
      }
      let holding: ((request: Received) => boolean) | undefined
      let released = gate()

      const respond = async (
        request: Received,
        body: Record<string, unknown>,
        out: Http.ServerResponse,
      ) => {
        const reply = answer(request)
        if (reply._tag === "Status") {
          out.writeHead(reply.status, { "content-type": "application/json" })
          out.end(reply.body)
          return
        }
        const options = body.stream_options as { include_usage?: unknown } | undefined
        const events = streamEvents(
          reply,
          `chatcmpl-scripted-${request.step}`,
          options?.include_usage === true,
        )
        out.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
        const half = Math.floor(events.length / 2)
        out.write(events.slice(0, half).join(""))
        if (holding?.(request)) {
          const waited = released.promise
          await new Promise<void>((written) => out.write("", () => written()))
          request.held = true
          changed()
          await waited
          request.held = false
        }
        if (out.destroyed) return
        out.end(events.slice(half).join(""))
      }

      const http = Http.createServer((incoming, out) => {
        const parts: Array<Buffer> = []
        incoming.on("data", (part: Buffer) => parts.push(part))
        incoming.on("end", () => {
          const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>
          const messages = (body.messages ?? []) as ReadonlyArray<Message>
          const request: Received = {
            headers: incoming.headers,
            conversation: conversationOf(messages),
            step: messages.filter((message) => message.role === "assistant").length,
            finished: false,
            held: false,
          }
          received.push(request)
          out.on("finish", () => {
            request.finished = true
            changed()
          })
          out.on("close", changed)
          changed()
          void respond(request, body, out).catch(() => out.destroy())
        })
      })
      const server: ModelServer = {
        url: "",
        received,
        hold: (matches) => {
          holding = matches
        },
        release: () => {
          holding = undefined
          released.resolve()
          released = gate()
        },
        until: (holds) =>
          Effect.callback<void>((resume) => {
            const check = () => {
              if (!holds(received)) return
              watchers.delete(check)
              resume(Effect.void)
            }
            watchers.add(check)
            check()
            return Effect.sync(() => watchers.delete(check))
          }),
      }
      http.listen(0, "127.0.0.1", () => {
        const { port } = http.address() as AddressInfo
        resume(Effect.succeed({ http, server: { ...server, url: `http://127.0.0.1:${port}/v1` } }))
      })
    }),
    ({ http, server }) =>
      Effect.callback<void>((resume) => {
        server.release()
        http.closeAllConnections()
        http.close(() => resume(Effect.void))
      }),
  ).pipe(Effect.map(({ server }) => server))
