/**
 * The one error type of svir's transport and protocol failures. A {@link SvirError} wraps a
 * `reason`: one class per kind of failure ({@link RateLimited}, {@link Timeout}, ...), each with
 * only the data that kind has and its own `isRetryable`. Match a reason with Effect's reason
 * helpers (`Effect.catchReason`, `Effect.catchReasons`, `Effect.unwrapReason`), the way Effect's
 * own `AiError` is matched.
 *
 * @since 0.2.0
 * @module
 */
import * as Data from "effect/Data"
import * as Predicate from "effect/Predicate"
import * as Record from "effect/Record"
import * as Text from "./Text.js"

/**
 * The most characters of a server's own message kept by {@link make}.
 *
 * @since 0.2.0
 * @category models
 */
export const serverMessageLimit = 4096

/**
 * The request asks for something the codec or the server cannot do (a tool choice naming a tool
 * not offered, an attachment the wire has no part for, a status the server refused it with).
 * `attachment` is the name of the attachment that could not be sent.
 *
 * @since 0.2.0
 * @category reasons
 */
export class Unsupported extends Data.TaggedClass("Unsupported")<{
  readonly status?: number | undefined
  readonly serverMessage?: string | undefined
  readonly attachment?: string | undefined
}> {
  /** Sending the same request again gives the same answer. */
  get isRetryable(): boolean {
    return false
  }
}

/**
 * A streamed answer ended before it was whole.
 *
 * @since 0.2.0
 * @category reasons
 */
export class TruncatedStream extends Data.TaggedClass("TruncatedStream") {
  /** The break may not happen again. */
  get isRetryable(): boolean {
    return true
  }
}

/**
 * The server's answer does not fit the wire protocol. `serverMessage` holds the part that could
 * not be read, where there is one.
 *
 * @since 0.2.0
 * @category reasons
 */
export class Protocol extends Data.TaggedClass("Protocol")<{
  readonly serverMessage?: string | undefined
}> {
  /** The server answers the same way again. */
  get isRetryable(): boolean {
    return false
  }
}

/**
 * The server reported an error in place of an answer. `code` is the server's own code for it
 * (an OpenAI-style `error.code`, an MCP error code).
 *
 * @since 0.2.0
 * @category reasons
 */
export class Server extends Data.TaggedClass("Server")<{
  readonly status?: number | undefined
  readonly serverMessage?: string | undefined
  readonly code?: string | number | undefined
}> {
  /** Nothing says the server would answer otherwise. */
  get isRetryable(): boolean {
    return false
  }
}

/**
 * The request does not fit the model's context window.
 *
 * @since 0.2.0
 * @category reasons
 */
export class ContextOverflow extends Data.TaggedClass("ContextOverflow")<{
  readonly status?: number | undefined
  readonly serverMessage?: string | undefined
  readonly code?: string | number | undefined
}> {
  /** The same request does not fit the next time either. */
  get isRetryable(): boolean {
    return false
  }
}

/**
 * The server's content filter refused the request or stopped the answer.
 *
 * @since 0.2.0
 * @category reasons
 */
export class ContentFilter extends Data.TaggedClass("ContentFilter")<{
  readonly status?: number | undefined
  readonly serverMessage?: string | undefined
}> {
  /** The filter refuses the same request again. */
  get isRetryable(): boolean {
    return false
  }
}

/**
 * The answer is larger than a limit allows. `limit` names the limit as its option is named
 * (`maxBytes`, `maxEventBytes`, `maxCalls`, `maxResponseBytes`, `maxPages`, `maxTools`); `max`
 * is its value.
 *
 * @since 0.2.0
 * @category reasons
 */
export class ResponseLimit extends Data.TaggedClass("ResponseLimit")<{
  readonly limit?: string | undefined
  readonly max?: number | undefined
}> {
  /** The same answer is as large the next time. */
  get isRetryable(): boolean {
    return false
  }
}

/**
 * The request did not get through, or the server failed (HTTP 500, 502, 503). A 503 may say how
 * long to wait in `retryAfterMillis`.
 *
 * @since 0.2.0
 * @category reasons
 */
export class Transport extends Data.TaggedClass("Transport")<{
  readonly status?: number | undefined
  readonly serverMessage?: string | undefined
  readonly retryAfterMillis?: number | undefined
}> {
  /** A connection or a server can recover. */
  get isRetryable(): boolean {
    return true
  }
}

/**
 * Which time limit of a client ran out: `connect` (no answer began), `firstToken` (a stream sent
 * no first event), `idle` (a stream went quiet), `total` (the whole call).
 *
 * @since 0.2.0
 * @category models
 */
export type TimeLimit = "connect" | "firstToken" | "idle" | "total"

/**
 * A time limit ran out: one of the client's (`limit`, `limitMillis`), or the server's own
 * (HTTP 408 or 504, with `status`).
 *
 * @since 0.2.0
 * @category reasons
 */
export class Timeout extends Data.TaggedClass("Timeout")<{
  readonly limit?: TimeLimit | undefined
  readonly limitMillis?: number | undefined
  readonly status?: number | undefined
  readonly serverMessage?: string | undefined
}> {
  /** The next try may be faster. */
  get isRetryable(): boolean {
    return true
  }
}

/**
 * The server is rate limiting this client (HTTP 429). `retryAfterMillis` is the wait it asked
 * for, where it said.
 *
 * @since 0.2.0
 * @category reasons
 */
export class RateLimited extends Data.TaggedClass("RateLimited")<{
  readonly status?: number | undefined
  readonly serverMessage?: string | undefined
  readonly retryAfterMillis?: number | undefined
}> {
  /** The limit lifts after a wait. */
  get isRetryable(): boolean {
    return true
  }
}

/**
 * The server refused the credentials (HTTP 401 or 403).
 *
 * @since 0.2.0
 * @category reasons
 */
export class Authentication extends Data.TaggedClass("Authentication")<{
  readonly status?: number | undefined
  readonly serverMessage?: string | undefined
}> {
  /** The same credentials are refused again. */
  get isRetryable(): boolean {
    return false
  }
}

/**
 * An attachment could not be sent as it is: a file that cannot be read, is larger than allowed,
 * changed while it was sent, is not UTF-8 text where text is required, or does not have the
 * escaped length declared for it. `attachment` names it (its path or name). A local failure, not
 * the server's.
 *
 * @since 0.2.0
 * @category reasons
 */
export class Attachment extends Data.TaggedClass("Attachment")<{
  readonly attachment?: string | undefined
}> {
  /** The file stays as it is until the caller changes it. */
  get isRetryable(): boolean {
    return false
  }
}

/**
 * The caller's options are wrong (a URL, a limit, a redirect the client will not follow, whose
 * `status` is kept).
 *
 * @since 0.2.0
 * @category reasons
 */
export class Config extends Data.TaggedClass("Config")<{
  readonly status?: number | undefined
}> {
  /** The options stay wrong until the caller changes them. */
  get isRetryable(): boolean {
    return false
  }
}

/** Every reason class, by its kind, in a fixed order: the one place the kinds are written. */
const reasons = {
  Unsupported,
  TruncatedStream,
  Protocol,
  Server,
  ContextOverflow,
  ContentFilter,
  ResponseLimit,
  Transport,
  Timeout,
  RateLimited,
  Authentication,
  Config,
  Attachment,
}

/**
 * What went wrong, as a tag. Match with `Effect.catchReason("SvirError", "RateLimited", ...)`.
 *
 * @since 0.2.0
 * @category models
 */
export type Kind = keyof typeof reasons

/**
 * The reason of the given kind: `ReasonOf<"RateLimited">` is {@link RateLimited}.
 *
 * @since 0.2.0
 * @category models
 */
export type ReasonOf<K extends Kind> = InstanceType<(typeof reasons)[K]>

/**
 * The reason of a {@link SvirError}: a union of classes, one per {@link Kind}.
 *
 * @since 0.2.0
 * @category models
 */
export type Reason = ReasonOf<Kind>

/**
 * Every kind, in a fixed order.
 *
 * @since 0.2.0
 * @category models
 */
export const kinds: ReadonlyArray<Kind> = Record.keys(reasons)

/**
 * The data a reason of the given kind carries, without its tag.
 *
 * @since 0.2.0
 * @category models
 */
export type Fields<K extends Kind> = K extends Kind
  ? Omit<ReasonOf<K>, "_tag" | "isRetryable" | "pipe">
  : never

/**
 * Options of {@link make}: the data of the reason's kind, and the underlying `cause`.
 *
 * @since 0.2.0
 * @category models
 */
export type Details<K extends Kind> = Fields<K> & { readonly cause?: unknown }

/**
 * The marker that makes {@link isSvirError} true. It is `Symbol.for(...)`, the same in every
 * copy of this package, so an error made by another installed copy is still recognised.
 *
 * @since 0.2.0
 * @category guards
 */
export const TypeId: unique symbol = Symbol.for("@svir/core/SvirError")

/**
 * A transport or protocol failure. `reason` says what kind, with that kind's data; `message` says
 * what happened in words; `cause` is the underlying failure, where there was one.
 *
 * `reason._tag` names the kind of failure. `isRetryable`, `status`, `serverMessage` and
 * `retryAfterMillis` are read from the reason, for callers that do not care which kind it is:
 * `status` is the HTTP status where there was one, `serverMessage` the server's own words (cut at
 * {@link serverMessageLimit} characters by {@link make}), `retryAfterMillis` the wait a server
 * asked for.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SvirError } from "@svir/core"
 *
 * const failed = Effect.fail(SvirError.make("RateLimited", "slow down", { retryAfterMillis: 2000 }))
 * const handled = failed.pipe(
 *   Effect.catchReason("SvirError", "RateLimited", (reason) =>
 *     Effect.succeed(`waiting ${reason.retryAfterMillis ?? 1000} ms`),
 *   ),
 * )
 * ```
 *
 * @since 0.2.0
 * @category errors
 */
export class SvirError extends Data.TaggedError("SvirError")<{
  readonly reason: Reason
  readonly message: string
  readonly cause?: unknown
}> {
  /** Marks a SvirError across copies of this package: see {@link isSvirError}. */
  get [TypeId](): typeof TypeId {
    return TypeId
  }

  /** Whether sending the same request again can help: the reason's `isRetryable`. */
  get isRetryable(): boolean {
    return this.reason.isRetryable
  }

  /** The HTTP status, where the reason has one. */
  get status(): number | undefined {
    return "status" in this.reason ? this.reason.status : undefined
  }

  /** The server's own words, where the reason has them. */
  get serverMessage(): string | undefined {
    return "serverMessage" in this.reason ? this.reason.serverMessage : undefined
  }

  /** The wait the server asked for, where the reason has one (RateLimited, Transport). */
  get retryAfterMillis(): number | undefined {
    return "retryAfterMillis" in this.reason ? this.reason.retryAfterMillis : undefined
  }
}

const cut = (text: string | undefined): string | undefined =>
  text === undefined ? text : Text.shorten(text, serverMessageLimit)

const cutCode = (code: string | number | undefined): string | number | undefined =>
  typeof code === "string" ? cut(code) : code

/** Each kind's reason from the details of {@link make}: each takes only the fields of its kind. */
const build: { readonly [K in Kind]: (details?: Details<K>) => ReasonOf<K> } = {
  Unsupported: (d = {}) =>
    new Unsupported({
      status: d.status,
      serverMessage: cut(d.serverMessage),
      attachment: d.attachment,
    }),
  TruncatedStream: () => new TruncatedStream(),
  Protocol: (d = {}) => new Protocol({ serverMessage: cut(d.serverMessage) }),
  Server: (d = {}) =>
    new Server({ status: d.status, serverMessage: cut(d.serverMessage), code: cutCode(d.code) }),
  ContextOverflow: (d = {}) =>
    new ContextOverflow({
      status: d.status,
      serverMessage: cut(d.serverMessage),
      code: cutCode(d.code),
    }),
  ContentFilter: (d = {}) =>
    new ContentFilter({ status: d.status, serverMessage: cut(d.serverMessage) }),
  ResponseLimit: (d = {}) => new ResponseLimit({ limit: d.limit, max: d.max }),
  Transport: (d = {}) =>
    new Transport({
      status: d.status,
      serverMessage: cut(d.serverMessage),
      retryAfterMillis: d.retryAfterMillis,
    }),
  Timeout: (d = {}) =>
    new Timeout({
      limit: d.limit,
      limitMillis: d.limitMillis,
      status: d.status,
      serverMessage: cut(d.serverMessage),
    }),
  RateLimited: (d = {}) =>
    new RateLimited({
      status: d.status,
      serverMessage: cut(d.serverMessage),
      retryAfterMillis: d.retryAfterMillis,
    }),
  Authentication: (d = {}) =>
    new Authentication({ status: d.status, serverMessage: cut(d.serverMessage) }),
  Config: (d = {}) => new Config({ status: d.status }),
  Attachment: (d = {}) => new Attachment({ attachment: d.attachment }),
}

/**
 * Makes an error of the given kind, with the data of that kind's reason. A server message (or a
 * server's code) longer than {@link serverMessageLimit} characters is cut. A reason can also be built with its class
 * (`new SvirError.RateLimited({...})`) and wrapped with `new SvirError.SvirError({ reason,
 * message })`; that way the server message is kept as given.
 *
 * @example
 * ```ts
 * import { SvirError } from "@svir/core"
 *
 * const error = SvirError.make("Unsupported", "tool_choice names `label`, which is not offered")
 * error.isRetryable // false
 *
 * const limited = SvirError.make("RateLimited", "slow down", { status: 429, retryAfterMillis: 2000 })
 * if (limited.reason._tag === "RateLimited") limited.reason.retryAfterMillis // 2000
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = <K extends Kind>(kind: K, message: string, details?: Details<K>): SvirError =>
  new SvirError({ reason: build[kind](details), message, cause: details?.cause })

/**
 * Whether a value is a {@link SvirError}, by its {@link TypeId} marker rather than its class: an
 * error made by another installed copy of `@svir/core` is recognised too.
 *
 * @example
 * ```ts
 * import { SvirError } from "@svir/core"
 *
 * SvirError.isSvirError(SvirError.make("Timeout", "too slow")) // true
 * SvirError.isSvirError(new Error("too slow")) // false
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isSvirError = (u: unknown): u is SvirError =>
  Predicate.hasProperty(u, TypeId) && u[TypeId] === TypeId
