import type { AddClientAuthentication, OAuthClientProvider } from "@modelcontextprotocol/client"
import { Redaction } from "@svir/core"
import * as Base64 from "effect/encoding/Base64"
import * as Result from "effect/Result"

/**
 * A redaction whose secrets grow: an HTTP connection's are the configured header values, then
 * every token and client secret its OAuth provider hands out, as it hands them out (D17).
 */
export interface GrowingRedaction extends Redaction.Redaction {
  /** Redacts these values too, from now on. */
  readonly add: (values: ReadonlyArray<string | undefined>) => void
  /**
   * Redacts these values too, while they are among the latest {@link recentKept}: values made
   * anew for every request, such as DPoP proofs, which would otherwise pile up for the life of
   * the connection and make every redaction slower (D52).
   */
  readonly addRecent: (values: ReadonlyArray<string>) => void
}

/**
 * How many values given to `addRecent` stay redacted: the proofs of the latest 128 requests,
 * which covers every answer still being read at the bridge's usual concurrency.
 */
export const recentKept = 256

/** A redaction of `secrets`, which `add` adds to for good and `addRecent` for a while. */
export const makeGrowingRedaction = (secrets: ReadonlyArray<string>): GrowingRedaction => {
  const known = new Set(secrets)
  let lasting = Redaction.make(known)
  const recent: Array<string> = []
  let passing = Redaction.none
  return {
    text: (text) => passing.text(lasting.text(text)),
    reveals: (text) => lasting.reveals(text) || passing.reveals(text),
    error: (error) => passing.error(lasting.error(error)),
    add: (values) => {
      const before = known.size
      for (const value of values) if (value !== undefined) known.add(value)
      // Rebuilt only when a value is new: a token is read before every request.
      if (known.size !== before) lasting = Redaction.make(known)
    },
    addRecent: (values) => {
      if (values.length === 0) return
      recent.push(...values)
      if (recent.length > recentKept) recent.splice(0, recent.length - recentKept)
      passing = Redaction.make(recent)
    },
  }
}

/**
 * The header values, and the credentials of `Authorization: <scheme> <credentials>` alone, which
 * servers echo without the scheme (DECISIONS.md D3); of `Basic` credentials, the secret they
 * encode too, which a server may echo decoded.
 */
export const headerSecrets = (headers: Readonly<Record<string, string>>): Array<string> =>
  Object.entries(headers).flatMap(([name, value]) => {
    const [, scheme, credentials] = /^(\S+)\s+(\S.*)$/.exec(value) ?? []
    if (!/^(proxy-)?authorization$/i.test(name) || credentials === undefined) return [value]
    return /^basic$/i.test(scheme!)
      ? [value, credentials, ...basicSecrets(credentials)]
      : [value, credentials]
  })

/**
 * The secret in `base64(id:secret)`, as it is and form-decoded: RFC 6749 2.3.1 form-encodes it
 * before joining, and a server may echo it decoded.
 */
const basicSecrets = (credentials: string): ReadonlyArray<string> => {
  const decoded = Result.getOrUndefined(Base64.decodeString(credentials))
  const colon = decoded?.indexOf(":") ?? -1
  if (decoded === undefined || colon < 0) return []
  const secret = decoded.slice(colon + 1)
  return [secret, formDecoded(secret)]
}

/** A value as it was before form-encoding (`+` for a space), or as it is if it was not. */
const formDecoded = (text: string): string => {
  try {
    return decodeURIComponent(text.replaceAll("+", " "))
  } catch {
    return text
  }
}

/** The arguments after the first. */
type Tail<Args extends ReadonlyArray<unknown>> = Args extends readonly [unknown, ...infer Rest]
  ? Rest
  : []

interface Secrets {
  readonly access_token?: string | undefined
  readonly refresh_token?: string | undefined
  readonly id_token?: string | undefined
  readonly client_id?: string | undefined
  readonly client_secret?: string | undefined
}

/**
 * The tokens, and the client secret in every form the SDK sends it: form-encoded in the body
 * (`client_secret_post`), which `Redaction` reads as it reads any `%XX`, and in
 * `Authorization: Basic base64(id:secret)` (`client_secret_basic`), whose echo holds no part of
 * the secret as it is.
 */
const secretsOf = (value: Secrets | undefined): ReadonlyArray<string | undefined> => {
  if (value === undefined) return []
  const { client_id, client_secret } = value
  const basic =
    client_id === undefined || client_secret === undefined
      ? []
      : Redaction.basicCredentials(client_id, client_secret)
  return [value.access_token, value.refresh_token, value.id_token, client_secret, ...basic]
}

/**
 * A provider's own client authentication, after which what it added to the token request is
 * redacted too: an `Authorization` header (`Basic`, or any scheme), a `client_secret`, or the
 * signed `client_assertion` of `private_key_jwt`, which stands for the client while it lasts.
 */
const watchedAuthentication =
  (add: AddClientAuthentication, target: OAuthClientProvider, redaction: GrowingRedaction) =>
  async (...args: Parameters<AddClientAuthentication>): Promise<void> => {
    const [headers, params] = args
    await add.apply(target, args)
    const authorization = headers.get("authorization")
    redaction.add([
      ...(authorization === null ? [] : headerSecrets({ authorization })),
      params.get("client_secret") ?? undefined,
      params.get("client_assertion") ?? undefined,
    ])
  }

/**
 * The provider as the SDK is given it: whatever tokens and client information it gives or is
 * given pass through `redaction` first. A Proxy, so that the provider's optional methods stay
 * present or absent as they are, which the SDK's flow reads.
 */
export const watchedProvider = (
  provider: OAuthClientProvider,
  redaction: GrowingRedaction,
): OAuthClientProvider => {
  const seen = <A extends Secrets | undefined>(value: A): A => {
    redaction.add(secretsOf(value))
    return value
  }
  // The SDK passes the issuer it resolved (`ctx`), by which a provider keeps each authorization
  // server's credentials apart (D52): every argument goes through.
  const watch = <Args extends ReadonlyArray<unknown>, A extends Secrets | undefined>(
    read: (...args: Args) => A | Promise<A>,
  ): ((...args: Args) => A | Promise<A>) => {
    return (...args) => {
      const value = read(...args)
      return value instanceof Promise ? value.then(seen) : seen(value)
    }
  }
  return new Proxy(provider, {
    get: (target, property) => {
      switch (property) {
        case "tokens":
          return watch((...args: Parameters<OAuthClientProvider["tokens"]>) =>
            target.tokens(...args),
          )
        case "clientInformation":
          return watch((...args: Parameters<OAuthClientProvider["clientInformation"]>) =>
            target.clientInformation(...args),
          )
        case "addClientAuthentication": {
          const add = target.addClientAuthentication
          return add === undefined ? undefined : watchedAuthentication(add, target, redaction)
        }
        case "saveTokens":
          return (
            tokens: Secrets & Parameters<OAuthClientProvider["saveTokens"]>[0],
            ...context: Tail<Parameters<OAuthClientProvider["saveTokens"]>>
          ) => target.saveTokens(seen(tokens), ...context)
        case "saveClientInformation": {
          const save = target.saveClientInformation
          return save === undefined
            ? undefined
            : (
                information: Parameters<
                  NonNullable<OAuthClientProvider["saveClientInformation"]>
                >[0],
                ...context: Tail<
                  Parameters<NonNullable<OAuthClientProvider["saveClientInformation"]>>
                >
              ) => save.call(target, seen(information), ...context)
        }
        default:
          return Reflect.get(target, property, target)
      }
    },
  })
}

/**
 * The DPoP proof of a request (RFC 9449 4.2), which the SDK's `withDpop` and its token request
 * put in the `DPoP` header: a JWT that stands for the client at that URL while it lasts. Its
 * signature alone is redacted too, which a server may quote without the rest (D52). The key that
 * signs it never leaves the SDK's `DpopSession` (non-extractable by default), so the proof is all
 * of it a request carries.
 */
export const dpopSecrets = (proof: string | null): ReadonlyArray<string> => {
  if (proof === null) return []
  const signature = proof.split(".")[2]
  return signature === undefined || signature === "" ? [proof] : [proof, signature]
}
