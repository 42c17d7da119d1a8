import type { Codec } from "@svir/core"
import { Redaction, SvirError } from "@svir/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/**
 * Headers the client writes itself: a caller's value would break the request or leak. Those the
 * codec makes from the key are added to them (D24).
 */
const transportHeaders: ReadonlyArray<string> = [
  "authorization",
  "content-type",
  "content-length",
  "host",
  "transfer-encoding",
  "connection",
  "accept",
]

export interface Settings {
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly headers: Readonly<Record<string, string>>
  /** Query parameters added to every request's URL (D18). */
  readonly query: Readonly<Record<string, string>>
  /**
   * Takes the key, the header values and the query values out of every error and log line that
   * leaves the client.
   */
  readonly redaction: Redaction.Redaction
  readonly codec: Codec.Codec
  /** The codec's HTTP facts, with core's defaults for those it leaves out (D24). */
  readonly http: Codec.Http
  readonly retry: {
    readonly times: number
    readonly baseDelayMillis: number
    readonly maxDelayMillis: number
  }
  readonly timeouts: {
    readonly connect: number | undefined
    readonly firstToken: number | undefined
    readonly idle: number | undefined
    readonly total: number | undefined
  }
  readonly maxRetryAfterMillis: number
  /** How long the body of a 400, 413 or 422 is waited for: it can decide the kind (D12). */
  readonly errorBodyMillis: number
  /** How long any other error body is waited for: it only adds the server's words (D12). */
  readonly briefErrorBodyMillis: number
  readonly maxResponseBytes: number
  readonly leanRetry: boolean
  /** Whether a request that does not say asks for usage (D13). */
  readonly includeUsage: boolean
  /** The context size given to a request that gives none (D13). */
  readonly contextTokens: number | undefined
  /** Whether requests carry the caller's trace context (`traceparent`): off by default (D21). */
  readonly propagateTraceContext: boolean
}

const configError = (message: string): SvirError.SvirError => SvirError.make("Config", message)

const isLoopback = (hostname: string): boolean =>
  hostname === "localhost" ||
  hostname.endsWith(".localhost") ||
  hostname === "[::1]" ||
  /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)

/**
 * The base URL without a trailing slash, with `/v1` added when it has no path (`http://host:11434`
 * and `http://host:11434/v1/` both give `http://host:11434/v1`); a path is kept as given, for
 * servers that mount the API elsewhere.
 */
export const normalizeBaseUrl = (
  raw: string,
  allowInsecureHttp: boolean,
): Effect.Effect<string, SvirError.SvirError> => {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    return Effect.fail(configError(`the base URL ${JSON.stringify(raw)} is not a URL`))
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Effect.fail(
      configError(`the base URL must use http or https, not ${url.protocol.slice(0, -1)}`),
    )
  }
  if (url.username !== "" || url.password !== "") {
    return Effect.fail(
      configError("the base URL carries credentials: pass the API key as `apiKey` instead"),
    )
  }
  // An empty query or fragment (a trailing `?` or `#`) is one too; the URL parser drops it.
  // D19: a query goes in the `query` option, whose values are kept out of errors. Its names are
  // shown, never its values, which can hold a key.
  if (url.search !== "" || /\?/.test(raw.split("#")[0]!)) {
    const names: Array<string> = []
    url.searchParams.forEach((_value, name) => {
      if (!names.includes(JSON.stringify(name))) names.push(JSON.stringify(name))
    })
    return Effect.fail(
      configError(
        `the base URL must not have a query: give its parameters as the \`query\` option${names.length === 0 ? "" : ` (${names.join(", ")})`}`,
      ),
    )
  }
  if (url.hash !== "" || raw.includes("#")) {
    return Effect.fail(configError("the base URL must not have a fragment"))
  }
  if (url.protocol === "http:" && !allowInsecureHttp && !isLoopback(url.hostname)) {
    return Effect.fail(
      configError(
        `plain http to ${url.hostname} would send the API key and the conversation unencrypted: use https, or set allowInsecureHttp`,
      ),
    )
  }
  const path = url.pathname.replace(/\/+$/, "")
  return Effect.succeed(`${url.origin}${path === "" ? "/v1" : path}`)
}

const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** A control character other than a tab: below a space, or DEL. */
const hasControl = (value: string): boolean => {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true
  }
  return false
}

const isAscii = (value: string): boolean => {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0x7f) return false
  return true
}

export const checkHeaders = (
  headers: Readonly<Record<string, string>>,
  http: Codec.Http,
): Effect.Effect<Readonly<Record<string, string>>, SvirError.SvirError> => {
  // A placeholder key: only the names of the headers the codec makes from one are wanted.
  const reservedHeaders = new Set([
    ...transportHeaders,
    ...Object.keys(http.headers("key")).map((name) => name.toLowerCase()),
  ])
  const checked: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase()
    if (!headerName.test(name)) {
      return Effect.fail(configError(`${JSON.stringify(name)} is not a valid header name`))
    }
    if (reservedHeaders.has(lower)) {
      return Effect.fail(
        configError(
          `the header ${lower} is set by the client and cannot be given as an extra header`,
        ),
      )
    }
    // The value is not shown: it may be a secret. A line break would end the header and start
    // another; any other control character but a tab, or a character beyond ASCII, is read
    // differently by different servers (D15).
    if (typeof value !== "string" || hasControl(value)) {
      return Effect.fail(
        configError(`the value of the header ${lower} has a line break or a control character`),
      )
    }
    if (!isAscii(value)) {
      return Effect.fail(configError(`the value of the header ${lower} is not ASCII`))
    }
    checked[lower] = value
  }
  return Effect.succeed(checked)
}

/**
 * D18: the query parameters, each name not empty and each name and value a string that can be
 * written in a URL (a lone surrogate cannot). The value is never shown: it may be a key.
 */
export const checkQuery = (
  query: Readonly<Record<string, string>>,
): Effect.Effect<Readonly<Record<string, string>>, SvirError.SvirError> => {
  for (const [name, value] of Object.entries(query)) {
    if (name === "" || !inUrl(name)) {
      return Effect.fail(configError(`${JSON.stringify(name)} is not a valid query parameter name`))
    }
    if (typeof value !== "string" || !inUrl(value)) {
      return Effect.fail(
        configError(
          `the value of the query parameter ${JSON.stringify(name)} is not text a URL can carry`,
        ),
      )
    }
  }
  return Effect.succeed({ ...query })
}

/** Whether a text can be percent-encoded: one with a lone surrogate cannot. */
const inUrl = (text: string): boolean => {
  try {
    encodeURIComponent(text)
    return true
  } catch {
    return false
  }
}

/** D18: the query as it ends every URL, percent-encoded (`?a=1&b=2`), or `""` for none. */
export const queryString = (query: Readonly<Record<string, string>>): string => {
  const pairs = Object.entries(query).map(
    ([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
  )
  return pairs.length === 0 ? "" : `?${pairs.join("&")}`
}

export const checkApiKey = (
  key: Redacted.Redacted<string>,
): Effect.Effect<Redacted.Redacted<string>, SvirError.SvirError> => {
  const value = Redacted.value(key)
  if (value.trim() === "") return Effect.fail(configError("the API key is empty"))
  if (/[^\x21-\x7e]/.test(value)) {
    return Effect.fail(
      configError("the API key has whitespace, control or non-ASCII characters in it"),
    )
  }
  return Effect.succeed(key)
}

/** An option as the user wrote it, for a message: a string quoted, anything else as printed. */
const shown = (input: Duration.Input): string =>
  typeof input === "string" ? JSON.stringify(input) : String(input)

/** Milliseconds, or `undefined` when the input is not a duration; NaN is not one. */
const toMillis = (input: Duration.Input): number | undefined => {
  // Effect reads the number NaN as a zero duration: a NaN that slipped into an option would
  // otherwise become a timeout that fires at once.
  if (typeof input === "number" && Number.isNaN(input)) return undefined
  const duration = Duration.fromInput(input)
  if (Option.isNone(duration)) return undefined
  const millis = Duration.toMillis(duration.value)
  return Number.isNaN(millis) ? undefined : millis
}

/**
 * A wait (a retry delay, the cap on `Retry-After`, the error-body deadline) in milliseconds:
 * finite and not negative (D5).
 */
export const waitMillis = (
  input: Duration.Input | undefined,
  name: string,
): Effect.Effect<number | undefined, SvirError.SvirError> => {
  if (input === undefined) return Effect.undefined
  const millis = toMillis(input)
  return millis === undefined || !Number.isFinite(millis) || millis < 0
    ? Effect.fail(
        configError(`${name} must be a finite duration of 0 or more, not ${shown(input)}`),
      )
    : Effect.succeed(millis)
}

/** A time limit in milliseconds: more than 0, or `Infinity` for none, given as `undefined` (D5). */
export const limitMillis = (
  input: Duration.Input,
  name: string,
): Effect.Effect<number | undefined, SvirError.SvirError> => {
  const millis = toMillis(input)
  if (millis === Number.POSITIVE_INFINITY) return Effect.undefined
  return millis === undefined || !(millis > 0)
    ? Effect.fail(
        configError(
          `${name} must be a duration of more than 0, or Infinity for no limit, not ${shown(input)}`,
        ),
      )
    : Effect.succeed(millis)
}

/** A count: a whole number of at least `least`. */
export const count = (
  input: number,
  least: number,
  name: string,
): Effect.Effect<number, SvirError.SvirError> =>
  Number.isSafeInteger(input) && input >= least
    ? Effect.succeed(input)
    : Effect.fail(configError(`${name} must be a whole number of ${least} or more, not ${input}`))

/**
 * The redaction of everything the client sends that is a secret: the key (in the headers the
 * codec makes of it, such as `Authorization: Bearer <key>`, which servers echo with or without
 * the scheme), and every
 * configured header and query value, since users put keys, tokens and cookies in `headers` and
 * keys in the query (Azure's `api-key`, D18). The client sends each of them as it is, or
 * percent-encoded in the URL, and `Redaction` reads every escaped form of a value (a character
 * beyond ASCII as its UTF-8 `%XX` too), so the values alone are its secrets.
 */
export const redactionOf = (
  apiKey: Redacted.Redacted<string> | undefined,
  headers: Readonly<Record<string, string>>,
  query: Readonly<Record<string, string>>,
): Redaction.Redaction =>
  Redaction.make([
    ...(apiKey === undefined ? [] : [Redacted.value(apiKey)]),
    ...Object.values(headers),
    ...Object.values(query),
  ])
