import type { FetchLike } from "@modelcontextprotocol/client"
import type { Redaction } from "@svir/core"

/**
 * A fetch whose answers that the SDK may quote carry no secret of `redaction` (D49): the body of
 * every HTTP error, and the body of a token endpoint's 200 that is an OAuth error (`"error"` in
 * it), which the SDK reads as a refusal too. SDK 2.x's `auth` writes a refusal's words to
 * `console.warn`, where no redaction of the bridge's reaches; a token endpoint that quotes the
 * client's credentials would put them there. The body is redacted as it is read, whole, once it
 * has ended: `fetch` bounds it first (D2). Any other answer, a token endpoint's tokens among them,
 * is passed on as it came.
 */
export const redactedFetch =
  (redaction: Redaction.Redaction, baseFetch: FetchLike): FetchLike =>
  async (url, init) => {
    const response = await baseFetch(url, init)
    if (response.body === null) return response
    const refusal = response.status >= 400
    if (!refusal && !isTokenRequest(init)) return response
    return new Response(response.body.pipeThrough(redactedBody(redaction, refusal)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }

/**
 * A request to an OAuth token endpoint: its body is a form (RFC 6749 3.2), which no MCP request
 * is. The SDK sends it as `URLSearchParams`.
 */
const isTokenRequest = (init: RequestInit | undefined): boolean =>
  init?.body instanceof URLSearchParams ||
  /application\/x-www-form-urlencoded/i.test(new Headers(init?.headers).get("content-type") ?? "")

/** Whether a token endpoint's answer is an OAuth error, which the SDK then reads whole. */
const isOAuthError = (text: string): boolean => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && "error" in value
  } catch {
    return false
  }
}

/**
 * The body, held until it ends, then given on redacted when it is a refusal or reads as an OAuth
 * error, and as it came otherwise.
 */
const redactedBody = (
  redaction: Redaction.Redaction,
  refusal: boolean,
): TransformStream<Uint8Array, Uint8Array> => {
  const parts: Array<Uint8Array> = []
  return new TransformStream({
    transform: (chunk) => {
      parts.push(chunk)
    },
    flush: (controller) => {
      const bytes = Buffer.concat(parts)
      const text = bytes.toString("utf8")
      if (refusal || isOAuthError(text)) controller.enqueue(Buffer.from(redaction.text(text)))
      else controller.enqueue(bytes)
    },
  })
}
