import { SvirError } from "@svir/core"

/** The redirects followed within one origin before the client gives up (D3). */
const maxRedirects = 5

/** Redirects that say "the same request, elsewhere"; a 303 says "GET something else". */
const followable: ReadonlySet<number> = new Set([301, 302, 307, 308])

/** What to do with a redirect: send the same request to `url`, or fail. */
export type Next =
  | { readonly _tag: "Follow"; readonly url: string }
  | { readonly _tag: "Refuse"; readonly error: SvirError.SvirError }

const refuse = (status: number, message: string): Next => ({
  _tag: "Refuse",
  error: SvirError.make("Config", message, { status }),
})

/**
 * What to do with an answer to `from` (D3): `undefined` when it is not a redirect the client
 * acts on. A redirect within the origin of `from` is followed, with the method, headers and body,
 * `maxRedirects` times at most; one to another origin is refused, naming that origin and nothing
 * more of the URL (its query can hold a token).
 */
export const next = (
  status: number,
  location: string | undefined,
  from: string,
  hops: number,
): Next | undefined => {
  if (status < 300 || status > 399 || location === undefined) return undefined
  let target: URL
  try {
    target = new URL(location, from)
  } catch {
    return refuse(status, `the server redirected (HTTP ${status}) to a location that is not a URL`)
  }
  if (target.origin !== new URL(from).origin) {
    const where = target.origin === "null" ? `a ${target.protocol} URL` : target.origin
    return refuse(
      status,
      `the server redirected (HTTP ${status}) to another origin, ${where}; the request was not sent there, since it carries the API key and the conversation: set baseUrl to that origin if it is the API`,
    )
  }
  if (!followable.has(status)) return undefined
  if (hops >= maxRedirects) {
    return refuse(status, `the server redirected more than ${maxRedirects} times (HTTP ${status})`)
  }
  target.hash = ""
  return { _tag: "Follow", url: target.href }
}
