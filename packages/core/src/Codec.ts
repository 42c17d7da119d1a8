/**
 * The contract of a wire codec: how a request is written for a protocol and how its answers are
 * read. A codec does no I/O: any transport can use it.
 *
 * To write a codec for another protocol (say, Anthropic Messages), implement {@link Codec} against
 * this package alone:
 *
 * - `fields` lists the request fields the codec handles. `encode` turns a
 *   {@link Request.Request} into the JSON body of the protocol: run
 *   `Request.unclaimed(request, fields, name)` and `Request.validate` first, read the options only
 *   this wire has with `Request.codecOptionsOf(request, name)`, and fail with an `Unsupported`
 *   {@link SvirError.SvirError} for anything the protocol cannot carry: never drop it.
 * - `decodeResponse` reads a whole, non-streamed response body into a
 *   {@link Completion.Completion}.
 * - `decoder` makes a fresh {@link StreamDecoder} for one streamed answer: a synchronous state
 *   machine that takes bytes as they arrive, in chunks of any size, and gives
 *   {@link Event.Event}s. Its outcome must never depend on how the bytes were chunked. The last
 *   event of an answer is `Completed`; calls are released only there, and only when the answer
 *   was complete. An error comes after every event decoded before it, and ends the decoder.
 *
 * {@link decodeStream} wraps any decoder as an Effect `Stream`. A stream of Server-Sent Events is
 * framed by `Sse.reader`, the one SSE reader of svir; a decoder reads its wire's events.
 *
 * A codec also says its wire's HTTP facts, in `http`, so that a client can speak it without
 * knowing it (see {@link Http}): the headers made from the key, how an error answer is read, the
 * listing of models, the provider's name for telemetry, the default base URL and the environment
 * variables. Each one left out takes the default {@link http} gives.
 *
 * The guide [Writing a codec](../../../docs/writing-a-codec.md) says what a codec does with each
 * request field and each HTTP fact.
 *
 * @since 0.2.0
 * @module
 */
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type * as Completion from "./Completion.js"
import type * as Event from "./Event.js"
import * as HttpError from "./HttpError.js"
import * as Json from "./Json.js"
import type * as Request from "./Request.js"
import * as SvirError from "./SvirError.js"

/**
 * What a decoder gives for the bytes it was fed: the events decoded, and the error that ended
 * the answer, if one did.
 *
 * @since 0.2.0
 * @category models
 */
export interface DecodeStep {
  readonly events: ReadonlyArray<Event.Event>
  readonly error: SvirError.SvirError | undefined
}

/**
 * A synchronous decoder of one streamed answer.
 *
 * @since 0.2.0
 * @category models
 */
export interface StreamDecoder {
  /** Feeds the next bytes. Gives the events they complete; once `done()`, gives nothing. */
  readonly push: (bytes: Uint8Array) => DecodeStep
  /** Ends the input. An answer that was not complete gives a TruncatedStream error. */
  readonly finish: () => DecodeStep
  /** Whether the answer has ended (completed or failed): further bytes are not read. */
  readonly done: () => boolean
}

/**
 * How a body is encoded: streamed or whole, and lean (without the optional fields) or not.
 *
 * @since 0.2.0
 * @category models
 */
export interface EncodeOptions {
  readonly stream: boolean
  readonly lean?: boolean | undefined
}

/**
 * A wire codec.
 *
 * @since 0.2.0
 * @category models
 */
export interface Codec {
  /** A short name for the protocol, such as `"openai-chat"`. */
  readonly name: string
  /** The path of the endpoint below the base URL, such as `"/chat/completions"`. */
  readonly path: string
  /**
   * The JSON body of a request, or an error before anything is sent. `lean` leaves out the
   * fields a server may refuse without changing what the answer must be (the codec says which),
   * for the one retry after a server rejected them.
   */
  readonly encode: (
    request: Request.Request,
    options: EncodeOptions,
  ) => Effect.Effect<unknown, SvirError.SvirError>
  /** Reads a whole response body. */
  readonly decodeResponse: (
    body: string,
  ) => Effect.Effect<Completion.Completion, SvirError.SvirError>
  /** A fresh decoder for one streamed answer. */
  readonly decoder: () => StreamDecoder
  /** The wire's HTTP facts; each one left out is the default of {@link http}. @since 0.2.0 */
  readonly http?: Partial<Http> | undefined
  /**
   * The request fields this codec handles (sends, or refuses with its own error); core's
   * `Request.unclaimed`, which `encode` calls first, refuses the others, so a field added to
   * `Request` later is refused by a codec that does not know it, never dropped. A field the wire
   * always honours (usage that every streamed answer reports) is claimed too. Left out by a codec
   * that predates the list (0.1): then no field is checked, and the codec alone says what it
   * refuses. @since 0.2.0
   */
  readonly fields?: ReadonlyArray<Request.Field> | undefined
}

/**
 * A model a server offers, as its listing names it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Model {
  readonly id: string
  readonly name: string | undefined
  readonly ownedBy: string | undefined
}

/**
 * How a wire lists its models: a GET of `path` (below the base URL, with `query` added), whose
 * body `decode` reads.
 *
 * @since 0.2.0
 * @category models
 */
export interface ModelListing {
  readonly path: string
  readonly query?: Readonly<Record<string, string>> | undefined
  readonly decode: (body: string) => Effect.Effect<ReadonlyArray<Model>, SvirError.SvirError>
}

/**
 * What a client needs to know of a wire beyond its bodies. A codec gives what differs from the
 * defaults in its `http`; {@link http} fills in the rest.
 *
 * @since 0.2.0
 * @category models
 */
export interface Http {
  /** The provider's name in telemetry (`gen_ai.provider.name`). Default: the codec's name. */
  readonly provider: string
  /** Where requests go when the client is not told. Default: none, the client must be told. */
  readonly baseUrl: string | undefined
  /**
   * The environment variables a client reads for the key and the base URL it was not given.
   * Default: none: a wire that names no variable never reads the environment.
   */
  readonly environment: {
    readonly apiKey?: string | undefined
    readonly baseUrl?: string | undefined
  }
  /**
   * The headers of every request: those made from the key (`undefined` when there is none) and
   * any the wire asks for. Default: `Authorization: Bearer <key>`, nothing without a key. The
   * client refuses a caller's header of the same name, and redacts the key wherever it is echoed.
   */
  readonly headers: (apiKey: string | undefined) => Readonly<Record<string, string>>
  /** Reads an answer that is not a success. Default: `HttpError.read`. */
  readonly readError: (response: HttpError.Response) => HttpError.Reading
  /** The listing of models, when the wire has one. Default: none. */
  readonly models: ModelListing | undefined
}

const bearer = (apiKey: string | undefined): Readonly<Record<string, string>> =>
  apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }

/**
 * A codec's HTTP facts, each one it left out filled in with the default.
 *
 * @example
 * ```ts
 * import { Codec } from "@svir/core"
 *
 * declare const codec: Codec.Codec
 * // the key as `Authorization: Bearer`, unless the codec says otherwise
 * const headers = Codec.http(codec).headers("sk-1")
 * ```
 *
 * @since 0.2.0
 * @category accessors
 */
export const http = (codec: Codec): Http => {
  const given = codec.http ?? {}
  return {
    provider: given.provider ?? codec.name,
    baseUrl: given.baseUrl,
    environment: given.environment ?? {},
    headers: given.headers ?? bearer,
    readError: given.readError ?? HttpError.read,
    models: given.models,
  }
}

const listingError = (message: string) =>
  Effect.fail(SvirError.make("Protocol", `the list of models ${message}`))

/**
 * The listing of models of OpenAI's API, which both of its wires (Chat Completions and
 * Responses) and the servers that copy it (vLLM, llama.cpp, LM Studio, Ollama, OpenRouter) give:
 * `GET /models`, a body `{"data": [{"id", "name"?, "owned_by"?}, ...]}`. An entry without a
 * string `id`, or a body without a `data` array, is a Protocol error.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Codec } from "@svir/core"
 *
 * const models = Effect.runSync(
 *   Codec.openAiModels.decode('{"data": [{"id": "gpt-5", "owned_by": "openai"}]}'),
 * )
 * models[0]?.ownedBy // "openai"
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const openAiModels: ModelListing = {
  path: "/models",
  decode: (text) => {
    const json = Json.parse(text)
    if (Result.isFailure(json)) return listingError(`could not be read: ${json.failure.message}`)
    const data = Json.isObject(json.success) ? json.success.data : undefined
    if (!Array.isArray(data)) return listingError("has no `data` array")
    const models: Array<Model> = []
    for (const entry of data) {
      const id = Json.isObject(entry) ? entry.id : undefined
      if (!Json.isObject(entry) || typeof id !== "string") {
        return Effect.fail(SvirError.make("Protocol", "a model in the list has no string `id`"))
      }
      const { name, owned_by: owner } = entry
      models.push({
        id,
        name: typeof name === "string" ? name : undefined,
        ownedBy: typeof owner === "string" ? owner : undefined,
      })
    }
    return Effect.succeed(models)
  },
}

/**
 * Decodes a stream of bytes into events with a codec's decoder. The stream ends after
 * `Completed`, without reading further bytes; an error comes after every event decoded before it.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { Codec } from "@svir/core"
 *
 * declare const codec: Codec.Codec
 * declare const body: Stream.Stream<Uint8Array>
 * const events = Codec.decodeStream(codec, body) // Stream<Event, SvirError>
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const decodeStream = <E, R>(
  codec: Codec,
  bytes: Stream.Stream<Uint8Array, E, R>,
): Stream.Stream<Event.Event, E | SvirError.SvirError, R> =>
  Stream.transformPull(bytes, (upstream) =>
    Effect.sync(() => new Decoding(codec.decoder(), upstream).next),
  )

/**
 * The pull of `decodeStream` (core D8): each pull of bytes, whatever number of chunks it brings,
 * is fed to the decoder in one step and gives one array of events; a pull that completes no event
 * pulls again. Once the answer has ended (an error, or `Completed`), no more bytes are pulled; the
 * error comes on the pull after the events decoded before it.
 */
class Decoding<E> {
  readonly next: Pull.Pull<Arr.NonEmptyReadonlyArray<Event.Event>, E | SvirError.SvirError, void>
  private ended = false
  private failure: SvirError.SvirError | undefined
  /** Built once: an effect is a description, run again on each pull. */
  private readonly pullBytes: Pull.Pull<
    Arr.NonEmptyReadonlyArray<Event.Event>,
    E | SvirError.SvirError,
    void
  >

  constructor(
    private readonly decoder: StreamDecoder,
    upstream: Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, E, void>,
  ) {
    this.pullBytes = Effect.flatMap(Pull.catchDone(upstream, noBytes), (chunks) =>
      chunks === undefined ? this.last() : this.feed(chunks),
    )
    this.next = Effect.suspend(() => this.pull())
  }

  private pull() {
    if (this.failure !== undefined) return Effect.fail(this.failure)
    return this.ended ? Cause.done() : this.pullBytes
  }

  private feed(chunks: Arr.NonEmptyReadonlyArray<Uint8Array>) {
    if (chunks.length === 1) return this.take(this.decoder.push(chunks[0]))
    const events: Array<Event.Event> = []
    for (const chunk of chunks) {
      const step = this.decoder.push(chunk)
      for (const event of step.events) events.push(event)
      if (endsAnswer(step)) return this.take({ events, error: step.error })
    }
    return this.take({ events, error: undefined })
  }

  private last() {
    this.ended = true
    return this.take(this.decoder.finish())
  }

  private take(step: DecodeStep) {
    this.failure = step.error
    if (endsAnswer(step)) this.ended = true
    return Arr.isReadonlyArrayNonEmpty(step.events) ? Effect.succeed(step.events) : this.next
  }
}

const noBytes = () => Effect.undefined

const endsAnswer = (step: DecodeStep): boolean =>
  step.error !== undefined || step.events[step.events.length - 1]?._tag === "Completed"

/**
 * Feeds chunks to a fresh decoder and finishes it: every event, and the error if the answer
 * failed. For tests and for transports that have the whole body at once.
 *
 * @since 0.2.0
 * @category combinators
 */
export const decodeChunks = (codec: Codec, chunks: Iterable<Uint8Array>): DecodeStep => {
  const decoder = codec.decoder()
  const events: Array<Event.Event> = []
  for (const chunk of chunks) {
    if (decoder.done()) break
    const step = decoder.push(chunk)
    events.push(...step.events)
    if (step.error !== undefined) return { events, error: step.error }
  }
  if (decoder.done()) return { events, error: undefined }
  const last = decoder.finish()
  events.push(...last.events)
  return { events, error: last.error }
}
