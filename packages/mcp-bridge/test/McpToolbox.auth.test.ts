import { inspect } from "node:util"
import { afterEach, assert, beforeEach, describe, it, vi } from "@effect/vitest"
import {
  auth,
  ClientCredentialsProvider,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthTokens,
} from "@modelcontextprotocol/client"
import { Redaction, type SvirError, ToolCall } from "@svir/core"
import { Cause, Effect } from "effect"
import { McpToolbox } from "../src/index.js"
import { machineClient, serveProtected } from "./fixtures/oauth-server.mjs"
import { assertNoChildLeft } from "./servers.js"

const protectedServer = Effect.acquireRelease(
  Effect.promise(() => serveProtected()),
  (server) => Effect.promise(() => server.close()),
)

/** Fails when the text holds one of the secrets, in any form a server may echo it in. */
const assertClean = (secrets: ReadonlyArray<string>, text: string) => {
  for (const secret of secrets) assert.notInclude(text, secret)
  assert.isFalse(Redaction.make(secrets).reveals(text), text)
}

/** Every way an error is shown. */
const shown = (error: SvirError.SvirError): ReadonlyArray<string> => [
  error.message,
  error.serverMessage ?? "",
  String(error),
  JSON.stringify(error),
  inspect(error, { depth: 10 }),
  Cause.pretty(Cause.fail(error)),
]

/**
 * A provider for the authorization code flow without a browser: it follows the authorization
 * URL itself, where the test's authorization server approves at once, and keeps the code.
 */
class BrowserlessProvider implements OAuthClientProvider {
  code: string | undefined
  private saved: {
    client?: OAuthClientInformationMixed
    tokens?: OAuthTokens
    verifier?: string
  } = {}
  readonly redirectUrl = "http://127.0.0.1:1/callback"
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: "svir test",
    redirect_uris: [this.redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  }
  clientInformation() {
    return this.saved.client
  }
  saveClientInformation(client: OAuthClientInformationMixed) {
    this.saved.client = client
  }
  tokens() {
    return this.saved.tokens
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved.tokens = tokens
  }
  saveCodeVerifier(verifier: string) {
    this.saved.verifier = verifier
  }
  codeVerifier() {
    return this.saved.verifier ?? ""
  }
  async redirectToAuthorization(url: URL) {
    const answer = await fetch(url, { redirect: "manual" })
    this.code = new URL(answer.headers.get("location") ?? "").searchParams.get("code") ?? undefined
  }
}

describe("McpToolbox.http with an OAuth authProvider", () => {
  // SDK 2.x's `auth` writes the authorization server's refusal to console.warn, past any
  // redaction (D48); kept off the test's output.
  beforeEach(() => {
    vi.spyOn(console, "warn").mockImplementation(() => {})
  })
  afterEach(() => {
    vi.restoreAllMocks()
    assertNoChildLeft()
  })

  it.live(
    "client credentials: authorizes, takes a new token once the old one expired, shows none",
    () =>
      Effect.gen(function* () {
        const server = yield* protectedServer
        const apiKey = "key-for-the-mcp-server-only"
        const toolbox = yield* McpToolbox.http({
          url: server.mcpUrl,
          headers: { "X-Api-Key": apiKey },
          authProvider: new ClientCredentialsProvider({
            clientId: machineClient.clientId,
            clientSecret: machineClient.clientSecret,
            expectedIssuer: server.issuer,
          }),
        })
        const whoami = (id: string) => toolbox.call(ToolCall.make(id, "whoami"))
        assert.strictEqual((yield* whoami("c1")).content, "hello svir-machine")
        server.expire()
        assert.strictEqual((yield* whoami("c2")).content, "hello svir-machine")
        assert.deepStrictEqual(server.grants, ["client_credentials", "client_credentials"])
        // The configured headers went to the MCP server, and never to the authorization server.
        assert.isTrue(server.mcpServerHeaders.every((headers) => headers["x-api-key"] === apiKey))
        assert.isTrue(server.authServerHeaders.every((headers) => !("x-api-key" in headers)))
        assert.isAbove(server.authServerHeaders.length, 0)

        const leak = yield* toolbox.call(ToolCall.make("c3", "leak"))
        assert.isTrue(leak.isError)
        assert.include(leak.content, `you sent ${Redaction.placeholder}`)
        server.revoke()
        const refused = yield* whoami("c4")
        assert.isTrue(refused.isError)
        assert.include(
          refused.content,
          `no client svir-machine with the secret ${Redaction.placeholder}`,
        )
        const secrets = [...server.issued, machineClient.clientSecret]
        for (const result of [leak, refused]) assertClean(secrets, result.content)
      }),
  )

  it.live(
    "authorization code: says how to finish, then refreshes an expired token, shows none",
    () =>
      Effect.gen(function* () {
        const server = yield* protectedServer
        const provider = new BrowserlessProvider()
        const pending = yield* Effect.flip(
          McpToolbox.http({ url: server.mcpUrl, authProvider: provider }),
        )
        assert.strictEqual(pending.reason._tag, "Authentication")
        assert.match(
          pending.message,
          /pass the code to the SDK's auth\(provider, \{ serverUrl, authorizationCode \}\)/,
        )
        assert.isDefined(provider.code)
        const result = yield* Effect.promise(() =>
          auth(provider, { serverUrl: server.mcpUrl, authorizationCode: provider.code! }),
        )
        assert.strictEqual(result, "AUTHORIZED")

        const toolbox = yield* McpToolbox.http({ url: server.mcpUrl, authProvider: provider })
        const whoami = (id: string) => toolbox.call(ToolCall.make(id, "whoami"))
        assert.match((yield* whoami("c1")).content, /^hello /)
        server.expire()
        assert.match((yield* whoami("c2")).content, /^hello /)
        assert.deepStrictEqual(server.grants, ["authorization_code", "refresh_token"])

        const leak = yield* toolbox.call(ToolCall.make("c3", "leak"))
        assert.include(leak.content, `you sent ${Redaction.placeholder}`)
        server.revoke()
        const refused = yield* whoami("c4")
        assert.isTrue(refused.isError)
        const refresh = yield* Effect.flip(toolbox.refresh)
        assert.strictEqual(refresh.reason._tag, "Authentication")
        for (const text of [leak.content, refused.content, ...shown(pending), ...shown(refresh)]) {
          assertClean(server.issued, text)
        }
      }),
  )
})
