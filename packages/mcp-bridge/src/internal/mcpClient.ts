import { Client } from "@modelcontextprotocol/client"
import { type Redaction, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Elicitation from "../Elicitation.js"
import { answerElicitation, type ElicitationSettings } from "./elicitationHandler.js"
import { type InputAnswerer, inputAnswerer, maxInputRounds } from "./inputRequests.js"
import { makeSchemaValidator } from "./schemaValidator.js"

/** How the bridge names itself to a server in `initialize`. */
const clientInfo = { name: "svir-mcp-bridge", version: "0.1.0" }

/** Ten minutes: the wait server-everything itself gives a user (D27). */
const defaultElicitationTimeoutMillis = 600_000

/** A directory the user lets servers work in. */
interface Root {
  readonly uri: string
  readonly name?: string | undefined
}

/** What the bridge's Clients answer besides tools: the same for every connection of a toolbox. */
export interface ClientFeatures {
  readonly elicitation: ElicitationSettings
  /** Declared and listed when given; fixed for the toolbox's life (D28). */
  readonly roots: ReadonlyArray<Root> | undefined
}

/** The options of a toolbox that shape its Clients. */
export interface FeatureOptions {
  readonly roots?: ReadonlyArray<Root> | undefined
  readonly elicitationTimeoutMillis?: number | undefined
}

/**
 * The features of a toolbox's Clients, read once when the toolbox is made: the Elicitation
 * service if it is provided (so that it is not a requirement of the constructors), the services
 * its `ask` will run with, and the roots, each of which must be a `file://` URI (a Config error
 * otherwise, as the SDK's schema requires it).
 */
export const clientFeatures = (
  options: FeatureOptions,
  redaction: Redaction.Redaction,
): Effect.Effect<ClientFeatures, SvirError.SvirError> =>
  Effect.gen(function* () {
    for (const root of options.roots ?? []) {
      if (!root.uri.startsWith("file://") || !URL.canParse(root.uri)) {
        return yield* SvirError.make(
          "Config",
          `the root ${JSON.stringify(root.uri)} is not a file:// URI`,
        )
      }
    }
    return {
      elicitation: {
        service: yield* Effect.serviceOption(Elicitation.Elicitation),
        context: yield* Effect.context<never>(),
        timeoutMillis: options.elicitationTimeoutMillis ?? defaultElicitationTimeoutMillis,
        redaction,
      },
      roots: options.roots?.map((root) => ({ ...root })),
    }
  })

/**
 * A new, unconnected SDK Client for one connection to a server, with its handlers installed. It
 * declares form elicitation, with defaults applied (D25, D26) and, when roots are given, `roots` without `listChanged`
 * (D28). One schema validator serves both the SDK's checks of tool output and the elicitation
 * handler's check of the user's content: the bridge's, which runs a server's patterns with RE2
 * and refuses schemas too large to compile quickly (D38, D40). It negotiates the protocol's era
 * with each server (D48); `probeTimeoutMillis` bounds the wait for the answer to `server/discover`
 * where no answer means an older server (stdio), rather than the whole time of connecting.
 */
export const makeClient = (features: ClientFeatures, probeTimeoutMillis?: number): Client => {
  const validator = makeSchemaValidator()
  const roots = features.roots
  const client = new Client(clientInfo, {
    capabilities: {
      elicitation: { form: { applyDefaults: true } },
      ...(roots === undefined ? {} : { roots: {} }),
    },
    jsonSchemaValidator: validator.sdk,
    // Each connection speaks the server's era: 2026-07-28 when `server/discover` says so, the
    // 2025 `initialize` handshake otherwise (D48).
    // On a 2026-07-28 connection the server sends list changes only on a `subscriptions/listen`
    // stream, which this opens; the toolbox's own handler of the notification reads them, on
    // either era, and lists the tools itself, within its bounds (D48).
    listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => {} } },
    // `prompts/get` and `resources/read` keep the SDK's own answering of `input_required`,
    // through the handlers below; a tool call answers it itself (D51).
    inputRequired: { maxRounds: maxInputRounds },
    versionNegotiation: {
      mode: "auto",
      ...(probeTimeoutMillis === undefined ? {} : { probe: { timeoutMs: probeTimeoutMillis } }),
    },
  })
  const serverName = () => client.getServerVersion()?.name
  client.setRequestHandler(
    "elicitation/create",
    answerElicitation(features.elicitation, validator, serverName),
  )
  if (roots !== undefined) {
    const listed = { roots: [...roots] }
    client.setRequestHandler("roots/list", () => listed)
  }
  answerers.set(client, inputAnswerer(features.elicitation, roots, validator, serverName))
  return client
}

/** How each Client made by {@link makeClient} answers a tool call's `input_required` (D51). */
const answerers = new WeakMap<Client, InputAnswerer>()

/**
 * How a tool call on `client` answers a server's `input_required` result, in the call's fiber;
 * none for a Client the caller brought (`fromClient`), whose own handlers the SDK calls.
 */
export const inputAnswererOf = (client: Client): InputAnswerer | undefined => answerers.get(client)
