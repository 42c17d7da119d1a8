import { inspect } from "node:util"
import { afterEach, assert, beforeEach, describe, it, vi } from "@effect/vitest"
import {
  auth,
  IssuerMismatchError,
  type OAuthClientInformationContext,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client"
import { Redaction, type SvirError, ToolCall } from "@svir/core"
import { Cause, Effect, Layer } from "effect"
import { otel } from "../../../test/otel.js"
import { McpToolbox } from "../src/index.js"
import { HeadlessOAuthProvider } from "./conformance/headlessOAuth.js"
import {
  type AuthServerOptions,
  authServer,
  type ProtectedMcpServer,
  protectedMcpServer,
  readProof,
  type TokenBook,
  wholeRequest,
} from "./oauthProfileServers.js"
import { assertNoChildLeft, captureLogs } from "./servers.js"

const clientMetadataUrl = "https://client.example/svir-bridge.json"

/** The repository's provider, which also notes the issuer of every `tokens` read. */
class NotingProvider extends HeadlessOAuthProvider {
  readonly tokenReads: Array<string | undefined> = []
  override tokens(context?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
    this.tokenReads.push(context?.issuer)
    return super.tokens(context)
  }
}

const newProvider = (withUrl: boolean) =>
  new NotingProvider({
    clientName: "svir profile test",
    ...(withUrl ? { clientMetadataUrl } : {}),
  })

/** An authorization server, and an MCP server that names it. */
const servers = (options: AuthServerOptions) =>
  Effect.gen(function* () {
    const book: TokenBook = new Map()
    const authorization = yield* authServer(book, options)
    const mcp = yield* protectedMcpServer(book, authorization)
    return { book, authorization, mcp }
  })

/**
 * Connects as a person would: the first toolbox fails with the flow at the authorization page,
 * whose code and `iss` the SDK's `auth` exchanges, then a second toolbox connects.
 */
const authorize = (mcp: ProtectedMcpServer, provider: HeadlessOAuthProvider) =>
  Effect.gen(function* () {
    const pending = yield* Effect.flip(McpToolbox.http({ url: mcp.url, authProvider: provider }))
    assert.strictEqual(pending.reason._tag, "Authentication")
    const redirect = provider.takeRedirect()
    assert.isDefined(redirect)
    const { code, iss } = redirect!
    const result = yield* Effect.promise(() =>
      auth(provider, {
        serverUrl: mcp.url,
        authorizationCode: code,
        ...(iss === undefined ? {} : { iss }),
      }),
    )
    assert.strictEqual(result, "AUTHORIZED")
    return yield* McpToolbox.http({ url: mcp.url, authProvider: provider })
  })

const whoami = (toolbox: McpToolbox.McpToolbox) =>
  Effect.map(toolbox.call(ToolCall.make("c1", "whoami")), (result) => result.content)

/** Every way an error is shown. */
const shown = (error: SvirError.SvirError): ReadonlyArray<string> => [
  error.message,
  error.serverMessage ?? "",
  String(error),
  JSON.stringify(error),
  inspect(error, { depth: 10 }),
  Cause.pretty(Cause.fail(error)),
]

/** Fails when a text holds one of the secrets, in any form a server may echo it in. */
const assertClean = (secrets: ReadonlyArray<string>, texts: ReadonlyArray<string>) => {
  const redaction = Redaction.make(secrets)
  for (const text of texts) {
    for (const secret of secrets) assert.notInclude(text, secret)
    assert.isFalse(redaction.reveals(text), text)
  }
}

describe("McpToolbox.http and the 2026 authorization profile (D52)", () => {
  const warned: Array<string> = []
  // SDK 2.x writes an authorization server's refusal to console.warn (D49); kept to be read.
  beforeEach(() => {
    warned.length = 0
    vi.spyOn(console, "warn").mockImplementation((...args: Array<unknown>) => {
      warned.push(args.map(String).join(" "))
    })
  })
  afterEach(() => {
    vi.restoreAllMocks()
    assertNoChildLeft()
  })

  it.live("CIMD: the client's URL is its id where the server takes it; nothing registers", () =>
    Effect.gen(function* () {
      const { authorization, mcp } = yield* servers({ cimd: true })
      const toolbox = yield* authorize(mcp, newProvider(true))
      assert.strictEqual(yield* whoami(toolbox), "hello")
      assert.deepStrictEqual(authorization.registrations, [])
      assert.deepStrictEqual(authorization.authorizedClients, [clientMetadataUrl])
      // No DPoP where nobody asked for it.
      assert.deepStrictEqual(authorization.tokenTypes, ["Bearer"])
    }),
  )

  it.live("CIMD: without the server's flag, registers dynamically, as a native application", () =>
    Effect.gen(function* () {
      const { authorization, mcp } = yield* servers({ cimd: false })
      const toolbox = yield* authorize(mcp, newProvider(true))
      assert.strictEqual(yield* whoami(toolbox), "hello")
      assert.strictEqual(authorization.registrations.length, 1)
      // SEP-837: a loopback redirect is a native application's.
      assert.strictEqual(authorization.registrations[0]!.application_type, "native")
      assert.notStrictEqual(authorization.authorizedClients[0], clientMetadataUrl)
    }),
  )

  for (const iss of ["another", "none"] as const) {
    it.live(`iss: a redirect with ${iss === "none" ? "no iss" : "another issuer"} is refused`, () =>
      Effect.gen(function* () {
        const { authorization, mcp } = yield* servers({ iss })
        const provider = newProvider(false)
        yield* Effect.flip(McpToolbox.http({ url: mcp.url, authProvider: provider }))
        const redirect = provider.takeRedirect()
        assert.isDefined(redirect)
        const refused = yield* Effect.flip(
          Effect.tryPromise(() =>
            auth(provider, {
              serverUrl: mcp.url,
              authorizationCode: redirect!.code,
              ...(redirect!.iss === undefined ? {} : { iss: redirect!.iss }),
            }),
          ),
        )
        assert.instanceOf(refused.cause, IssuerMismatchError)
        assert.strictEqual((refused.cause as IssuerMismatchError).kind, "authorization_response")
        // The code was never exchanged.
        assert.isFalse(authorization.received.some((request) => request.url === "/token"))
      }),
    )
  }

  it.live(
    "DPoP: tokens bound to the provider's key, the nonce challenge retried once, no proof shown",
    () => {
      const logs = captureLogs()
      const telemetry = otel()
      return Effect.gen(function* () {
        const { authorization, mcp } = yield* servers({ dpop: true })
        const provider = newProvider(false)
        const toolbox = yield* authorize(mcp, provider)
        const session = yield* Effect.promise(async () => provider.dpop())
        assert.isDefined(session)
        assert.strictEqual(yield* whoami(toolbox), "hello")
        assert.deepStrictEqual(authorization.tokenTypes, ["DPoP"])
        // The resource challenged the first proof once; every later one carries its nonce.
        assert.strictEqual(mcp.nonceChallenges(), 1)
        const proofs = mcp.received.flatMap((request) =>
          typeof request.headers.dpop === "string" ? [request.headers.dpop] : [],
        )
        const accepted = proofs.slice(1)
        assert.isAbove(accepted.length, 0)
        for (const proof of accepted) {
          const { header, claims } = readProof(proof)
          assert.strictEqual(header.typ, "dpop+jwt")
          assert.strictEqual(claims.nonce, mcp.nonce)
        }

        // A server that quotes the proof, and a token endpoint that does while refusing it.
        const leak = yield* toolbox.call(ToolCall.make("c2", "leak"))
        assert.isTrue(leak.isError)
        assert.include(leak.content, `with ${Redaction.placeholder}`)
        authorization.refuseQuoting()
        mcp.expire()
        const refused = yield* toolbox.call(ToolCall.make("c3", "whoami"))
        assert.isTrue(refused.isError)
        const refresh = yield* Effect.flip(toolbox.refresh)
        assert.isTrue(
          warned.some((line) => line.includes("invalid_grant") && line.includes("not with")),
          `the SDK's warnings: ${warned.join("\n")}`,
        )
        const sent = [...mcp.received, ...authorization.received].flatMap((request) =>
          typeof request.headers.dpop === "string" ? [request.headers.dpop] : [],
        )
        const signatures = sent.map((proof) => proof.split(".")[2]!)
        const spans = telemetry.exporter.getFinishedSpans()
        assert.isAbove(spans.length, 0)
        const spanTexts = spans.map((span) =>
          JSON.stringify([span.name, span.attributes, span.events, span.status]),
        )
        assertClean(
          [...sent, ...signatures, ...authorization.issued],
          [
            leak.content,
            refused.content,
            ...shown(refresh),
            ...logs.logged,
            ...warned,
            ...spanTexts,
          ],
        )
      }).pipe(Effect.scoped, Effect.provide(Layer.merge(logs.layer, telemetry.layer)))
    },
  )

  it.live("issuer binding: what one authorization server issued is never sent to another", () =>
    Effect.gen(function* () {
      const { book, authorization: first, mcp } = yield* servers({})
      const provider = newProvider(false)
      assert.strictEqual(yield* whoami(yield* authorize(mcp, provider)), "hello")
      const firstClient = first.authorizedClients[0]!

      // The resource moves to another authorization server, which registers the client anew.
      const second = yield* authServer(book, {})
      mcp.moveTo(second)
      provider.invalidateCredentials("discovery")
      const toolbox = yield* authorize(mcp, provider)
      assert.strictEqual(yield* whoami(toolbox), "hello")
      assert.strictEqual(second.registrations.length, 1)
      assert.notStrictEqual(second.authorizedClients[0], firstClient)
      // The SDK asked for the second server's tokens by its issuer, through the bridge.
      assert.include(provider.tokenReads, second.issuer)
      for (const request of second.received) {
        const text = wholeRequest(request)
        assert.notInclude(text, firstClient)
        for (const token of first.issued) assert.notInclude(text, token)
      }
    }),
  )

  it.live("issuer binding: a server whose metadata names another issuer is sent nothing", () =>
    Effect.gen(function* () {
      const book: TokenBook = new Map()
      const genuine = yield* authServer(book, {})
      const impostor = yield* authServer(book, { claimedIssuer: genuine.issuer })
      const mcp = yield* protectedMcpServer(book, impostor)
      const error = yield* Effect.flip(
        McpToolbox.http({ url: mcp.url, authProvider: newProvider(false) }),
      )
      assert.strictEqual(error.reason._tag, "Authentication")
      assert.include(error.message, "the metadata's issuer is not the authorization server's")
      assert.deepStrictEqual(
        impostor.received.map((request) => request.url),
        ["/.well-known/oauth-authorization-server"],
      )
    }),
  )
})
