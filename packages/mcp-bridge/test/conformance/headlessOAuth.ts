/**
 * An OAuth client of the MCP SDK that completes the authorization redirect without a browser, as
 * the conformance suite's own example clients do (`ConformanceOAuthProvider`): it asks the
 * authorization endpoint for the redirect itself and reads the code from its `Location`. Only for
 * the suite's authorization servers, which redirect at once without asking anyone. It does what
 * the MCP SDK 1.x leaves to the provider (D46): it registers with `application_type` (SEP-837),
 * refuses authorization server metadata whose `issuer` is not the server it was asked of, checks
 * the redirect's `iss` against that issuer (RFC 9207, SEP-2468), and keeps what it registered
 * with one authorization server from any other (SEP-2352).
 */
import { randomUUID } from "node:crypto"
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client"

/** Where the suite's authorization servers send the code; nothing listens there. */
const redirectUrl = "http://localhost:3000/callback"

/** Credentials the suite hands a client in `MCP_CONFORMANCE_CONTEXT` (auth/pre-registration). */
export interface PreRegistered {
  readonly client_id: string
  readonly client_secret: string
}

/**
 * What the authorization endpoint's redirect gave, as the SDK's `auth` takes it: the code, and
 * the issuer if the redirect named one.
 */
export interface AuthorizationRedirect {
  readonly authorizationCode: string
  readonly iss?: string
}

export interface HeadlessOAuthOptions {
  readonly clientName: string
  /** A URL-based client id (SEP-991), used when the authorization server supports it. */
  readonly clientMetadataUrl?: string | undefined
  readonly preRegistered?: PreRegistered | undefined
}

/** Keeps what the SDK's `auth` saves in memory, and gets the code by following no redirect. */
export class HeadlessOAuthProvider implements OAuthClientProvider {
  readonly clientMetadata: OAuthClientMetadata
  readonly clientMetadataUrl?: string
  /** What each authorization server registered, by its URL: never shown to another (SEP-2352). */
  private readonly clients = new Map<string, OAuthClientInformationMixed>()
  private readonly preRegistered: OAuthClientInformationMixed | undefined
  private savedTokens: OAuthTokens | undefined
  private verifier: string | undefined
  private expectedState: string | undefined
  private redirect: AuthorizationRedirect | undefined
  private discovery: OAuthDiscoveryState | undefined

  constructor(options: HeadlessOAuthOptions) {
    // A loopback redirect is a native application's (SEP-837).
    this.clientMetadata = {
      client_name: options.clientName,
      redirect_uris: [redirectUrl],
      ...{ application_type: "native" },
    }
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl
    this.preRegistered =
      options.preRegistered === undefined
        ? undefined
        : { ...options.preRegistered, redirect_uris: [redirectUrl] }
  }

  get redirectUrl(): string {
    return redirectUrl
  }

  state(): string {
    this.expectedState = randomUUID()
    return this.expectedState
  }

  /** The authorization server the SDK's flow is talking to now. */
  private get server(): string {
    return this.discovery?.authorizationServerUrl ?? ""
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.clients.get(this.server) ?? this.preRegistered
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.clients.set(this.server, client)
  }

  tokens(): OAuthTokens | undefined {
    return this.savedTokens
  }

  // The discovery served the flow that got these tokens. A later refusal is discovered afresh:
  // the protected resource may name another authorization server by then (SEP-2352).
  saveTokens(tokens: OAuthTokens): void {
    this.savedTokens = tokens
    this.discovery = undefined
  }

  // Kept so that exchanging the code finds the metadata where the first discovery found it, which
  // may be a place only the server's WWW-Authenticate named (auth/metadata-var3).
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    const issuer = state.authorizationServerMetadata?.issuer
    // RFC 8414 section 3.3: the metadata's issuer is the URL the metadata was asked of.
    if (issuer !== undefined && !sameIssuer(issuer, state.authorizationServerUrl)) {
      throw new Error(
        `the authorization server metadata names the issuer ${issuer}, not ${state.authorizationServerUrl}, where it was found`,
      )
    }
    this.discovery = state
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error("no PKCE code verifier was saved")
    return this.verifier
  }

  /** Asks for the authorization and keeps the code of the redirect it answers with. */
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.redirect = undefined
    const response = await fetch(authorizationUrl, { redirect: "manual" })
    await response.body?.cancel()
    const location = response.headers.get("location")
    if (location === null) {
      throw new Error(`the authorization endpoint answered ${response.status} without a redirect`)
    }
    const back = new URL(location)
    if (back.searchParams.get("state") !== (this.expectedState ?? null)) {
      throw new Error("the authorization redirect carries a state this client did not send")
    }
    const iss = back.searchParams.get("iss")
    this.checkIssuer(iss)
    const code = back.searchParams.get("code")
    if (code === null) {
      throw new Error(`the authorization redirect has no code: ${back.searchParams.toString()}`)
    }
    this.redirect = iss === null ? { authorizationCode: code } : { authorizationCode: code, iss }
  }

  /**
   * RFC 9207: an `iss` in the redirect must be the issuer of the metadata, compared as strings;
   * none is refused only when the metadata says the server sends it.
   */
  private checkIssuer(iss: string | null): void {
    const metadata = this.discovery?.authorizationServerMetadata
    if (iss === null) {
      const advertised =
        metadata !== undefined &&
        "authorization_response_iss_parameter_supported" in metadata &&
        metadata.authorization_response_iss_parameter_supported === true
      if (advertised) {
        throw new Error("the authorization redirect has no iss, which its server says it sends")
      }
      return
    }
    if (metadata === undefined || iss !== metadata.issuer) {
      throw new Error(
        `the authorization redirect names the issuer ${iss}, not ${metadata?.issuer ?? "the one discovered"}`,
      )
    }
  }

  /**
   * The code of a redirect not exchanged yet, once, with the redirect's `iss`: the client
   * exchanges the code for tokens, and the SDK's `auth` checks `iss` again (RFC 9207).
   */
  takeRedirect(): AuthorizationRedirect | undefined {
    const redirect = this.redirect
    this.redirect = undefined
    return redirect
  }
}

/** Two issuer URLs alike but for a trailing slash, which the SDK adds to a bare origin. */
const sameIssuer = (issuer: string, asked: string): boolean =>
  issuer === asked || issuer.replace(/\/$/, "") === asked.replace(/\/$/, "")
