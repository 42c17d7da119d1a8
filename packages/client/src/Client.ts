/**
 * A client of any wire a codec speaks: it sends a core `Request` through the codec (Chat
 * Completions by default) over Effect's HTTP client, and gives a `Completion` or a stream of
 * `Event`s. The codec says its wire's HTTP facts (the headers made from the key, how error
 * answers read, the list of models, the default base URL and environment variables); the client
 * does the transport: retries, time limits, redirects, redaction, files and spans. Every failure
 * is a typed `SvirError`.
 *
 * @since 0.2.0
 * @module
 */
import type { Completion, Event } from "@svir/core"
import { Codec, HttpError, Request, SvirError } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"
import * as Channel from "effect/Channel"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Attachments from "./internal/attachments.js"
import * as Environment from "./internal/environment.js"
import * as LeanRetry from "./internal/leanRetry.js"
import * as RetryPolicy from "./internal/retryPolicy.js"
import * as Settings from "./internal/settings.js"
import * as Spans from "./internal/telemetry.js"
import * as TotalTimeout from "./internal/totalTimeout.js"
import * as Transport from "./internal/transport.js"

/**
 * How often and how patiently to retry. Only errors whose kind is retryable are retried
 * (Transport, Timeout, RateLimited, TruncatedStream), and never once a streamed answer has
 * started. The wait is `baseDelay` doubled at each attempt, with jitter, capped at `maxDelay`;
 * a `Retry-After` from the server replaces it. `times` is a whole number of 0 or more; the delays
 * are finite and not negative (a number is milliseconds); anything else is a Config error.
 *
 * @since 0.2.0
 * @category models
 */
export interface Retry {
  /** Retries after the first attempt (default 2). */
  readonly times?: number | undefined
  /** The first wait (default 500 ms). */
  readonly baseDelay?: Duration.Input | undefined
  /** The longest wait (default 8 s). */
  readonly maxDelay?: Duration.Input | undefined
}

/**
 * Time limits. `connect`: until the response headers of a stream (and the list of models).
 * `firstToken`: until the first event of a stream; for `complete`, until the whole answer, headers
 * included, since a server that does not stream sends its headers only when it is done. `idle`:
 * between two events of a stream. `total`: the whole call, retries included. Each is more than 0
 * (a number is milliseconds), or `Infinity` for no limit; NaN, 0 or a negative is a Config error.
 *
 * @example
 * ```ts
 * import { Client } from "@svir/client"
 *
 * // A local model that can think for a long time before its first token.
 * const options: Client.Options = { timeouts: { firstToken: Infinity, idle: "5 minutes" } }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Timeouts {
  /** Default 120 s. */
  readonly connect?: Duration.Input | undefined
  /** Default 300 s. */
  readonly firstToken?: Duration.Input | undefined
  /** Default 120 s. */
  readonly idle?: Duration.Input | undefined
  /** Default 600 s. */
  readonly total?: Duration.Input | undefined
}

/**
 * Options of a client. All are optional.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /**
   * The API's base URL, with or without `/v1` and a trailing slash (a URL with no path gets
   * `/v1`). Default: the codec's variable (`OPENAI_BASE_URL` for Chat Completions), else the
   * codec's own base URL; a codec with neither needs one (a Config error otherwise).
   */
  readonly baseUrl?: string | undefined
  /**
   * The API key, sent in the headers the codec makes of it (a bearer token for Chat
   * Completions). Default: the codec's variable (`OPENAI_API_KEY` for Chat Completions); none
   * when neither is set. It never appears in an error or a log line, even when a server echoes it
   * back.
   */
  readonly apiKey?: string | Redacted.Redacted<string> | undefined
  /**
   * Extra headers. Those the client sets itself (authorization, content-type, ...) and those the
   * codec makes from the key are refused.
   * Their values are kept out of errors and log lines like the key, since keys, tokens and cookies
   * go here too.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /**
   * Query parameters added to every request's URL, the list of models too: Azure's classic
   * `api-version`, a gateway's key. The base URL cannot carry them. Their values are kept out of
   * errors, log lines and spans like the key.
   *
   * @example
   * ```ts
   * import { Client } from "@svir/client"
   *
   * const azure: Client.Options = {
   *   baseUrl: "https://example.openai.azure.com/openai/deployments/gpt-4o-mini",
   *   query: { "api-version": "2024-10-21" },
   *   headers: { "api-key": "..." },
   * }
   * ```
   *
   * @since 0.2.0
   */
  readonly query?: Readonly<Record<string, string>> | undefined
  /** Allows plain `http` to hosts other than loopback. */
  readonly allowInsecureHttp?: boolean | undefined
  /** The wire codec (default: Chat Completions, `OpenAiCodec.make()`). */
  readonly codec?: Codec.Codec | undefined
  /** The retry policy, or `false` for none. */
  readonly retry?: Retry | false | undefined
  /** Time limits. */
  readonly timeouts?: Timeouts | undefined
  /** The most a `Retry-After` wait can be (default 30 s): finite, not negative. */
  readonly maxRetryAfter?: Duration.Input | undefined
  /**
   * How long an error body is waited for before the error is reported without it: finite, not
   * negative. Default: 2 s for a 400, 413 or 422, whose body can decide the kind (a context
   * overflow, the content filter), and 300 ms for any other status, whose body only adds the
   * server's words. Given, it applies to every status.
   */
  readonly errorBodyTimeout?: Duration.Input | undefined
  /** The largest whole answer read by `complete`, in bytes: a whole number (default 16 MiB). */
  readonly maxResponseBytes?: number | undefined
  /**
   * Whether a 400 or 422 to a request that carries optional fields (those the codec leaves out
   * of a lean body: for Chat Completions, `OpenAiCodec.optionalFields`) is retried once
   * without them; the server is then remembered as strict and later requests go without them.
   * A tool choice, a response format and the sampling options are always kept. Default `true`.
   */
  readonly leanRetry?: boolean | undefined
  /**
   * Whether a streamed request that does not say (`Request.includeUsage`) asks the server for
   * usage. Default `true`: nearly every caller wants it, and a server that refuses the field
   * loses it to the lean retry.
   *
   * @since 0.2.0
   */
  readonly includeUsage?: boolean | undefined
  /**
   * The model's context size in tokens, for a request that does not give one
   * (`Request.contextTokens`): a request that cannot fit is refused with a ContextOverflow before
   * anything is sent. A whole number of 1 or more. Default: none, no check.
   *
   * @since 0.2.0
   */
  readonly contextTokens?: number | undefined
  /**
   * Reads the file at a path, for a request with files by path (`Message.textFileAt`,
   * `Message.imageAt`): at most `maxBytes + 1` bytes are needed, enough to tell the file is too
   * large. Default: `node:fs/promises` (Node, Bun, Deno), loaded when first needed. A rejection
   * becomes an Attachment error naming the path, before anything is sent.
   *
   * @since 0.2.0
   */
  readonly readFile?: ((path: string, maxBytes: number) => Promise<Uint8Array>) | undefined
  /**
   * How the client's spans look and travel: see {@link Telemetry}.
   *
   * @since 0.2.0
   */
  readonly telemetry?: Telemetry | undefined
}

/**
 * Telemetry options. Every model call is a `chat {model}` span that follows OpenTelemetry's
 * GenAI conventions (the models, the tokens, the finish reason, the server, `error.type`), seen
 * once the program provides a tracer (`@effect/opentelemetry`). Prompts and answers go into it
 * only when `GenAi.RecordContent` of `@svir/core` is `true`; the key and the configured header
 * and query values never do.
 *
 * - `propagateTraceContext`: whether requests carry the trace context (`traceparent`) so that a
 *   server you run (vLLM behind your collector) joins the trace. Default `false`: a third-party
 *   server learns nothing of your spans.
 * - `providerName`: the span's `gen_ai.provider.name`. Default: the codec's provider (`openai`
 *   for Chat Completions, the API any OpenAI-compatible server speaks).
 *
 * @example
 * ```ts
 * import { Client } from "@svir/client"
 *
 * // Your own vLLM server, whose collector should see the same traces.
 * const options: Client.Options = {
 *   baseUrl: "https://vllm.internal.example/v1",
 *   telemetry: { propagateTraceContext: true },
 * }
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Telemetry {
  readonly propagateTraceContext?: boolean | undefined
  readonly providerName?: string | undefined
}

/**
 * A model the server offers, as the codec's listing reads it: `id`, a display name where the
 * server gives one (LM Studio, OpenRouter), and the owner.
 *
 * @since 0.2.0
 * @category models
 */
export type Model = Codec.Model

/**
 * What a client does.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** The base URL requests go to, normalized. */
  readonly baseUrl: string
  /** Sends a request and reads the whole answer. */
  readonly complete: (
    request: Request.Request,
  ) => Effect.Effect<Completion.Completion, SvirError.SvirError>
  /** Sends a request and streams the answer; the last event is `Completed`. */
  readonly stream: (request: Request.Request) => Stream.Stream<Event.Event, SvirError.SvirError>
  /** The models the server offers; Unsupported for a wire with no listing. */
  readonly listModels: () => Effect.Effect<ReadonlyArray<Model>, SvirError.SvirError>
  /**
   * An Effect that gives whether the server refused optional fields once and is now sent
   * requests without them.
   */
  readonly isStrict: Effect.Effect<boolean>
}

/**
 * The client as a service, for programs that take it from their context.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Request } from "@svir/core"
 * import { Client } from "@svir/client"
 *
 * const program = Effect.gen(function* () {
 *   const client = yield* Client.Client
 *   return yield* client.complete(Request.make("qwen3").pipe(Request.user("Hi")))
 * }).pipe(Effect.provide(Client.layerFetch({ baseUrl: "http://127.0.0.1:11434" })))
 * ```
 *
 * @since 0.2.0
 * @category services
 */
export class Client extends Context.Service<Client, Service>()("@svir/client/Client") {}

const connectTimeout = (limit: string) =>
  `the server sent no answer within ${limit} (connect timeout)`

const resolveSettings = (options: Options): Effect.Effect<Settings.Settings, SvirError.SvirError> =>
  Effect.gen(function* () {
    const codec = options.codec ?? OpenAiCodec.make()
    const http = Codec.http(codec)
    const baseUrl =
      options.baseUrl ?? (yield* Environment.baseUrl(http.environment.baseUrl)) ?? http.baseUrl
    if (baseUrl === undefined) {
      return yield* Effect.fail(
        SvirError.make(
          "Config",
          `the codec ${codec.name} has no default base URL: give the client a baseUrl`,
        ),
      )
    }
    const rawKey =
      options.apiKey === undefined
        ? yield* Environment.apiKey(http.environment.apiKey)
        : Redacted.isRedacted(options.apiKey)
          ? options.apiKey
          : Redacted.make(options.apiKey)
    const retry = options.retry === false ? { times: 0 } : (options.retry ?? {})
    const timeouts = options.timeouts ?? {}
    const apiKey = rawKey === undefined ? undefined : yield* Settings.checkApiKey(rawKey)
    const headers = yield* Settings.checkHeaders(options.headers ?? {}, http)
    const query = yield* Settings.checkQuery(options.query ?? {})
    return {
      baseUrl: yield* Settings.normalizeBaseUrl(baseUrl, options.allowInsecureHttp ?? false),
      apiKey,
      headers,
      query,
      redaction: Settings.redactionOf(apiKey, headers, query),
      codec,
      http,
      retry: {
        times: yield* Settings.count(retry.times ?? 2, 0, "retry times"),
        baseDelayMillis: (yield* Settings.waitMillis(retry.baseDelay, "retry baseDelay")) ?? 500,
        maxDelayMillis: (yield* Settings.waitMillis(retry.maxDelay, "retry maxDelay")) ?? 8_000,
      },
      timeouts: {
        connect: yield* Settings.limitMillis(timeouts.connect ?? "120 seconds", "connect timeout"),
        firstToken: yield* Settings.limitMillis(
          timeouts.firstToken ?? "300 seconds",
          "first token timeout",
        ),
        idle: yield* Settings.limitMillis(timeouts.idle ?? "120 seconds", "idle timeout"),
        total: yield* Settings.limitMillis(timeouts.total ?? "600 seconds", "total timeout"),
      },
      maxRetryAfterMillis:
        (yield* Settings.waitMillis(options.maxRetryAfter, "maxRetryAfter")) ??
        HttpError.defaultMaxRetryAfterMillis,
      ...errorBodyWaits(yield* Settings.waitMillis(options.errorBodyTimeout, "errorBodyTimeout")),
      maxResponseBytes: yield* Settings.count(
        options.maxResponseBytes ?? 16 * 1024 * 1024,
        1,
        "maxResponseBytes",
      ),
      leanRetry: options.leanRetry ?? true,
      includeUsage: options.includeUsage ?? true,
      contextTokens:
        options.contextTokens === undefined
          ? undefined
          : yield* Settings.count(options.contextTokens, 1, "contextTokens"),
      propagateTraceContext: options.telemetry?.propagateTraceContext ?? false,
    }
  })

/**
 * D12: a body that can decide the kind (a 400, 413 or 422) is waited for longer than one that only
 * adds the server's words; an `errorBodyTimeout` given applies to both.
 */
const errorBodyWaits = (given: number | undefined) => ({
  errorBodyMillis: given ?? 2_000,
  briefErrorBodyMillis: given ?? 300,
})

/** D13: the client's defaults, on a request that leaves them to it. */
const withDefaults = (request: Request.Request, settings: Settings.Settings): Request.Request => {
  let ready = request
  if (ready.includeUsage === undefined && settings.includeUsage) {
    ready = Request.includeUsage(ready, true)
  }
  if (ready.contextTokens === undefined && settings.contextTokens !== undefined) {
    ready = Request.contextTokens(ready, settings.contextTokens)
  }
  return ready
}

/**
 * Makes a client. The configuration is checked here: a bad base URL, header, key or number is a
 * Config error before anything is sent. Needs an `HttpClient` (fetch: `FetchHttpClient.layer` from
 * `effect/http`). A redirect within the base URL's origin is followed; one to another origin is a
 * Config error that names it, and nothing is sent there. An `HttpClient` of your own must not
 * follow redirects itself (fetch is told not to).
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { Request } from "@svir/core"
 * import { Client } from "@svir/client"
 *
 * const program = Effect.gen(function* () {
 *   const client = yield* Client.make({ baseUrl: "http://127.0.0.1:1234/v1" })
 *   const request = Request.make("qwen3").pipe(Request.user("Hi"))
 *   const done = yield* client.complete(request)
 *   yield* client.stream(request).pipe(Stream.runForEach((event) => Effect.log(event._tag)))
 *   return done.text
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  options: Options = {},
): Effect.Effect<Service, SvirError.SvirError, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const settings = yield* resolveSettings(options)
    const readFile = options.readFile ?? Attachments.readFromDisk
    const transport = Transport.make(yield* HttpClient.HttpClient, settings)
    const lean = yield* LeanRetry.make(settings.leanRetry, settings.redaction)
    const retrying = RetryPolicy.retrying(settings.retry, settings.redaction)
    const total = TotalTimeout.make(settings.timeouts.total)
    // D18: the query ends every URL, the list of models included.
    const query = Settings.queryString(settings.query)
    const endpoint = `${settings.baseUrl}${settings.codec.path}${query}`
    const models = settings.http.models
    const modelsUrl =
      models === undefined
        ? undefined
        : `${settings.baseUrl}${models.path}${Settings.queryString({ ...models.query, ...settings.query })}`
    // Every error leaves the client redacted: a server can echo the key or a header value back in
    // any error (D1). Log lines are redacted where they are written.
    const redacted = Effect.mapError(settings.redaction.error)
    // D20: one `chat {model}` span per call, outside the redaction, so that the error it records
    // is the redacted one.
    const telemetry = Spans.make(
      settings.baseUrl,
      options.telemetry?.providerName ?? settings.http.provider,
      settings.redaction,
    )

    /**
     * D14: files by path are read here, since codecs do no I/O. The body is written by the lean
     * retry: only the one that is sent (D6); a request the codec refuses fails before anything is
     * sent.
     */
    const send = <A>(
      request: Request.Request,
      stream: boolean,
      attempt: (body: unknown) => Effect.Effect<A, SvirError.SvirError, Scope.Scope>,
    ) =>
      Effect.flatMap(
        Attachments.resolveAttachments(withDefaults(request, settings), readFile),
        (ready) =>
          lean.send(
            (lean) => settings.codec.encode(ready, { stream, lean }),
            (body) => retrying(attempt(body)),
          ),
      )

    const complete = (request: Request.Request) =>
      Spans.complete(telemetry, request, completeUntraced(request))

    const completeUntraced = (request: Request.Request) =>
      send(request, false, (body) =>
        transport.send(
          { method: "POST", url: endpoint, accept: "application/json", body },
          (response) => Transport.readWhole(response, settings),
          settings.timeouts.firstToken,
          "firstToken",
          (limit) => `the whole answer did not arrive within ${limit} (first token timeout)`,
        ),
      ).pipe(
        Effect.flatMap((text) => settings.codec.decodeResponse(text)),
        Effect.scoped,
        total.effect,
        redacted,
      )

    const open = (request: Request.Request) =>
      send(request, true, (body) =>
        transport
          .send(
            { method: "POST", url: endpoint, accept: "text/event-stream", body },
            Effect.succeed,
            settings.timeouts.connect,
            "connect",
            connectTimeout,
          )
          .pipe(Effect.flatMap((response) => Transport.requireEventStream(response, settings))),
      )

    // The stream's own scope holds the request: when the stream ends, however early, the request
    // is aborted, even before its body was read (D9). The stream is one pull over the decoder;
    // opening it is raced against the total once, and its reads are watched by one watchdog that
    // closes `requests` when a limit passes (D10, D16).
    const stream = (request: Request.Request): Stream.Stream<Event.Event, SvirError.SvirError> =>
      Stream.fromChannel(
        Channel.fromTransform((_, scope: Scope.Scope) =>
          Effect.flatMap(total.start, (deadline) =>
            Effect.flatMap(Scope.fork(scope), (requests) =>
              Spans.stream(
                telemetry,
                request,
                scope,
                deadline.within(open(request)).pipe(
                  Effect.flatMap((response) =>
                    Transport.eventPull(response, settings, scope, requests, deadline),
                  ),
                  Scope.provide(requests),
                  redacted,
                ),
              ),
            ),
          ),
        ),
      )

    const listModels = () =>
      models === undefined || modelsUrl === undefined
        ? Effect.fail(
            SvirError.make("Unsupported", `the wire ${settings.codec.name} has no list of models`),
          )
        : retrying(
            transport.send(
              { method: "GET", url: modelsUrl, accept: "application/json" },
              (response) => Transport.readWhole(response, settings),
              settings.timeouts.connect,
              "connect",
              connectTimeout,
            ),
          ).pipe(Effect.flatMap(models.decode), Effect.scoped, total.effect, redacted)

    return {
      baseUrl: settings.baseUrl,
      complete,
      stream,
      listModels,
      isStrict: lean.isStrict,
    } satisfies Service
  })

/**
 * The client as a layer. Needs an `HttpClient`: see {@link layerFetch} for the fetch one.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options: Options = {},
): Layer.Layer<Client, SvirError.SvirError, HttpClient.HttpClient> =>
  Layer.effect(Client, make(options))

/**
 * The client as a layer over fetch: runs on Node, Bun, Deno and in browsers.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerFetch = (options: Options = {}): Layer.Layer<Client, SvirError.SvirError> =>
  layer(options).pipe(Layer.provide(FetchHttpClient.layer))

/**
 * Sends a request with the client of the context and reads the whole answer.
 *
 * @since 0.2.0
 * @category accessors
 */
export const complete = (
  request: Request.Request,
): Effect.Effect<Completion.Completion, SvirError.SvirError, Client> =>
  Client.use((client) => client.complete(request))

/**
 * Sends a request with the client of the context and streams the answer.
 *
 * @since 0.2.0
 * @category accessors
 */
export const stream = (
  request: Request.Request,
): Stream.Stream<Event.Event, SvirError.SvirError, Client> =>
  Stream.unwrap(Client.useSync((client) => client.stream(request)))

/**
 * The models the server of the context's client offers.
 *
 * @since 0.2.0
 * @category accessors
 */
export const listModels = (): Effect.Effect<ReadonlyArray<Model>, SvirError.SvirError, Client> =>
  Client.use((client) => client.listModels())
