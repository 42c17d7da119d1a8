import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import { SvirError } from "@svir/core"
import { answerTooLargeCode } from "./bounded.js"

/** Whether the SDK rejected because the connection closed under the request. */
export const isConnectionClosed = (error: unknown): boolean =>
  error instanceof McpError && error.code === ErrorCode.ConnectionClosed

/**
 * Whether the SDK gave up waiting for an answer. Its own timeouts carry the bound that ran out in
 * `data` (`{ timeout }` for a request's timer, `{ maxTotalTimeout, totalElapsed }` for the total);
 * a server's error answer with the same code, -32001, is the server's error (DECISIONS.md D6).
 */
export const isTimeout = (error: unknown): boolean =>
  error instanceof McpError &&
  error.code === ErrorCode.RequestTimeout &&
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

/** The SDK rejects an answer that does not fit the protocol with its schema library's error. */
const isSchemaMismatch = (error: unknown): boolean =>
  error instanceof Error && Array.isArray((error as { readonly issues?: unknown }).issues)

/** A rejection of the SDK in words, whatever was thrown. */
export const describe = (error: unknown): string => {
  if (isSchemaMismatch(error)) {
    const issues = (error as { readonly issues: ReadonlyArray<SchemaIssue> }).issues
    const listed = issues.map(
      (issue) => `${(issue.path ?? []).map(String).join(".")}: ${issue.message}`,
    )
    return `the answer does not fit the MCP protocol (${listed.join("; ")})`
  }
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ""
    return `${error.message}${cause}`
  }
  return String(error)
}

/** The limit an answer too large was refused by, from the error put in its place. */
const maxMessageBytesOf = (error: unknown): number | undefined =>
  error instanceof McpError ? numberIn(error.data, "maxMessageBytes") : undefined

/** Whether the answer was refused for its size, by the transport that put an error in its place. */
const isAnswerTooLarge = (error: unknown): boolean =>
  error instanceof McpError && error.code === answerTooLargeCode

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
  if (error instanceof McpError) {
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
  if (error instanceof StreamableHTTPError) {
    const status = error.code
    const kind = status === 401 || status === 403 ? "Authentication" : "Transport"
    return SvirError.make(kind, `${doing} failed: the server answered HTTP ${status}`, {
      status,
      serverMessage: error.message,
      cause: error,
    })
  }
  if (isSchemaMismatch(error)) {
    return SvirError.make("Protocol", message, { cause: error })
  }
  return SvirError.make("Transport", message, { cause: error })
}

/**
 * Why a call got no result, as its failed result says it: a timeout of the SDK, the connection
 * closed under it (`closeReason`), or anything else the SDK rejected with.
 */
export const describeCallFailure = (name: string, error: unknown, closeReason: string): string => {
  if (isTimeout(error)) return `tool ${name} did not answer in time (${describe(error)})`
  if (isConnectionClosed(error)) return `tool ${name} got no answer: ${closeReason}`
  return `tool ${name} failed: ${describe(error)}`
}
