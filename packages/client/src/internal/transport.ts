import type { Event } from "@svir/core"
import { Codec, HttpError, Json, SvirError } from "@svir/core"
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Headers from "effect/http/Headers"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as UrlParams from "effect/http/UrlParams"
import * as Option from "effect/Option"
import type * as Pull from "effect/Pull"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as Redirect from "./redirect.js"
import type { Settings } from "./settings.js"
import type * as TotalTimeout from "./totalTimeout.js"

const timeoutError = (
  message: string,
  limit: SvirError.TimeLimit,
  limitMillis: number,
): SvirError.SvirError => SvirError.make("Timeout", message, { limit, limitMillis })

const seconds = (millis: number): string => `${millis / 1000}s`

/** Why a request never got an answer, in words, from what fetch or the platform reported. */
const describeCause = (cause: unknown): string => {
  let current: unknown = cause
  for (let depth = 0; depth < 4 && Json.isObject(current); depth++) {
    if (typeof current.code === "string") return current.code
    current = current.cause
  }
  return cause instanceof Error ? cause.message : "the connection failed"
}

const transportError = (
  error: HttpClientError.HttpClientError,
  url: string,
): SvirError.SvirError => {
  const reason = error.reason
  if (reason._tag === "InvalidUrlError") {
    return SvirError.make("Config", `the URL ${url} is not valid`)
  }
  // The request is not kept as the cause: it carries the Authorization header.
  const cause = "cause" in reason ? reason.cause : undefined
  return SvirError.make("Transport", `could not reach ${url}: ${describeCause(cause)}`, { cause })
}

const ignore = () => {}

/**
 * Why a body is cancelled: made once, since fetch would make a `DOMException` for each cancel
 * that gives no reason (D27).
 */
const callEnded = new Error("the call ended before the body was read to its end")

/**
 * The bytes of a response body, an error made by `onError` from what broke the read (its cause).
 * A body fetch gave (Effect's `FetchHttpClient`, any `HttpClientResponse.fromWeb`) is read from
 * its reader, with a finalizer that cancels it only when it was not read to its end: Effect's
 * `response.stream` waits on a cancel of every body, read or not, when its scope closes (D27).
 * Any other response is read through `response.stream`.
 */
const bodyOf = <E>(
  response: HttpClientResponse.HttpClientResponse,
  onError: (cause: unknown) => E,
): Stream.Stream<Uint8Array, E> => {
  const web = HttpClientResponse.toWeb(response)
  if (Option.isNone(web)) {
    return Stream.mapError(response.stream, (error) =>
      onError("cause" in error.reason ? error.reason.cause : undefined),
    )
  }
  const body = web.value.body
  if (body === null) return Stream.fail(onError(undefined))
  return Stream.fromChannel(
    Channel.fromTransform((_, scope: Scope.Scope) =>
      Effect.suspend(() => {
        const reader = body.getReader()
        let ended = false
        const read: Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, E> = Effect.flatMap(
          Effect.tryPromise({ try: () => reader.read(), catch: onError }),
          (result) => {
            if (!result.done) return Effect.succeed([result.value] as const)
            ended = true
            return Cause.done()
          },
        )
        return Effect.as(
          Scope.addFinalizer(
            scope,
            Effect.sync(() => {
              if (!ended) reader.cancel(callEnded).catch(ignore)
            }),
          ),
          read,
        )
      }),
    ),
  )
}

/**
 * Reads at most `maxBytes` of a body, giving up after `deadlineMillis`: a server that sends the
 * headers of an error and stalls its body must not hold the caller. The request is aborted when
 * its scope closes, not when the read ends (D9).
 */
const readBounded = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number,
  deadlineMillis: number,
): Effect.Effect<string | undefined> => {
  const parts: Array<Uint8Array> = []
  let size = 0
  return bodyOf(response, ignore).pipe(
    Stream.runForEachWhile((chunk) =>
      Effect.sync(() => {
        parts.push(chunk)
        size += chunk.length
        return size < maxBytes
      }),
    ),
    Effect.timeoutOption(deadlineMillis),
    Effect.map((read) =>
      Option.isNone(read) ? undefined : new TextDecoder().decode(concat(parts)),
    ),
    Effect.catch(() => Effect.undefined),
  )
}

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    whole.set(part, offset)
    offset += part.length
  }
  return whole
}

/** How much of an error body is read for the server's message. */
const errorBodyBytes = 64 * 1024

/**
 * How long an error body is waited for (D12): the body of a 400, 413 or 422 can make it a context
 * overflow or the content filter; any other only adds the server's words, and a server that
 * stalls it must not hold the caller.
 */
const errorBodyWait = (status: number, settings: Settings): number =>
  status === 400 || status === 413 || status === 422
    ? settings.errorBodyMillis
    : settings.briefErrorBodyMillis

/** D24: the codec reads its wire's error answer; the wait a server asks for is the transport's. */
const toError = (response: HttpError.Response, settings: Settings): SvirError.SvirError =>
  HttpError.toError(response, settings.http.readError(response), {
    maxRetryAfterMillis: settings.maxRetryAfterMillis,
  })

const failWithStatus = (
  response: HttpClientResponse.HttpClientResponse,
  settings: Settings,
): Effect.Effect<never, SvirError.SvirError> =>
  Effect.flatMap(
    readBounded(response, errorBodyBytes, errorBodyWait(response.status, settings)),
    (body) =>
      Effect.fail(toError({ status: response.status, headers: response.headers, body }, settings)),
  )

/** What {@link Transport.send} sends. */
interface Outgoing {
  readonly method: "GET" | "POST"
  readonly url: string
  readonly accept: string
  readonly body?: unknown
}

/** The HTTP side of one client: what every request shares is worked out once, in {@link make}. */
export interface Transport {
  /**
   * Sends one request and runs `use` on a successful response, the two within the time limit
   * `millis` (`limit` says which, `what` names it in words, see {@link within}). Any other status
   * is the typed error of its kind; its error body is read after the time limit, under the
   * error-body deadline alone, so a server that stalls that body is reported by its status, never
   * as a Timeout. A failed attempt aborts its requests at once; a successful one leaves them to
   * the caller's scope, since a stream's body is read after `send` returns (D9).
   */
  readonly send: <A>(
    request: Outgoing,
    use: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, SvirError.SvirError>,
    millis: number | undefined,
    limit: SvirError.TimeLimit,
    what: (limit: string) => string,
  ) => Effect.Effect<A, SvirError.SvirError, Scope.Scope>
}

/** Effect's HTTP span is left out when no tracer would see it (D26). */
const always = () => true

/** fetch would follow a redirect to any origin, with the configured headers: D3. */
const manualRedirects: globalThis.RequestInit = { redirect: "manual" }

export const make = (http: HttpClient.HttpClient, settings: Settings): Transport => {
  // D9: every request is scoped, so a response nobody reads is aborted with its call.
  const scoped = HttpClient.withScope(http)
  // D24: the codec makes the headers of its wire from the key.
  const authorization = settings.http.headers(
    settings.apiKey === undefined ? undefined : Redacted.value(settings.apiKey),
  )
  const plainRequests = new Map<string, HttpClientRequest.HttpClientRequest>()
  /** The request of a method and accept header, with every configured header: made once each. */
  const plainRequest = (method: Outgoing["method"], accept: string) => {
    const key = `${method} ${accept}`
    let plain = plainRequests.get(key)
    if (plain === undefined) {
      plain = HttpClientRequest.make(method)("", {
        headers: { ...settings.headers, accept, ...authorization },
      })
      plainRequests.set(key, plain)
    }
    return plain
  }
  const configuredNames = Object.keys(settings.headers)
  let namesGiven: ReadonlyArray<string | RegExp> | undefined
  let namesRedacted: ReadonlyArray<string | RegExp> = []
  const queryNames = Object.keys(settings.query)
  let paramsGiven: ReadonlyArray<string | RegExp> | undefined
  let paramsRedacted: ReadonlyArray<string | RegExp> = []
  /** The context a request is executed in, one update for the services it sets. */
  const exchangeContext = <R>(context: Context.Context<R>): Context.Context<R> => {
    const init = Context.getOrUndefined(context, FetchHttpClient.RequestInit)
    const names = Context.get(context, Headers.CurrentRedactedNames)
    if (names !== namesGiven) {
      namesGiven = names
      namesRedacted = [...names, ...configuredNames]
    }
    // D21: trace headers would tell a third-party server about the caller's spans, and make a
    // browser's preflight fail unless the server allows them; a caller who owns the server turns
    // them on.
    const traced = settings.propagateTraceContext
      ? context
      : Context.add(
          // D26: with Effect's own tracer, which keeps its spans nowhere, the HTTP span would be
          // made, filled and ended for no one; a tracer that exports spans gets it.
          Context.get(context, Tracer.Tracer) === Tracer.nativeTracer
            ? Context.add(context, HttpClient.TracerDisabledWhen, always)
            : context,
          HttpClient.TracerPropagationEnabled,
          false,
        )
    const redacting = traced.pipe(
      // fetch would follow a redirect to any origin with the configured headers, and resend the
      // body on a 307 or 308: redirects are the client's to decide (D3).
      Context.add(
        FetchHttpClient.RequestInit,
        init === undefined ? manualRedirects : { ...init, redirect: "manual" },
      ),
      // A span that records headers shows these as redacted, as it does authorization.
      Context.add(Headers.CurrentRedactedNames, namesRedacted),
    )
    if (queryNames.length === 0) return redacting
    // D18: a span's URL shows the configured query parameters redacted, as their values may be
    // keys.
    const params = Context.get(context, UrlParams.CurrentRedactedNames)
    if (params !== paramsGiven) {
      paramsGiven = params
      paramsRedacted = [...params, ...queryNames]
    }
    return Context.add(redacting, UrlParams.CurrentRedactedNames, paramsRedacted)
  }

  /**
   * Sends one request and gives the response, whatever its status. The request lives in a scope
   * of its own within the caller's: closing either aborts it, so a response nobody reads is let go
   * as soon as its call ends, not when it is garbage collected (D9).
   */
  const execute = (
    request: Outgoing,
    hops = 0,
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, SvirError.SvirError, Scope.Scope> =>
    Effect.gen(function* () {
      const exchange = yield* Scope.fork(yield* Scope.Scope)
      let outgoing = HttpClientRequest.setUrl(
        plainRequest(request.method, request.accept),
        request.url,
      )
      if (request.body !== undefined) {
        const text = yield* Effect.try({
          try: () => JSON.stringify(request.body),
          catch: (cause) =>
            SvirError.make("Unsupported", "the codec gave a body that is not JSON", { cause }),
        })
        outgoing = HttpClientRequest.bodyText(outgoing, text, "application/json")
      }
      const response = yield* scoped.execute(outgoing).pipe(
        Scope.provide(exchange),
        Effect.mapError((error) => transportError(error, request.url)),
        Effect.updateContext((context: Context.Context<never>) => exchangeContext(context)),
      )
      // `headers` is a copy made at each read: only a redirect's is read here.
      if (response.status < 300 || response.status > 399) return response
      const redirect = Redirect.next(response.status, response.headers.location, request.url, hops)
      if (redirect === undefined) return response
      // A redirect's body is not wanted: a byte of it is read, and the request ends.
      yield* readBounded(response, 1, settings.briefErrorBodyMillis)
      yield* Scope.close(exchange, Exit.void)
      if (redirect._tag === "Refuse") return yield* redirect.error
      return yield* execute({ ...request, url: redirect.url }, hops + 1)
    })

  const send = <A>(
    request: Outgoing,
    use: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, SvirError.SvirError>,
    millis: number | undefined,
    limit: SvirError.TimeLimit,
    what: (limit: string) => string,
  ): Effect.Effect<A, SvirError.SvirError, Scope.Scope> =>
    Effect.gen(function* () {
      const attempt = yield* Scope.fork(yield* Scope.Scope)
      return yield* within(
        Effect.flatMap(
          execute(request),
          (response): Effect.Effect<Exchanged<A>, SvirError.SvirError> =>
            response.status >= 200 && response.status < 300
              ? Effect.map(use(response), (value) => ({ _tag: "Success", value }))
              : Effect.succeed({ _tag: "Refused", response }),
        ),
        millis,
        limit,
        what,
      ).pipe(
        Effect.flatMap((exchanged) =>
          exchanged._tag === "Success"
            ? Effect.succeed(exchanged.value)
            : failWithStatus(exchanged.response, settings),
        ),
        Scope.provide(attempt),
        Effect.onError((cause) => Scope.close(attempt, Exit.failCause(cause))),
      )
    })

  return { send }
}

type Exchanged<A> =
  | { readonly _tag: "Success"; readonly value: A }
  | { readonly _tag: "Refused"; readonly response: HttpClientResponse.HttpClientResponse }

/** Reads a whole success body, bounded in size. */
export const readWhole = (
  response: HttpClientResponse.HttpClientResponse,
  settings: Settings,
): Effect.Effect<string, SvirError.SvirError> => {
  const parts: Array<Uint8Array> = []
  let size = 0
  return bodyOf(response, (cause) =>
    SvirError.make("Transport", "the connection broke while the answer was being read", {
      cause,
    }),
  ).pipe(
    Stream.runForEach((chunk) => {
      size += chunk.length
      if (size > settings.maxResponseBytes) {
        return Effect.fail(
          SvirError.make(
            "ResponseLimit",
            `the answer is larger than ${settings.maxResponseBytes} bytes`,
            { limit: "maxResponseBytes", max: settings.maxResponseBytes },
          ),
        )
      }
      parts.push(chunk)
      return Effect.void
    }),
    Effect.map(() => new TextDecoder().decode(concat(parts))),
  )
}

/**
 * Fails with a Timeout of `limit` when the effect takes longer than `millis`; `what` says which
 * limit, given it in words. Running out interrupts the effect, which aborts its request.
 */
const within = <A, R>(
  effect: Effect.Effect<A, SvirError.SvirError, R>,
  millis: number | undefined,
  limit: SvirError.TimeLimit,
  what: (limit: string) => string,
): Effect.Effect<A, SvirError.SvirError, R> =>
  millis === undefined
    ? effect
    : Effect.timeoutOrElse(effect, {
        duration: millis,
        orElse: () => Effect.fail(timeoutError(what(seconds(millis)), limit, millis)),
      })

/** Fails, saying so, when a streamed request got a success that is not an event stream. */
export const requireEventStream = (
  response: HttpClientResponse.HttpClientResponse,
  settings: Settings,
): Effect.Effect<HttpClientResponse.HttpClientResponse, SvirError.SvirError> => {
  const type = response.headers["content-type"] ?? ""
  if (type.toLowerCase().includes("text/event-stream")) return Effect.succeed(response)
  const wait = settings.briefErrorBodyMillis
  return Effect.flatMap(readBounded(response, errorBodyBytes, wait), (body) =>
    Effect.fail(
      SvirError.make(
        "Unsupported",
        `the server answered a streamed request with ${response.status} and content type ${JSON.stringify(type)}, not an event stream (text/event-stream)`,
        {
          status: response.status,
          serverMessage: settings.http.readError({
            status: response.status,
            headers: response.headers,
            body,
          }).words,
        },
      ),
    ),
  )
}

const truncated = (cause: unknown): SvirError.SvirError =>
  SvirError.make(
    "TruncatedStream",
    "the connection broke while the answer was streaming; the answer is incomplete",
    { cause },
  )

/**
 * The events of a streamed answer, as the pull of a stream whose scope is `scope`: the response's
 * bytes through the codec's decoder by core's `Codec.decodeStream` (which reads no more bytes once
 * the answer has ended, and gives an error after the events decoded before it), with the read
 * limits around it. A pull of events counts as one read, however many reads of bytes it takes:
 * bytes that make no event do not count. The time limits are kept by one watchdog per stream
 * (D16), not a race per read: a fiber in `scope` that sleeps until the first token or idle limit
 * of the read under way, or what is left of the total, whichever ends first, and on waking, if
 * that limit has passed, closes `requests` (which aborts the request, so the read under way ends)
 * and makes the stream fail with that limit's Timeout (D10). A connection that breaks mid-answer
 * is a TruncatedStream: the answer has started and is never retried. Every error is redacted (D1).
 */
export const eventPull = (
  response: HttpClientResponse.HttpClientResponse,
  settings: Settings,
  scope: Scope.Scope,
  requests: Scope.Closeable,
  deadline: TotalTimeout.Deadline,
): Effect.Effect<Pull.Pull<Arr.NonEmptyReadonlyArray<Event.Event>, SvirError.SvirError>> =>
  Effect.clockWith((clock) =>
    Effect.flatMap(
      Channel.toPullScoped(
        Stream.toChannel(Codec.decodeStream(settings.codec, bodyOf(response, truncated))),
        scope,
      ),
      (events) => {
        const { firstToken, idle } = settings.timeouts
        let first = true
        let ended = false
        /** When the read under way started, or `undefined` between reads. */
        let readSince: number | undefined
        /** The Timeout the watchdog met, once it has. */
        let expired: SvirError.SvirError | undefined

        const read: Pull.Pull<
          Arr.NonEmptyReadonlyArray<Event.Event>,
          SvirError.SvirError
        > = Effect.matchEffect(events, {
          onFailure: (error): Pull.Pull<never, SvirError.SvirError> => {
            ended = true
            if (expired !== undefined) return Effect.fail(expired)
            return Cause.isDone(error) ? Cause.done() : Effect.fail(settings.redaction.error(error))
          },
          onSuccess: (given) => {
            first = false
            readSince = undefined
            if (given[given.length - 1]!._tag === "Completed") ended = true
            return Effect.succeed(given)
          },
        })

        // A read can start at any time, with the limit of its moment: the watchdog never sleeps
        // past the shortest of the two from now, and looks again when it wakes.
        const shortest =
          firstToken === undefined
            ? idle
            : idle === undefined
              ? firstToken
              : Math.min(firstToken, idle)
        const readLimitError = (limit: number): SvirError.SvirError =>
          first
            ? timeoutError(
                `no token arrived within ${seconds(limit)} of the answer's start (first token timeout)`,
                "firstToken",
                limit,
              )
            : timeoutError(`no event arrived for ${seconds(limit)} (idle timeout)`, "idle", limit)
        const watch: Effect.Effect<void> = Effect.suspend(() => {
          if (ended) return Effect.void
          const now = clock.currentTimeMillisUnsafe()
          let wait = deadline.left()
          let error = deadline.error
          const limit = first ? firstToken : idle
          if (readSince !== undefined && limit !== undefined) {
            const left = readSince + limit - now
            if (wait === undefined || left < wait) {
              wait = left
              error = () => readLimitError(limit)
            }
          }
          if (wait !== undefined && wait <= 0) {
            expired = error()
            return Scope.close(requests, Exit.void)
          }
          if (shortest !== undefined && (wait === undefined || shortest < wait)) wait = shortest
          return wait === undefined ? Effect.void : Effect.andThen(Effect.sleep(wait), watch)
        })

        return Effect.as(
          firstToken === undefined && idle === undefined && deadline.left() === undefined
            ? Effect.void
            : Effect.forkIn(watch, scope),
          Effect.suspend(() => {
            if (expired !== undefined) return Effect.fail(expired)
            readSince ??= clock.currentTimeMillisUnsafe()
            return read
          }),
        )
      },
    ),
  )
