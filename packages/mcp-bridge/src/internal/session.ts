import type { Client } from "@modelcontextprotocol/client"
import { type Redaction, SvirError } from "@svir/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import type { ConnectionState } from "./connection.js"
import { toSvirError } from "./failure.js"

/** One connection to the server: a connected Client, and what the bridge knows of it. */
export interface Connection {
  readonly client: Client
  readonly state: ConnectionState
  /** The id of the server process, for a server this package started. */
  readonly pid: number | undefined
  /** How the messages travel, for spans: `pipe` (stdio), `tcp` (HTTP); unknown for a caller's Client. */
  readonly network: "pipe" | "tcp" | undefined
  /**
   * Why a request that failed with `error` did not reach the server's session (the server could
   * not be reached, or no longer knows the session), so that a new connection may take it; or
   * undefined when the server may have acted on it, which must then not be sent again (D13).
   */
  readonly unreached: (error: unknown) => string | undefined
}

/** Makes one connection, which lives until the Scope closes. */
export type Connector = Effect.Effect<Connection, SvirError.SvirError, Scope.Scope>

/** How a connection that was lost is made again (D14). */
export interface ReconnectPolicy {
  /** The most tries at connecting again, each time a call finds the connection lost. */
  readonly attempts: number
  /** The wait before the second try, doubled for each try after it. */
  readonly backoffMillis: number
}

/** What a session does besides connecting. */
export interface SessionSettings {
  /** How a lost connection is made again; none: it stays lost. */
  readonly reconnect: ReconnectPolicy | undefined
  /** Applied to every error of the session. */
  readonly redaction: Redaction.Redaction
  /** Run on every new connection, in its Scope: hooks the toolbox into its Client. */
  readonly onConnection: (connection: Connection) => Effect.Effect<void, never, Scope.Scope>
  /** Run once a new connection has replaced a lost one: the tools are listed again (D16). */
  readonly afterReconnect: Effect.Effect<void>
}

/**
 * The connection a toolbox sends on, made again when it is lost, as its policy allows. Modules
 * that send requests of their own (resources, prompts) use `withClient`, or `current().client`
 * for a Client they only read.
 */
export interface Session {
  /** The connection now. Read on every call, so a plain function. */
  readonly current: () => Connection
  /** Whether a lost connection is made again. */
  readonly reconnects: boolean
  /**
   * Replaces `stale`, lost for the reason `why`, with a new connection, and lists the tools again;
   * gives the connection that replaced it when another caller did so first. Calls that wait while
   * a replacement is tried share its outcome. Fails, saying `why` and how many tries failed, when
   * the policy allows none or every try failed; a later call tries again.
   */
  readonly replace: (
    stale: Connection,
    why: string,
  ) => Effect.Effect<Connection, SvirError.SvirError>
  /** The connection now, or a new one when it has closed and the policy allows. */
  readonly live: Effect.Effect<Connection, SvirError.SvirError>
  /**
   * Runs `request` with the Client of the live connection. A request that did not reach the
   * server (D13) is sent once more on a new connection, when the policy allows: give one that
   * makes sense in a new session (not the next page of a listing). Failures are typed, redacted
   * errors that say what was being done (`doing`).
   */
  readonly withClient: <A>(
    doing: string,
    request: (client: Client, signal: AbortSignal) => Promise<A>,
  ) => Effect.Effect<A, SvirError.SvirError>
}

/**
 * A connection given up for a new one is closed with this exit, so that it ends without a word to
 * the server (the session it had is gone, or the server cannot be reached); a connection closed
 * with the toolbox is closed with success.
 */
const leftBehind: Exit.Exit<never, string> = Exit.fail("replaced by a new connection")

interface Opened {
  readonly connection: Connection
  readonly scope: Scope.Closeable
}

/** One connection in a Scope of its own, closed at once if the connection cannot be made. */
const open = (
  connect: Connector,
  onConnection: SessionSettings["onConnection"],
): Effect.Effect<Opened, SvirError.SvirError> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const connection = yield* restore(
        connect.pipe(Effect.tap(onConnection), Scope.provide(scope)),
      ).pipe(Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause))))
      return { connection, scope }
    }),
  )

/** The same error, its message after `first`. */
const retold = (first: string, error: SvirError.SvirError): SvirError.SvirError =>
  new SvirError.SvirError({
    reason: error.reason,
    message: `${first}${error.message}`,
    cause: error,
  })

/**
 * Makes the first connection (its failure is the constructor's), and a session that replaces it
 * when it is lost. When the Scope closes, the connection of the moment is closed; a replacement
 * still being tried then is closed as soon as it is made.
 */
export const makeSession = (
  connect: Connector,
  settings: SessionSettings,
): Effect.Effect<Session, SvirError.SvirError, Scope.Scope> =>
  Effect.gen(function* () {
    const { reconnect: policy, redaction, onConnection } = settings
    const opened = SynchronizedRef.makeUnsafe(yield* open(connect, onConnection))
    // Read on every call: a plain field, written under the ref's lock.
    let current = SynchronizedRef.getUnsafe(opened).connection
    let ended = false
    // Replacements tried so far, and how the last one failed: calls that waited while one was
    // tried get its failure rather than trying again, one after another.
    let rounds = 0
    let lastFailure: SvirError.SvirError | undefined
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        ended = true
        return Scope.close(SynchronizedRef.getUnsafe(opened).scope, Exit.void)
      }),
    )

    const reopen = (
      why: string,
      policy: ReconnectPolicy,
    ): Effect.Effect<Opened, SvirError.SvirError> => {
      let attempts = 0
      return Effect.suspend(() => {
        attempts++
        return open(connect, onConnection)
      }).pipe(
        Effect.retry({
          schedule: Schedule.exponential(Duration.millis(policy.backoffMillis)),
          times: policy.attempts - 1,
        }),
        Effect.mapError((last) => {
          const tries = attempts === 1 ? "once" : `${attempts} times`
          return redaction.error(retold(`${why}; connecting again failed ${tries}: `, last))
        }),
      )
    }

    const replaceUnderLock = (
      now: Opened,
      why: string,
      policy: ReconnectPolicy,
    ): Effect.Effect<readonly [Connection, Opened], SvirError.SvirError> =>
      Effect.gen(function* () {
        now.connection.state.markClosed(why)
        yield* Scope.close(now.scope, leftBehind)
        const next = yield* reopen(why, policy)
        if (ended) {
          yield* Scope.close(next.scope, Exit.void)
          return yield* SvirError.make("Transport", `${why}; the toolbox has been closed`)
        }
        current = next.connection
        yield* settings.afterReconnect
        return [next.connection, next] as const
      }).pipe(
        Effect.tapError((error) =>
          Effect.sync(() => {
            lastFailure = error
          }),
        ),
        Effect.ensuring(
          Effect.sync(() => {
            rounds++
          }),
        ),
      )

    const replace = (
      stale: Connection,
      why: string,
    ): Effect.Effect<Connection, SvirError.SvirError> =>
      Effect.suspend(() => {
        const seen = rounds
        return SynchronizedRef.modifyEffect(opened, (now) => {
          if (now.connection !== stale) return Effect.succeed([now.connection, now] as const)
          if (rounds !== seen && lastFailure !== undefined) return Effect.fail(lastFailure)
          if (policy === undefined || ended) {
            const after = ended
              ? "the toolbox has been closed"
              : "this toolbox does not connect again"
            return Effect.fail(redaction.error(SvirError.make("Transport", `${why}; ${after}`)))
          }
          return replaceUnderLock(now, why, policy)
        })
      })

    const live = Effect.suspend(() => {
      const connection = current
      const closed = connection.state.closed()
      return closed === undefined ? Effect.succeed(connection) : replace(connection, closed)
    })

    const withClient = <A>(
      doing: string,
      request: (client: Client, signal: AbortSignal) => Promise<A>,
    ): Effect.Effect<A, SvirError.SvirError> => {
      const attempt = (
        connection: Connection,
        mayResend: boolean,
      ): Effect.Effect<A, SvirError.SvirError> =>
        Effect.tryPromise({
          try: (signal) => request(connection.client, signal),
          catch: (cause) => ({ cause }),
        }).pipe(
          Effect.catch(({ cause: error }) => {
            const why = mayResend && policy !== undefined ? connection.unreached(error) : undefined
            return why === undefined
              ? Effect.fail(redaction.error(toSvirError(doing, error)))
              : Effect.flatMap(replace(connection, why), (next) => attempt(next, false))
          }),
        )
      return live.pipe(
        Effect.mapError((error) => retold(`${doing} failed: `, error)),
        Effect.flatMap((connection) => attempt(connection, true)),
      )
    }

    return {
      current: () => current,
      reconnects: policy !== undefined,
      replace,
      live,
      withClient,
    }
  })
