import type { Client } from "@modelcontextprotocol/client"
import { type Redaction, SvirError, Text } from "@svir/core"
import * as Effect from "effect/Effect"
import { makeConnectionState } from "./connection.js"
import { connectWithVerdict, type EraVerdict } from "./eraVerdict.js"
import { isNotConnected, toSvirError } from "./failure.js"
import { makeTail } from "./process.js"
import type { Connector } from "./session.js"
import { GroupStdioTransport, type StdioParameters } from "./stdioTransport.js"

const stderrTailChars = 2_000

/** What starting a server takes. */
export interface StdioSettings {
  /** What the transport starts; what the server writes to stderr is kept per process. */
  readonly parameters: Omit<StdioParameters, "onStderr">
  /** How long starting and initializing may take. */
  readonly connectTimeoutMillis: number
  /** Applied to the errors of a start, which quote the server's stderr. */
  readonly redaction: Redaction.Redaction
  /** A new, unconnected Client for the process. */
  readonly newClient: () => Client
  /** The era of the server's last connection, kept for the next (D48). */
  readonly verdict: EraVerdict
}

interface StdioChild {
  readonly client: Client
  readonly transport: GroupStdioTransport
  pid: number | undefined
  connected: boolean
}

/**
 * Starts the server in a process group of its own (D1) and connects to it: one process per
 * connection, whose end of stderr goes into its errors and into the reason its calls fail when it
 * exits. When the Scope closes, the whole group is stopped and waited for.
 */
export const connectStdio = (settings: StdioSettings): Connector =>
  Effect.gen(function* () {
    const { redaction } = settings
    // Each process has its own last words: a restarted server's are not the exited one's.
    const stderr = makeTail(stderrTailChars)
    // The server's words, quoted as a JSON string so that they cannot pass for svir's own, with
    // what a terminal would act on taken out, as they end up printed (D35). Redacted once
    // the controls are out, so that none written inside a secret keeps it from being found.
    const lastWords = () => {
      const text = redaction.text(Text.printable(stderr.text())).trim()
      return text === ""
        ? ""
        : `; the end of the server's own output on stderr: ${JSON.stringify(text)}`
    }
    const child = yield* Effect.acquireRelease(
      Effect.sync(
        (): StdioChild => ({
          client: settings.newClient(),
          transport: new GroupStdioTransport({ ...settings.parameters, onStderr: stderr.push }),
          pid: undefined,
          connected: false,
        }),
      ),
      closeStdio,
    )
    yield* Effect.tryPromise({
      try: (signal) => {
        const connecting = connectWithVerdict(settings.verdict, child.client, child.transport, {
          signal,
          timeout: settings.connectTimeoutMillis,
        })
        // The process is spawned before connect first waits; a failed connect forgets its id.
        child.pid = child.transport.pid
        return connecting
      },
      catch: (error) => {
        const command = settings.parameters.command
        const failure = toSvirError(`starting the MCP server ${command}`, error)
        return redaction.error(
          SvirError.make(failure.reason._tag, `${failure.message}${lastWords()}`, { cause: error }),
        )
      },
    })
    child.connected = true
    const state = makeConnectionState(() => `the server process exited${lastWords()}`)
    return {
      client: child.client,
      state,
      pid: child.pid,
      network: "pipe",
      // A request sent after the process exited, before the bridge heard of it, never left.
      unreached: (error) => (isNotConnected(error) ? state.closeReason() : undefined),
    }
  })

// A server that never finished initializing is owed no graceful end of input: it is sent
// SIGTERM at once, so that a failed start does not leave it running for a grace period.
const closeStdio = (child: StdioChild): Effect.Effect<void> =>
  Effect.promise(async () => {
    await child.transport.stop(child.connected)
    await child.client.close().catch(() => undefined)
  })
