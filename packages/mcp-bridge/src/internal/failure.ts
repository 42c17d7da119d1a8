import {
  AuthorizationServerMismatchError,
  IssuerMismatchError,
  OAuthError,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SseError,
  UnauthorizedError,
} from "@modelcontextprotocol/client"
import { SvirError, type ToolResult } from "@svir/core"
import { answerTooLargeCode } from "./bounded.js"

/** Whether the SDK rejected because the connection closed under the request. */
const isConnectionClosed = (error: unknown): boolean =>
  error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed

/**
 * Whether the SDK gave up waiting for an answer. Its own timeouts carry the bound that ran out in
 * `data` (`{ timeout }` for a request's timer, `{ maxTotalTimeout, totalElapsed }` for the total);
 * a server's error answer with -32001, the code SDK 1.x gave its own timeouts, is the server's
 * error (DECISIONS.md D6), and so is an abort that the SDK words as a timeout without a bound.
 */
export const isTimeout = (error: unknown): boolean =>
  error instanceof SdkError &&
  error.code === SdkErrorCode.RequestTimeout &&
  (numberIn(error.data, "timeout") !== undefined ||
    numberIn(error.data, "maxTotalTimeout") !== undefined)

/** The number under `key` of an error's data, if there is one. */
const numberIn = (data: unknown, key: string): number | undefined => {
  const value: unknown =
    typeof data === "object" && data !== null
      ? (data as { readonly [key: string]: unknown })[key]
      : undefined
  return typeof value === "number" ? value : undefined
}

interface SchemaIssue {
  readonly path?: ReadonlyArray<PropertyKey>
  readonly message: string
}

/**
 * The SDK rejects an answer that does not fit the protocol with `InvalidResult`, its words after
 * the method; a schema library's error, with its issues, may come from a caller's transport.
 */
const isSchemaMismatch = (error: unknown): boolean =>
  (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) ||
  (error instanceof Error && Array.isArray((error as { readonly issues?: unknown }).issues))

/** A rejection of the SDK in words, whatever was thrown. */
export const describe = (error: unknown): string => {
  if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
    return `the answer does not fit the MCP protocol (${error.message})`
  }
  if (isSchemaMismatch(error)) {
    const issues = (error as { readonly issues: ReadonlyArray<SchemaIssue> }).issues
    const listed = issues.map(
      (issue) => `${(issue.path ?? []).map(String).join(".")}: ${issue.message}`,
    )
    return `the answer does not fit the MCP protocol (${listed.join("; ")})`
  }
  // The server's error answer, in the words SDK 1.x gave it: the code, then the server's message.
  if (error instanceof ProtocolError) return `MCP error ${error.code}: ${error.message}`
  // Negotiating the era is the first request of a connection: what made it fail is what happened.
  if (
    error instanceof SdkError &&
    error.code === SdkErrorCode.EraNegotiationFailed &&
    error.cause instanceof Error
  ) {
    return describe(error.cause)
  }
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ""
    return `${error.message}${cause}`
  }
  return String(error)
}

/** The limit an answer too large was refused by, from the error put in its place. */
const maxMessageBytesOf = (error: unknown): number | undefined =>
  error instanceof ProtocolError ? numberIn(error.data, "maxMessageBytes") : undefined

/** Whether the answer was refused for its size, by the transport that put an error in its place. */
const isAnswerTooLarge = (error: unknown): boolean =>
  error instanceof ProtocolError && error.code === answerTooLargeCode

/**
 * A rejection of the SDK as a typed error: a timeout, a closed connection or an HTTP failure
 * (by its status), an answer too large to read, an error answer of the server, or an answer that
 * does not fit the protocol.
 */
export const toSvirError = (doing: string, error: unknown): SvirError.SvirError => {
  const message = `${doing} failed: ${describe(error)}`
  if (isTimeout(error)) return SvirError.make("Timeout", message, { cause: error })
  if (isConnectionClosed(error)) return SvirError.make("Transport", message, { cause: error })
  if (isAnswerTooLarge(error)) {
    return SvirError.make("ResponseLimit", message, {
      limit: "maxMessageBytes",
      max: maxMessageBytesOf(error),
      cause: error,
    })
  }
  // The server's own words go in `serverMessage` only: a message gets logged, and those words can
  // quote the request (D5).
  if (error instanceof ProtocolError) {
    return SvirError.make(
      "Server",
      `${doing} failed: the server answered with error ${error.code}`,
      {
        serverMessage: error.message,
        code: error.code,
        cause: error,
      },
    )
  }
  if (error instanceof UnauthorizedError) {
    return SvirError.make("Authentication", `${doing} failed: ${authorizationPending}`, {
      status: 401,
      cause: error,
    })
  }
  // An authorization server that is not the one its metadata or the redirect names, or not the
  // one a credential is bound to: refused before anything is sent to it (D52). The issuer it
  // claimed is the attacker's words, kept in the cause only.
  if (error instanceof IssuerMismatchError || error instanceof AuthorizationServerMismatchError) {
    const which =
      error instanceof IssuerMismatchError
        ? `the ${error.kind === "metadata" ? "metadata's" : "redirect's"} issuer is not the authorization server's`
        : "the authorization server is not the one the credentials are bound to"
    return SvirError.make("Authentication", `${doing} failed: ${which}`, { cause: error })
  }
  // What the authorization server said, in place of tokens (D17).
  if (error instanceof OAuthError) {
    return SvirError.make(
      "Authentication",
      `${doing} failed: the authorization server answered ${error.code}`,
      { serverMessage: error.message, cause: error },
    )
  }
  const status = httpStatusOf(error)
  if (status !== undefined) {
    const kind = status === 401 || status === 403 ? "Authentication" : "Transport"
    return SvirError.make(kind, `${doing} failed: the server answered HTTP ${status}`, {
      status,
      serverMessage: httpServerMessage(error),
      cause: error,
    })
  }
  if (isSchemaMismatch(error)) {
    return SvirError.make("Protocol", message, { cause: error })
  }
  return SvirError.make("Transport", message, { cause: error })
}

/**
 * Why a call failed, for code (`ToolResult.failure`): a timeout; the server's "invalid params"
 * (-32602), which is what real servers answer for arguments their schema refuses; otherwise the
 * server refused the call or could not answer it.
 */
export const callFailureOf = (error: unknown): ToolResult.Failure =>
  isTimeout(error)
    ? "timed_out"
    : error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams
      ? "invalid_arguments"
      : "server_refused"

/**
 * Why a call got no result, as its failed result says it: a timeout of the SDK, a refusal of the
 * authorization server, the connection closed under it (`closeReason`), or anything else the SDK
 * rejected with.
 */
export const describeCallFailure = (name: string, error: unknown, closeReason: string): string => {
  if (isTimeout(error)) return `tool ${name} did not answer in time (${describe(error)})`
  if (error instanceof OAuthError) {
    return `tool ${name} failed: the authorization server answered ${error.code} (${error.message})`
  }
  if (isConnectionClosed(error)) return `tool ${name} got no answer: ${closeReason}`
  return `tool ${name} failed: ${describe(error)}`
}

/**
 * The SDK's `UnauthorizedError` once its flow has sent the provider to the authorization page
 * (`redirectToAuthorization`), or found it could not go on: a person must finish (D17).
 */
const authorizationPending =
  "the server wants authorization that the authProvider does not have yet; once the user has " +
  "authorized, pass the code to the SDK's auth(provider, { serverUrl, authorizationCode }) and " +
  "connect again"

/**
 * The HTTP status a transport of the SDK failed with: an `SdkHttpError`'s (Streamable HTTP), an
 * `SseError`'s code, or the status the legacy SSE transport writes into the message of a failed
 * POST (`Error POSTing to endpoint (HTTP 404): ...`, SDK 2.4 `SSEClientTransport.send`).
 */
export const httpStatusOf = (error: unknown): number | undefined => {
  if (error instanceof SdkHttpError) return error.status
  if (error instanceof SseError) return typeof error.code === "number" ? error.code : undefined
  if (!(error instanceof Error)) return undefined
  const legacy = /^Error POSTing to endpoint \(HTTP (\d{3})\)/.exec(error.message)
  return legacy === null ? undefined : Number(legacy[1])
}

/**
 * What an HTTP failure says, the body of the server's answer included: the SDK keeps it apart
 * (`data.text`) when its own words stand in the message, as for a refused negotiation.
 */
const httpServerMessage = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  const body = error instanceof SdkHttpError ? error.data.text : undefined
  return typeof body === "string" && body !== "" && !message.includes(body)
    ? `${message}: ${body}`
    : message
}

/** The codes of a failure to open a connection: nothing of the request was sent (D13). */
const connectFailures = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
])

/**
 * Why a request failed before it was sent, when fetch could not open a connection to the server
 * (its `TypeError` with the socket's error as cause); undefined for any other failure, which may
 * have come after the server read the request (D13).
 */
export const unreachableReason = (error: unknown): string | undefined => {
  if (!(error instanceof TypeError)) return undefined
  const code = (error.cause as { readonly code?: unknown } | undefined)?.code
  return typeof code === "string" && connectFailures.has(code)
    ? `the server can no longer be reached (${describe(error)})`
    : undefined
}

/**
 * Why the server refused a request of a session, when its status says the session is gone: 404,
 * which the spec gives a session the server has ended, and 400, which servers that forgot a
 * session answer (D12). Undefined for any other status.
 */
export const sessionGoneReason = (status: number | undefined): string | undefined =>
  status === 404
    ? "the server answered HTTP 404: it no longer knows the session"
    : status === 400
      ? "the server answered HTTP 400 to a request of the session, as servers that forgot a session do"
      : undefined

/**
 * Why calls in flight can no longer be answered, from the failure of a ping: what the server
 * answered, when it answered, or that it could not be reached.
 */
export const lossReason = (error: unknown): string => {
  const status = httpStatusOf(error)
  if (status === undefined) return `the server can no longer be reached (${describe(error)})`
  return sessionGoneReason(status) ?? `the server answered HTTP ${status}`
}

/**
 * Whether the SDK refused a request because the Client has no transport, or because the stdio
 * server's input is closed.
 */
export const isNotConnected = (error: unknown): boolean =>
  (error instanceof SdkError && error.code === SdkErrorCode.NotConnected) ||
  (error instanceof Error && error.message === "Not connected")

/** The Timeout error of connecting (`doing`) that took longer than its bound. */
export const connectTookTooLong = (doing: string, limitMillis: number): SvirError.SvirError =>
  SvirError.make("Timeout", `${doing} took longer than ${limitMillis} ms`, {
    limit: "connect",
    limitMillis,
  })
