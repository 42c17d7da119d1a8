/**
 * The client the MCP conformance suite drives (DECISIONS.md D30): `conformance client --command`
 * runs it with the scenario's server URL as its last argument and the scenario's name in
 * `MCP_CONFORMANCE_SCENARIO`. It connects through `McpToolbox.http`, lists the tools and calls the
 * one the scenario expects; a failure to connect, a missing tool or a failed result exits 1.
 */
import {
  auth,
  ClientCredentialsProvider,
  type OAuthClientProvider,
  PrivateKeyJwtProvider,
} from "@modelcontextprotocol/client"
import { type Tool, ToolCall } from "@svir/core"
import { Cause, Effect, Exit, Layer } from "effect"
import { Elicitation, McpToolbox } from "../../src/index.js"
import { HeadlessOAuthProvider, type PreRegistered } from "./headlessOAuth.js"

/** The tool each scenario's server offers for the client to call, and its arguments. */
const toolOf = (scenario: string): { readonly name: string; readonly args: string } | undefined => {
  if (scenario === "tools_call") return { name: "add_numbers", args: `{"a":5,"b":3}` }
  if (scenario === "sse-retry") return { name: "test_reconnection", args: "{}" }
  if (scenario === "elicitation-sep1034-client-defaults") {
    return { name: "test_client_elicitation_defaults", args: "{}" }
  }
  if (scenario.startsWith("auth/")) return { name: "test-tool", args: "{}" }
  // The input schema as the bridge offers it to the model goes back, to be compared with the
  // server's (2020-12 keywords kept).
  if (scenario === "json-schema-2020-12-preservation") return { name: "json_schema_echo", args: "" }
  // initialize: the server offers no tools; connecting and listing is the scenario.
  return undefined
}

/** The URL-based client id (SEP-991) the suite's auth/basic-cimd expects. */
const clientMetadataUrl = "https://conformance-test.local/client-metadata.json"

/**
 * Connections tried at most: one that gets the first authorization, one that may need more scope
 * (auth/scope-step-up), one that uses it. auth/scope-retry-limit allows 3 authorization requests.
 */
const maxAttempts = 3

/**
 * A user who accepts every form without filling in a field, as the suite's own client does:
 * the elicitation scenario (SEP-1034) checks that the client sends the schema's defaults for the
 * fields left out.
 */
const acceptingUser = Layer.succeed(Elicitation.Elicitation, {
  ask: () => Effect.succeed(Elicitation.accept({})),
})

/** The credentials of auth/pre-registration, which the suite passes in `MCP_CONFORMANCE_CONTEXT`. */
const preRegisteredOf = (context: string | undefined): PreRegistered | undefined => {
  if (context === undefined) return undefined
  const { client_id, client_secret } = JSON.parse(context)
  return typeof client_id === "string" && typeof client_secret === "string"
    ? { client_id, client_secret }
    : undefined
}

/**
 * The provider of the OAuth client credentials extension's scenarios (SEP-1046), from the
 * credentials the suite passes: a client secret (`client_secret_basic`) or a private key
 * (`private_key_jwt`). A program that acts for itself uses the same SDK providers (README).
 */
const clientCredentialsOf = (
  scenario: string,
  context: string | undefined,
): OAuthClientProvider | undefined => {
  if (context === undefined) return undefined
  const given = JSON.parse(context)
  if (scenario === "auth/client-credentials-basic") {
    return new ClientCredentialsProvider({
      clientId: given.client_id,
      clientSecret: given.client_secret,
    })
  }
  if (scenario === "auth/client-credentials-jwt") {
    return new PrivateKeyJwtProvider({
      clientId: given.client_id,
      privateKey: given.private_key_pem,
      algorithm: given.signing_algorithm,
    })
  }
  return undefined
}

/** A tool call the suite asks for in `MCP_CONFORMANCE_CONTEXT` (http-custom-headers). */
interface ContextCall {
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>>
}

const contextCallsOf = (context: string | undefined): ReadonlyArray<ContextCall> =>
  context === undefined ? [] : (JSON.parse(context).toolCalls ?? [])

/**
 * Arguments that fit a schema's required string properties, for a scenario that only looks at
 * which tools the client calls (http-invalid-tool-headers).
 */
const fillerArgs = (schema: Tool.Tool["inputSchema"]): string => {
  const required = Array.isArray(schema.required) ? schema.required : []
  return JSON.stringify(Object.fromEntries(required.map((name) => [String(name), "x"])))
}

/** Calls `name` with `args`; a failed result fails the scenario. */
const callTool = (toolbox: McpToolbox.McpToolbox, name: string, args: string) =>
  Effect.flatMap(toolbox.call(ToolCall.make(`call-${name}`, name, args)), (result) =>
    result.isError
      ? Effect.fail(`${name} failed: ${result.content}`)
      : Effect.succeed(`${name}: ${result.content}`),
  )

/**
 * The calls of the scenarios of protocol 2026-07-28 that look at more than one request: the
 * multi-round-trip tools (two of them at once, to show their answers stay apart), every feature
 * the standard headers are checked on, the calls the suite names, or every tool offered.
 */
const modernCalls = (
  scenario: string,
  toolbox: McpToolbox.McpToolbox,
  tools: ReadonlyArray<Tool.Tool>,
): Effect.Effect<ReadonlyArray<string>, unknown> | undefined => {
  if (scenario === "sep-2322-client-request-state") {
    return Effect.map(
      Effect.all(
        [
          Effect.all(
            [
              callTool(toolbox, "test_mrtr_echo_state", "{}"),
              callTool(toolbox, "test_mrtr_unrelated", "{}"),
            ],
            { concurrency: 2 },
          ),
          callTool(toolbox, "test_mrtr_no_state", "{}"),
          // The suite checks only that no answers are sent again; the SDK refuses a 2026-07-28
          // result without `resultType`, which the revision requires (D51).
          Effect.map(
            toolbox.call(ToolCall.make("call-no-result-type", "test_mrtr_no_result_type")),
            (result) => `test_mrtr_no_result_type: ${result.content}`,
          ),
        ],
        { concurrency: 1 },
      ),
      ([[echo, unrelated], noState, noResultType]) => [echo, unrelated, noState, noResultType],
    )
  }
  if (scenario === "http-standard-headers") {
    return Effect.gen(function* () {
      const called = yield* Effect.forEach(tools, (tool) => callTool(toolbox, tool.name, "{}"))
      const resources = yield* toolbox.resources.list
      const first = resources[0]
      if (first !== undefined) yield* toolbox.resources.read(first.uri)
      const prompts = yield* toolbox.prompts.list
      const prompt = prompts[0]
      if (prompt !== undefined) yield* toolbox.prompts.get(prompt.name, {})
      return [...called, `${resources.length} resources`, `${prompts.length} prompts`]
    })
  }
  if (scenario === "http-custom-headers") {
    return Effect.forEach(contextCallsOf(process.env.MCP_CONFORMANCE_CONTEXT), (call) =>
      callTool(toolbox, call.name, JSON.stringify(call.arguments)),
    )
  }
  if (scenario === "http-invalid-tool-headers") {
    return Effect.forEach(tools, (tool) =>
      callTool(toolbox, tool.name, fillerArgs(tool.inputSchema)),
    )
  }
  return undefined
}

/** One connection: list the tools and call the scenario's tool, or tools. */
const connectAndCall = (scenario: string, url: string, authProvider?: OAuthClientProvider) =>
  Effect.scoped(
    Effect.gen(function* () {
      const toolbox = yield* McpToolbox.http(
        authProvider === undefined ? { url } : { url, authProvider },
      )
      const tools = yield* toolbox.tools
      const offered = tools.map((tool) => tool.name)
      const calls = modernCalls(scenario, toolbox, tools)
      if (calls !== undefined) return (yield* calls).join("\n")
      const tool = toolOf(scenario)
      if (tool === undefined) return `listed ${offered.length} tools`
      if (!offered.includes(tool.name)) {
        return yield* Effect.fail(`the server does not offer ${tool.name} (it offers ${offered})`)
      }
      const schema = tools.find((tool) => tool.name === "json_schema_2020_12_tool")?.inputSchema
      return yield* callTool(
        toolbox,
        tool.name,
        tool.args === "" ? JSON.stringify({ schema }) : tool.args,
      )
    }),
  )

/**
 * Connects and calls again after the SDK's flow went to the authorization page: the bridge
 * leaves the code to its caller, who exchanges it with the SDK's `auth` and connects again
 * (the bridge's Authentication error says so). A failure after which no code came is final.
 * When the resource has moved to another authorization server, the redirect the SDK made went to
 * the old one, since the SDK keeps the discovery it made first and leaves dropping it to the host:
 * the discovery is dropped and the connection tried again, which finds the new server and
 * registers there (SEP-2352, D52). That is done once, and is not an attempt of its own.
 */
const withAuthorization = (
  scenario: string,
  url: string,
  provider: HeadlessOAuthProvider,
  attempt = 1,
  rediscovered = false,
): Effect.Effect<string, unknown> =>
  connectAndCall(scenario, url, provider).pipe(
    Effect.catch((failure) => {
      const redirect = provider.takeRedirect()
      if (redirect === undefined || attempt === maxAttempts) return Effect.fail(failure)
      const moved = rediscovered ? Promise.resolve(false) : provider.resourceMoved()
      return Effect.promise(() => moved).pipe(
        Effect.andThen((moved) => {
          if (moved) {
            provider.invalidateCredentials("discovery")
            return withAuthorization(scenario, url, provider, attempt, true)
          }
          const { code, iss } = redirect
          return Effect.tryPromise(() =>
            auth(provider, {
              serverUrl: url,
              authorizationCode: code,
              ...(iss === undefined ? {} : { iss }),
            }),
          ).pipe(
            Effect.andThen(withAuthorization(scenario, url, provider, attempt + 1, rediscovered)),
          )
        }),
      )
    }),
  )

const run = (scenario: string, url: string) => {
  const credentials = clientCredentialsOf(scenario, process.env.MCP_CONFORMANCE_CONTEXT)
  if (credentials !== undefined) {
    return connectAndCall(scenario, url, credentials).pipe(Effect.provide(acceptingUser))
  }
  return (
    scenario.startsWith("auth/")
      ? withAuthorization(
          scenario,
          url,
          new HeadlessOAuthProvider({
            clientName: "svir-mcp-bridge conformance client",
            clientMetadataUrl,
            preRegistered: preRegisteredOf(process.env.MCP_CONFORMANCE_CONTEXT),
          }),
        )
      : connectAndCall(scenario, url)
  ).pipe(Effect.provide(acceptingUser))
}

const scenario = process.env.MCP_CONFORMANCE_SCENARIO
const url = process.argv[2]
if (scenario === undefined || url === undefined) {
  console.error("usage: MCP_CONFORMANCE_SCENARIO=<scenario> client.ts <server-url>")
  process.exit(2)
}
const exit = await Effect.runPromiseExit(run(scenario, url))
if (Exit.isSuccess(exit)) console.log(exit.value)
else {
  console.error(Cause.pretty(exit.cause))
  process.exitCode = 1
}
