/**
 * An OAuth client of the MCP SDK that completes the authorization redirect without a browser, as
 * the conformance suite's own example clients do (`ConformanceOAuthProvider`): it asks the
 * authorization endpoint for the redirect itself and reads the code from its `Location`. Only for
 * the suite's authorization servers, which redirect at once without asking anyone. It follows the
 * 2026 authorization profile with the v2 SDK's pieces (D46, D52): a URL-based client id
 * (`clientMetadataUrl`) that the SDK prefers to registering where the server supports it; the
 * SDK's `application_type` default (SEP-837); the redirect's `iss` handed back for the SDK's
 * `auth` to check (RFC 9207); a `DpopSession` when the authorization server or the resource asks
 * for DPoP (RFC 9449); tokens and registrations kept by the issuer the SDK resolved, so none is
 * shown to another authorization server (SEP-2352).
 */
import { randomUUID } from "node:crypto"
import {
  DPOP_SUPPORTED_ALGS,
  type DpopAlg,
  DpopSession,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client"

/** Where the suite's authorization servers send the code; nothing listens there. */
const redirectUrl = "http://localhost:3000/callback"

/** Credentials the suite hands a client in `MCP_CONFORMANCE_CONTEXT` (auth/pre-registration). */
export interface PreRegistered {
  readonly client_id: string
  readonly client_secret: string
}

export interface HeadlessOAuthOptions {
  readonly clientName: string
  /** A URL-based client id (SEP-991), used when the authorization server supports it. */
  readonly clientMetadataUrl?: string | undefined
  readonly preRegistered?: PreRegistered | undefined
}

/** What the authorization redirect brought back, for the SDK's `auth` to check and exchange. */
export interface Redirect {
  readonly code: string
  /** The redirect's `iss` (RFC 9207), which `auth` compares with the metadata's issuer. */
  readonly iss: string | undefined
}

/** Keeps what the SDK's `auth` saves in memory, and gets the code by following no redirect. */
export class HeadlessOAuthProvider implements OAuthClientProvider {
  readonly clientMetadata: OAuthClientMetadata
  readonly clientMetadataUrl?: string
  /** What each authorization server registered, by its issuer: never shown to another (SEP-2352). */
  private readonly clients = new Map<string, StoredOAuthClientInformation>()
  /** The tokens each authorization server issued, by its issuer. */
  private readonly tokensByIssuer = new Map<string, StoredOAuthTokens>()
  /** One signing key per issuer, made when its server first asks for DPoP. */
  private readonly dpopSessions = new Map<string, Promise<DpopSession>>()
  /** Pre-registered credentials, until the first authorization server they are used with. */
  private preRegistered: StoredOAuthClientInformation | undefined
  /** The tokens saved last, which the transport presents to the resource (`tokens()`). */
  private latest: StoredOAuthTokens | undefined
  private verifier: string | undefined
  private expectedState: string | undefined
  private redirect: Redirect | undefined
  private discovery: OAuthDiscoveryState | undefined

  constructor(options: HeadlessOAuthOptions) {
    // No `application_type`: the SDK's default reads the loopback redirect as `native` (SEP-837).
    this.clientMetadata = { client_name: options.clientName, redirect_uris: [redirectUrl] }
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

  clientInformation(
    context?: OAuthClientInformationContext,
  ): StoredOAuthClientInformation | undefined {
    if (context === undefined) return undefined
    return this.clients.get(context.issuer) ?? this.preRegistered
  }

  saveClientInformation(
    client: StoredOAuthClientInformation,
    context?: OAuthClientInformationContext,
  ): void {
    const issuer = context?.issuer ?? client.issuer
    if (issuer === undefined) return
    this.clients.set(issuer, client)
    // The suite pre-registers a client with one authorization server, the first it is used with.
    if (client.client_id === this.preRegistered?.client_id) this.preRegistered = undefined
  }

  /** The tokens of the issuer asked about; without one, the transport's read, the last saved. */
  tokens(context?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
    return context === undefined ? this.latest : this.tokensByIssuer.get(context.issuer)
  }

  saveTokens(tokens: StoredOAuthTokens, context?: OAuthClientInformationContext): void {
    const issuer = context?.issuer ?? tokens.issuer
    if (issuer !== undefined) this.tokensByIssuer.set(issuer, tokens)
    this.latest = tokens
  }

  /**
   * A signing key when the authorization server says it takes DPoP proofs
   * (`dpop_signing_alg_values_supported`, RFC 9449 5.1) or the resource wants DPoP-bound tokens
   * (`dpop_bound_access_tokens_required`, 5.2); the SDK then signs the token request and every
   * request to the resource, and retries a `use_dpop_nonce` challenge once.
   */
  dpop(): Promise<DpopSession> | undefined {
    const metadata = this.discovery?.authorizationServerMetadata
    if (metadata === undefined) return undefined
    const offered =
      "dpop_signing_alg_values_supported" in metadata &&
      Array.isArray(metadata.dpop_signing_alg_values_supported)
        ? (metadata.dpop_signing_alg_values_supported as ReadonlyArray<unknown>)
        : []
    const resource = this.discovery?.resourceMetadata
    const required =
      resource !== undefined &&
      "dpop_bound_access_tokens_required" in resource &&
      resource.dpop_bound_access_tokens_required === true
    if (offered.length === 0 && !required) return undefined
    const alg = DPOP_SUPPORTED_ALGS.find((alg) => offered.includes(alg))
    let session = this.dpopSessions.get(metadata.issuer)
    if (session === undefined) {
      session = DpopSession.create({ alg: alg ?? ("ES256" satisfies DpopAlg) })
      this.dpopSessions.set(metadata.issuer, session)
    }
    return session
  }

  // Kept so that exchanging the code finds the metadata where the first discovery found it, which
  // may be a place only the server's WWW-Authenticate named (auth/metadata-var3). The SDK has
  // checked the metadata's issuer against where it was found (RFC 8414 3.3) before this.
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery
  }

  /** What the SDK's `auth` drops after a refusal, and `discovery` when the resource moved. */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    const issuer = this.discovery?.authorizationServerMetadata?.issuer
    if (scope === "all" || scope === "client") {
      if (issuer !== undefined) this.clients.delete(issuer)
    }
    if (scope === "all" || scope === "tokens") {
      if (issuer !== undefined) this.tokensByIssuer.delete(issuer)
      this.latest = undefined
    }
    if (scope === "all" || scope === "verifier") this.verifier = undefined
    if (scope === "all" || scope === "discovery") this.discovery = undefined
  }

  /**
   * Whether the resource's metadata no longer names the authorization server of the discovery
   * kept: the SDK would go on asking the old one, so the client drops the discovery.
   */
  async resourceMoved(): Promise<boolean> {
    const where = this.discovery?.resourceMetadataUrl
    const server = this.discovery?.authorizationServerUrl
    if (where === undefined || server === undefined) return false
    const response = await fetch(where)
    if (!response.ok) return false
    const metadata: unknown = await response.json()
    const servers =
      typeof metadata === "object" && metadata !== null && "authorization_servers" in metadata
        ? metadata.authorization_servers
        : undefined
    return (
      Array.isArray(servers) &&
      !servers.some((named) => typeof named === "string" && sameServer(named, server))
    )
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error("no PKCE code verifier was saved")
    return this.verifier
  }

  /** Asks for the authorization and keeps the code and `iss` of the redirect it answers with. */
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
    const code = back.searchParams.get("code")
    if (code === null) {
      throw new Error(`the authorization redirect has no code: ${back.searchParams.toString()}`)
    }
    this.redirect = { code, iss: back.searchParams.get("iss") ?? undefined }
  }

  /**
   * The redirect not exchanged yet, once: the client passes its code and `iss` to the SDK's
   * `auth`, which refuses an `iss` that is not the issuer (`IssuerMismatchError`), or a missing
   * one where the metadata says the server sends it.
   */
  takeRedirect(): Redirect | undefined {
    const redirect = this.redirect
    this.redirect = undefined
    return redirect
  }
}

/** Two authorization server URLs alike but for a trailing slash, which the SDK adds to an origin. */
const sameServer = (a: string, b: string): boolean => a.replace(/\/$/, "") === b.replace(/\/$/, "")
