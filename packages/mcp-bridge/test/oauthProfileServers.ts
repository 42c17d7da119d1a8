/**
 * Servers on 127.0.0.1 for the 2026 authorization profile (D52): authorization servers whose
 * metadata says what they take (URL-based client ids, DPoP, `iss` on the redirect), and an MCP
 * server whose protected resource metadata names one of them, which can move to another. Each
 * keeps every request it was sent, so a test can say what went where.
 */
import { createHash, randomUUID } from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { Effect } from "effect"

/** A request as a server received it. */
export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** Everything a request carried, in one string, to look for a credential in. */
export const wholeRequest = (request: Received): string =>
  `${request.method} ${request.url} ${JSON.stringify(request.headers)} ${request.body}`

export interface AuthServerOptions {
  /** Advertises `client_id_metadata_document_supported` (URL-based client ids). */
  readonly cimd?: boolean
  /** Advertises `dpop_signing_alg_values_supported`; the token endpoint then wants a proof. */
  readonly dpop?: boolean
  /** The `iss` of the redirect: the server's issuer, another one, or none. */
  readonly iss?: "issuer" | "another" | "none"
  /** The issuer its metadata names, when not its own. */
  readonly claimedIssuer?: string
}

/** A token the authorization server issued, and what the MCP server checks it against. */
interface Issued {
  readonly issuer: string
  /** The thumbprint of the DPoP key it is bound to (`cnf.jkt`, RFC 9449 6.1). */
  readonly jkt: string | undefined
}

export interface AuthServer {
  readonly issuer: string
  readonly received: ReadonlyArray<Received>
  /** The bodies of its registration requests, parsed. */
  readonly registrations: ReadonlyArray<Record<string, unknown>>
  /** The `client_id` of each authorization request. */
  readonly authorizedClients: ReadonlyArray<string>
  /** Every token it issued, access and refresh. */
  readonly issued: ReadonlyArray<string>
  /** The `token_type` of each token answer. */
  readonly tokenTypes: ReadonlyArray<string>
  /** From now on, the token endpoint refuses and quotes the DPoP proof it was sent. */
  readonly refuseQuoting: () => void
}

const listen = (handle: Http.RequestListener) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly http: Http.Server; readonly origin: string }>((resume) => {
      const http = Http.createServer(handle)
      http.listen(0, "127.0.0.1", () => {
        const { port } = http.address() as AddressInfo
        resume(Effect.succeed({ http, origin: `http://127.0.0.1:${port}` }))
      })
    }),
    ({ http }) =>
      Effect.callback<void>((resume) => {
        http.closeAllConnections()
        http.close(() => resume(Effect.void))
      }),
  )

const readBody = async (request: Http.IncomingMessage): Promise<string> => {
  let text = ""
  for await (const chunk of request) text += String(chunk)
  return text
}

const json = (response: Http.ServerResponse, status: number, value: unknown, headers = {}) => {
  response.writeHead(status, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify(value))
}

const base64url = (text: string): unknown =>
  JSON.parse(Buffer.from(text, "base64url").toString("utf8"))

/** What the tests read of a DPoP proof (RFC 9449 4.2). */
export interface Proof {
  readonly header: { readonly typ?: string; readonly jwk: Record<string, string> }
  readonly claims: { readonly htu?: string; readonly ath?: string; readonly nonce?: string }
}

/** The header and claims of a DPoP proof, as its signer wrote them; the signature is not checked. */
export const readProof = (proof: string): Proof => {
  const [header, claims] = proof.split(".")
  return {
    header: base64url(header ?? "") as Proof["header"],
    claims: base64url(claims ?? "") as Proof["claims"],
  }
}

/** RFC 7638: the SHA-256 thumbprint of an EC public key. */
const thumbprint = (jwk: Record<string, string>): string =>
  createHash("sha256")
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest("base64url")

/** Tokens issued by every authorization server of a test, which its MCP server accepts. */
export type TokenBook = Map<string, Issued>

export const authServer = (book: TokenBook, options: AuthServerOptions = {}) =>
  Effect.gen(function* () {
    const received: Array<Received> = []
    const registrations: Array<Record<string, unknown>> = []
    const authorizedClients: Array<string> = []
    const issued: Array<string> = []
    const tokenTypes: Array<string> = []
    const codes = new Map<string, string>()
    const refreshTokens = new Set<string>()
    let refusing = false
    let issuer = ""
    const nonce = `as-nonce-${randomUUID()}`

    const issue = (response: Http.ServerResponse, proof: string | undefined) => {
      const accessToken = `at-${randomUUID()}`
      const refreshToken = `rt-${randomUUID()}`
      const jkt = proof === undefined ? undefined : thumbprint(readProof(proof).header.jwk)
      book.set(accessToken, { issuer, jkt })
      refreshTokens.add(refreshToken)
      issued.push(accessToken, refreshToken)
      const tokenType = jkt === undefined ? "Bearer" : "DPoP"
      tokenTypes.push(tokenType)
      json(response, 200, {
        access_token: accessToken,
        refresh_token: refreshToken,
        token_type: tokenType,
        expires_in: 3600,
      })
    }

    const { origin } = yield* listen(async (request, response) => {
      const body = await readBody(request)
      const url = new URL(request.url ?? "/", "http://127.0.0.1")
      received.push({
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body,
      })
      if (url.pathname === "/.well-known/oauth-authorization-server") {
        json(response, 200, {
          issuer: options.claimedIssuer ?? issuer,
          authorization_endpoint: `${issuer}authorize`,
          token_endpoint: `${issuer}token`,
          registration_endpoint: `${issuer}register`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
          authorization_response_iss_parameter_supported: true,
          ...(options.cimd === true ? { client_id_metadata_document_supported: true } : {}),
          ...(options.dpop === true ? { dpop_signing_alg_values_supported: ["ES256"] } : {}),
        })
      } else if (url.pathname === "/register" && request.method === "POST") {
        const metadata = JSON.parse(body) as Record<string, unknown>
        registrations.push(metadata)
        json(response, 201, { ...metadata, client_id: `client-${randomUUID()}` })
      } else if (url.pathname === "/authorize") {
        authorizedClients.push(url.searchParams.get("client_id") ?? "")
        const code = `code-${randomUUID()}`
        codes.set(code, url.searchParams.get("client_id") ?? "")
        const back = new URL(url.searchParams.get("redirect_uri") ?? "")
        back.searchParams.set("code", code)
        back.searchParams.set("state", url.searchParams.get("state") ?? "")
        if (options.iss !== "none") {
          back.searchParams.set("iss", options.iss === "another" ? "https://evil.example/" : issuer)
        }
        response.writeHead(302, { location: back.href })
        response.end()
      } else if (url.pathname === "/token" && request.method === "POST") {
        const form = new URLSearchParams(body)
        const proof = request.headers.dpop as string | undefined
        if (refusing) {
          json(response, 400, { error: "invalid_grant", error_description: `not with ${proof}` })
          return
        }
        if (options.dpop === true) {
          if (proof === undefined) {
            json(response, 400, { error: "invalid_dpop_proof" })
            return
          }
          // RFC 9449 8: the first proof is answered with the nonce to sign the next one with.
          if (readProof(proof).claims.nonce !== nonce) {
            json(response, 400, { error: "use_dpop_nonce" }, { "dpop-nonce": nonce })
            return
          }
        }
        const grant = form.get("grant_type")
        const known =
          grant === "authorization_code"
            ? codes.delete(form.get("code") ?? "")
            : grant === "refresh_token" && refreshTokens.delete(form.get("refresh_token") ?? "")
        if (!known) {
          json(response, 400, { error: "invalid_grant" })
          return
        }
        issue(response, proof)
      } else {
        json(response, 404, { error: "not_found" })
      }
    })
    issuer = `${origin}/`
    return {
      issuer,
      received,
      registrations,
      authorizedClients,
      issued,
      tokenTypes,
      refuseQuoting: () => {
        refusing = true
      },
    } satisfies AuthServer
  })

export interface ProtectedMcpServer {
  readonly url: string
  readonly received: ReadonlyArray<Received>
  /** How many `use_dpop_nonce` challenges it answered with. */
  readonly nonceChallenges: () => number
  readonly nonce: string
  /** The resource now names this authorization server. */
  readonly moveTo: (server: AuthServer) => void
  /** Every token stops working: the next request gets 401. */
  readonly expire: () => void
}

/**
 * An MCP server that takes the tokens of `book`: a DPoP-bound one only with the `DPoP` scheme and a
 * proof signed by its key, for its URL, with the server's nonce (a first proof without it is
 * challenged, RFC 9449 9). Its tools: `whoami`, and `leak`, which fails quoting the
 * `Authorization` and `DPoP` headers it was sent, as careless servers do.
 */
export const protectedMcpServer = (book: TokenBook, first: AuthServer) =>
  Effect.gen(function* () {
    const received: Array<Received> = []
    let authorizationServer = first
    let challenges = 0
    const nonce = `rs-nonce-${randomUUID()}`
    let url = ""

    const unauthorized = (response: Http.ServerResponse, challenge: string, headers = {}) => {
      response.writeHead(401, { "www-authenticate": challenge, ...headers })
      response.end()
    }

    const accepted = (request: Http.IncomingMessage, response: Http.ServerResponse): boolean => {
      const metadata = `resource_metadata="${url.replace(/\/mcp$/, "")}/.well-known/oauth-protected-resource/mcp"`
      const [, scheme, token] = /^(\S+) (\S+)$/.exec(request.headers.authorization ?? "") ?? []
      const known = token === undefined ? undefined : book.get(token)
      if (known === undefined || known.issuer !== authorizationServer.issuer) {
        unauthorized(response, `Bearer error="invalid_token", ${metadata}`)
        return false
      }
      if (known.jkt === undefined) return scheme === "Bearer"
      const proof = request.headers.dpop as string | undefined
      if (scheme !== "DPoP" || proof === undefined) {
        unauthorized(response, `DPoP error="invalid_token", ${metadata}`)
        return false
      }
      const { header, claims } = readProof(proof)
      if (thumbprint(header.jwk) !== known.jkt || claims.htu !== url || claims.ath === undefined) {
        unauthorized(response, `DPoP error="invalid_token", ${metadata}`)
        return false
      }
      if (claims.nonce !== nonce) {
        challenges += 1
        unauthorized(response, `DPoP error="use_dpop_nonce"`, { "dpop-nonce": nonce })
        return false
      }
      return true
    }

    const { origin } = yield* listen(async (request, response) => {
      const path = request.url ?? ""
      if (path === "/.well-known/oauth-protected-resource/mcp") {
        json(response, 200, { resource: url, authorization_servers: [authorizationServer.issuer] })
        return
      }
      received.push({
        method: request.method ?? "",
        url: path,
        headers: request.headers,
        body: "",
      })
      if (!accepted(request, response)) return
      // Stateless: each request is a server and a transport of its own, as the SDK's example does.
      const server = new McpServer({ name: "profiled", version: "1.0.0" })
      server.registerTool("whoami", {}, () => ({ content: [{ type: "text", text: "hello" }] }))
      server.registerTool("leak", {}, (extra) => {
        const headers = extra.requestInfo?.headers ?? {}
        throw new Error(`you sent ${String(headers.authorization)} with ${String(headers.dpop)}`)
      })
      const transport = new StreamableHTTPServerTransport({})
      response.on("close", () => {
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      await transport.handleRequest(request, response)
    })
    url = `${origin}/mcp`
    return {
      url,
      received,
      nonce,
      nonceChallenges: () => challenges,
      moveTo: (server: AuthServer) => {
        authorizationServer = server
      },
      expire: () => book.clear(),
    } satisfies ProtectedMcpServer
  })
