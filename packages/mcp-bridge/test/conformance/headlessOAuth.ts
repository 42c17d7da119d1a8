/**
 * An OAuth client of the MCP SDK that completes the authorization redirect without a browser, as
 * the conformance suite's own example clients do (`ConformanceOAuthProvider`): it asks the
 * authorization endpoint for the redirect itself and reads the code from its `Location`. Only for
 * the suite's authorization servers, which redirect at once without asking anyone.
 */
import { randomUUID } from "node:crypto"
import type {
  OAuthClientProvider,
  OAuthDiscoveryState,
} from "@modelcontextprotocol/sdk/client/auth.js"
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js"

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

/** Keeps what the SDK's `auth` saves in memory, and gets the code by following no redirect. */
export class HeadlessOAuthProvider implements OAuthClientProvider {
  readonly clientMetadata: OAuthClientMetadata
  readonly clientMetadataUrl?: string
  private client: OAuthClientInformationMixed | undefined
  private savedTokens: OAuthTokens | undefined
  private verifier: string | undefined
  private expectedState: string | undefined
  private code: string | undefined
  private discovery: OAuthDiscoveryState | undefined

  constructor(options: HeadlessOAuthOptions) {
    this.clientMetadata = { client_name: options.clientName, redirect_uris: [redirectUrl] }
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl
    this.client =
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

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.client = client
  }

  tokens(): OAuthTokens | undefined {
    return this.savedTokens
  }

  saveTokens(tokens: OAuthTokens): void {
    this.savedTokens = tokens
  }

  // Kept so that exchanging the code finds the metadata where the first discovery found it, which
  // may be a place only the server's WWW-Authenticate named (auth/metadata-var3).
  saveDiscoveryState(state: OAuthDiscoveryState): void {
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
    this.code = undefined
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
    this.code = code
  }

  /** The code of a redirect not exchanged yet, once: the client exchanges it for tokens. */
  takeCode(): string | undefined {
    const code = this.code
    this.code = undefined
    return code
  }
}
