import type { Codec } from "@svir/core"
import { SvirError } from "@svir/core"
import { Config, Duration, Effect, Option, Redacted } from "effect"

/** Where requests go when neither the options nor `OPENAI_BASE_URL` say. */
export const defaultBaseUrl = "https://api.openai.com/v1"

/** Headers the client writes itself: a caller's value would break the request or leak. */
export const reservedHeaders: ReadonlySet<string> = new Set([
  "authorization",
  "content-type",
  "content-length",
  "host",
  "transfer-encoding",
  "connection",
  "accept",
])

export interface Settings {
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly headers: Readonly<Record<string, string>>
  readonly codec: Codec.Codec
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
  readonly errorBodyMillis: number
  readonly maxResponseBytes: number
  readonly leanRetry: boolean
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
  if (url.search !== "" || url.hash !== "") {
    return Effect.fail(configError("the base URL must not have a query or a fragment"))
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

export const checkHeaders = (
  headers: Readonly<Record<string, string>>,
): Effect.Effect<Readonly<Record<string, string>>, SvirError.SvirError> => {
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
    if (typeof value !== "string" || /[\r\n\0]/.test(value)) {
      // The value is not shown: it may be a secret.
      return Effect.fail(configError(`the value of the header ${lower} has a line break or NUL`))
    }
    // fetch refuses what is not a byte; caught here, it is a Config error, not a retried Transport.
    if (/[\u0100-\uffff]/.test(value)) {
      return Effect.fail(
        configError(`the value of the header ${lower} has a character beyond U+00FF`),
      )
    }
    checked[lower] = value
  }
  return Effect.succeed(checked)
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

export const millis = (
  input: Duration.Input | undefined,
  name: string,
): Effect.Effect<number | undefined, SvirError.SvirError> => {
  if (input === undefined) return Effect.undefined
  const duration = Duration.fromInput(input)
  if (Option.isNone(duration)) {
    return Effect.fail(configError(`${name} is not a duration: ${JSON.stringify(input)}`))
  }
  const value = Duration.toMillis(duration.value)
  return Number.isNaN(value) || value < 0
    ? Effect.fail(configError(`${name} must not be negative`))
    : Effect.succeed(Number.isFinite(value) ? value : undefined)
}

/** Reads an environment setting through Effect Config; absent is `undefined`. */
export const fromConfig = <A>(
  config: Config.Config<A>,
  name: string,
): Effect.Effect<A | undefined, SvirError.SvirError> =>
  Config.option(config).pipe(
    Effect.map(Option.getOrUndefined),
    Effect.mapError(() => configError(`${name} could not be read`)),
  )
