/**
 * The one error type of svir's transport and protocol failures.
 *
 * @since 0.1.0
 */
import { Data } from "effect"

/**
 * What went wrong, as a tag. Match with `Effect.catchReason("SvirError", "RateLimited", ...)`.
 *
 * @since 0.1.0
 * @category models
 */
export type Kind =
  | "Unsupported"
  | "TruncatedStream"
  | "Protocol"
  | "Server"
  | "ContextOverflow"
  | "ContentFilter"
  | "ResponseLimit"
  | "Transport"
  | "Timeout"
  | "RateLimited"
  | "Authentication"
  | "Config"

/**
 * The reason of a {@link SvirError}: a union of tagged values, one per {@link Kind}.
 *
 * @since 0.1.0
 * @category models
 */
export type Reason = { readonly [K in Kind]: { readonly _tag: K } }[Kind]

/**
 * Every kind, in a fixed order.
 *
 * @since 0.1.0
 * @category models
 */
export const kinds: ReadonlyArray<Kind> = [
  "Unsupported",
  "TruncatedStream",
  "Protocol",
  "Server",
  "ContextOverflow",
  "ContentFilter",
  "ResponseLimit",
  "Transport",
  "Timeout",
  "RateLimited",
  "Authentication",
  "Config",
]

const retryable: ReadonlySet<Kind> = new Set([
  "Transport",
  "Timeout",
  "RateLimited",
  "TruncatedStream",
])

/**
 * The most characters of a server's own message kept in an error.
 *
 * @since 0.1.0
 * @category models
 */
export const serverMessageLimit = 4096

/**
 * A transport or protocol failure. `reason` says what kind; `message` says what happened in
 * words; `status` is the HTTP status where there was one; `serverMessage` is the server's own
 * words, cut at {@link serverMessageLimit} characters.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SvirError } from "@svir/core"
 *
 * const failed = Effect.fail(SvirError.make("RateLimited", "slow down", { retryAfterMillis: 2000 }))
 * const handled = failed.pipe(
 *   Effect.catchReason("SvirError", "RateLimited", () => Effect.succeed("waited")),
 * )
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class SvirError extends Data.TaggedError("SvirError")<{
  readonly reason: Reason
  readonly message: string
  readonly status?: number | undefined
  readonly serverMessage?: string | undefined
  readonly retryAfterMillis?: number | undefined
  readonly cause?: unknown
}> {
  /** The kind of failure, the same as `reason._tag`. */
  get kind(): Kind {
    return this.reason._tag
  }

  /** Whether sending the same request again can help. */
  get isRetryable(): boolean {
    return retryable.has(this.reason._tag)
  }
}

/**
 * Options of {@link make}.
 *
 * @since 0.1.0
 * @category models
 */
export interface Details {
  readonly status?: number | undefined
  readonly serverMessage?: string | undefined
  readonly retryAfterMillis?: number | undefined
  readonly cause?: unknown
}

/**
 * Makes an error of the given kind. A server message longer than {@link serverMessageLimit}
 * characters is cut.
 *
 * @example
 * ```ts
 * import { SvirError } from "@svir/core"
 *
 * const error = SvirError.make("Unsupported", "tool_choice names `label`, which is not offered")
 * error.isRetryable // false
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (kind: Kind, message: string, details: Details = {}): SvirError => {
  const serverMessage =
    details.serverMessage === undefined ? undefined : cut(details.serverMessage, serverMessageLimit)
  return new SvirError({
    reason: { _tag: kind } as Reason,
    message,
    status: details.status,
    serverMessage,
    retryAfterMillis: details.retryAfterMillis,
    cause: details.cause,
  })
}

/**
 * Whether a value is a {@link SvirError}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isSvirError = (u: unknown): u is SvirError => u instanceof SvirError

const cut = (text: string, limit: number): string =>
  text.length <= limit ? text : `${text.slice(0, limit)}…`
