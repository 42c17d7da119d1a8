import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { inspect } from "node:util"
import { afterEach, assert, beforeEach, describe, it, vi } from "@effect/vitest"
import {
  ClientCredentialsProvider,
  type OAuthClientProvider,
  StaticPrivateKeyJwtProvider,
} from "@modelcontextprotocol/client"
import { Redaction, type SvirError } from "@svir/core"
import { Cause, Effect } from "effect"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, captureLogs } from "./servers.js"

const clientId = "svir-machine"
// A plus, a slash and an equals sign, which a form body and base64 write differently.
const clientSecret = "machine+secret/5b1d=9e"
const assertion = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzdmlyLW1hY2hpbmUifQ.c2lnbmVkLWJ5LXRoZS1jbGllbnQ"

/**
 * An MCP server on 127.0.0.1 that wants OAuth, and its authorization server on the same port,
 * whose token endpoint refuses every client and quotes, as careless servers do, the
 * `Authorization` header and the form body it was sent. It refuses with `status`: 401, or 200,
 * which some servers answer an OAuth error with and the SDK reads as a refusal too.
 */
const serveEchoingTokenEndpoint = (methods: ReadonlyArray<string>, status: number) =>
  Effect.acquireRelease(
    Effect.callback<{
      readonly http: Http.Server
      readonly origin: string
      readonly tokenRequests: ReadonlyArray<string>
    }>((resume) => {
      const tokenRequests: Array<string> = []
      const http = Http.createServer((request, response) => {
        let body = ""
        request.on("data", (part: Buffer) => {
          body += part.toString("utf8")
        })
        request.on("end", () => {
          const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
          const json = (status: number, value: unknown, headers = {}) => {
            response.writeHead(status, { "content-type": "application/json", ...headers })
            response.end(JSON.stringify(value))
          }
          const path = request.url ?? ""
          if (path.startsWith("/mcp")) {
            json(
              401,
              { error: "invalid_token" },
              {
                "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
              },
            )
          } else if (path === "/.well-known/oauth-protected-resource/mcp") {
            json(200, { resource: `${origin}/mcp`, authorization_servers: [`${origin}/`] })
          } else if (path === "/.well-known/oauth-authorization-server") {
            json(200, {
              issuer: `${origin}/`,
              authorization_endpoint: `${origin}/authorize`,
              token_endpoint: `${origin}/token`,
              response_types_supported: ["code"],
              grant_types_supported: ["client_credentials"],
              token_endpoint_auth_methods_supported: methods,
            })
          } else if (path === "/token") {
            const sent = `Authorization: ${request.headers.authorization ?? "none"}, body: ${body}`
            tokenRequests.push(sent)
            json(status, { error: "invalid_client", error_description: `no such client: ${sent}` })
          } else {
            json(404, { error: "not_found" })
          }
        })
      })
      http.listen(0, "127.0.0.1", () => {
        const { port } = http.address() as AddressInfo
        resume(Effect.succeed({ http, origin: `http://127.0.0.1:${port}`, tokenRequests }))
      })
    }),
    ({ http }) =>
      Effect.callback<void>((resume) => {
        http.closeAllConnections()
        http.close(() => resume(Effect.void))
      }),
  )

/** Every form the credentials went out in, and the forms a reader could turn back into them. */
const sentForms = [
  clientSecret,
  btoa(`${clientId}:${clientSecret}`).replace(/=+$/, ""),
  new URLSearchParams({ client_secret: clientSecret }).toString(),
  assertion,
]

/** Every way an error is shown: its fields, String, JSON, util.inspect and Cause.pretty. */
const renderings = (error: SvirError.SvirError): ReadonlyArray<string> => [
  error.message,
  error.serverMessage ?? "",
  String(error),
  JSON.stringify(error),
  inspect(error, { depth: 10 }),
  inspect(error.cause, { depth: 10 }),
  Cause.pretty(Cause.fail(error)),
]

const checker = Redaction.make([clientSecret, assertion])

const assertClean = (texts: ReadonlyArray<string>, where: string) => {
  for (const text of texts) {
    for (const form of sentForms) assert.notInclude(text, form, `${where} shows ${form}`)
    assert.isFalse(checker.reveals(text), `${where}: ${text}`)
  }
}

const providers: ReadonlyArray<{
  readonly name: string
  readonly methods: ReadonlyArray<string>
  /** The status the token endpoint refuses with. */
  readonly status: number
  /** What the token endpoint must have been sent, so that its echo is a real one. */
  readonly sent: string
  readonly make: (issuer: string) => OAuthClientProvider
}> = [
  {
    name: "client_secret_basic, echoed as the Authorization header",
    methods: ["client_secret_basic"],
    status: 401,
    sent: `Authorization: Basic ${btoa(`${clientId}:${clientSecret}`)}`,
    make: (issuer) =>
      new ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer }),
  },
  {
    name: "client_secret_post, echoed as the form body",
    methods: ["client_secret_post"],
    status: 401,
    sent: new URLSearchParams({ client_secret: clientSecret }).toString(),
    make: (issuer) =>
      new ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer }),
  },
  {
    name: "client_secret_post, echoed as the form body of a 200",
    methods: ["client_secret_post"],
    status: 200,
    sent: new URLSearchParams({ client_secret: clientSecret }).toString(),
    make: (issuer) =>
      new ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer }),
  },
  {
    name: "private_key_jwt, echoed as the form body",
    methods: ["private_key_jwt"],
    status: 401,
    sent: `client_assertion=${assertion}`,
    make: (issuer) =>
      new StaticPrivateKeyJwtProvider({
        clientId,
        jwtBearerAssertion: assertion,
        expectedIssuer: issuer,
      }),
  },
]

describe("McpToolbox.http keeps an OAuth client's credentials out of errors, logs and the console", () => {
  // SDK 2.x's `auth` writes the authorization server's refusal to console.warn, where no
  // redaction of the bridge's reaches; what it wrote is kept here, off the test's output, and
  // checked (D49).
  let warned: Array<string> = []
  beforeEach(() => {
    warned = []
    vi.spyOn(console, "warn").mockImplementation((...args: Array<unknown>) => {
      warned.push(args.map((arg) => (typeof arg === "string" ? arg : inspect(arg))).join(" "))
    })
  })
  afterEach(() => {
    vi.restoreAllMocks()
    assertNoChildLeft()
  })

  for (const provider of providers) {
    it.live(`when the token endpoint refuses them: ${provider.name}`, () =>
      Effect.gen(function* () {
        const logs = captureLogs()
        const server = yield* serveEchoingTokenEndpoint(provider.methods, provider.status)
        const error = yield* Effect.flip(
          McpToolbox.http({
            url: `${server.origin}/mcp`,
            authProvider: provider.make(`${server.origin}/`),
          }),
        ).pipe(Effect.provide(logs.layer))
        assert.strictEqual(error.reason._tag, "Authentication")
        assert.include(error.message, "invalid_client")
        // The endpoint's words are kept: what it was sent is what is replaced.
        assert.include(error.serverMessage, "no such client")
        assert.include(error.serverMessage, Redaction.placeholder)
        assertClean(renderings(error), "the error")
        assertClean(logs.logged, "a log line")
        // The SDK did write the refusal, with the endpoint's words, and no credential in them.
        assert.isTrue(
          warned.some((line) => line.includes("invalid_client") && line.includes("no such client")),
          `the SDK's warnings: ${warned.join("\n")}`,
        )
        assertClean(warned, "the SDK's console.warn")
        // The endpoint did receive the credentials, so the echo above is a real one.
        assert.include(server.tokenRequests[0], provider.sent)
      }),
    )
  }
})
