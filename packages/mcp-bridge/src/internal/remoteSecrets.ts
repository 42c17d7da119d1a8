import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import { Redaction } from "@svir/core"

/**
 * A redaction whose secrets grow: an HTTP connection's are the configured header values, then
 * every token and client secret its OAuth provider hands out, as it hands them out (D17).
 */
export interface GrowingRedaction extends Redaction.Redaction {
  /** Redacts these values too, from now on. */
  readonly add: (values: ReadonlyArray<string | undefined>) => void
}

/** A redaction of `secrets`, which `add` adds to. */
export const makeGrowingRedaction = (secrets: ReadonlyArray<string>): GrowingRedaction => {
  const known = new Set(secrets)
  let redaction = Redaction.make(known)
  return {
    text: (text) => redaction.text(text),
    reveals: (text) => redaction.reveals(text),
    error: (error) => redaction.error(error),
    add: (values) => {
      const before = known.size
      for (const value of values) if (value !== undefined) known.add(value)
      // Rebuilt only when a value is new: a token is read before every request.
      if (known.size !== before) redaction = Redaction.make(known)
    },
  }
}

/**
 * The header values, and the credentials of `Authorization: <scheme> <credentials>` alone, which
 * servers echo without the scheme (DECISIONS.md D3).
 */
export const headerSecrets = (headers: Readonly<Record<string, string>>): Array<string> =>
  Object.entries(headers).flatMap(([name, value]) => {
    const credentials = /^\S+\s+(\S.*)$/.exec(value)?.[1]
    return /^(proxy-)?authorization$/i.test(name) && credentials !== undefined
      ? [value, credentials]
      : [value]
  })

interface Secrets {
  readonly access_token?: string | undefined
  readonly refresh_token?: string | undefined
  readonly id_token?: string | undefined
  readonly client_secret?: string | undefined
}

const secretsOf = (value: Secrets | undefined): ReadonlyArray<string | undefined> =>
  value === undefined
    ? []
    : [value.access_token, value.refresh_token, value.id_token, value.client_secret]

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
  const watch = <A extends Secrets | undefined>(
    read: () => A | Promise<A>,
  ): (() => A | Promise<A>) => {
    return () => {
      const value = read()
      return value instanceof Promise ? value.then(seen) : seen(value)
    }
  }
  return new Proxy(provider, {
    get: (target, property) => {
      switch (property) {
        case "tokens":
          return watch(() => target.tokens())
        case "clientInformation":
          return watch(() => target.clientInformation())
        case "saveTokens":
          return (tokens: Secrets & Parameters<OAuthClientProvider["saveTokens"]>[0]) =>
            target.saveTokens(seen(tokens))
        case "saveClientInformation": {
          const save = target.saveClientInformation
          return save === undefined
            ? undefined
            : (
                information: Parameters<
                  NonNullable<OAuthClientProvider["saveClientInformation"]>
                >[0],
              ) => save.call(target, seen(information))
        }
        default:
          return Reflect.get(target, property, target)
      }
    },
  })
}
