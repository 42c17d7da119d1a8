/**
 * What a kill test file shares: a database of its own, the model server, a folder for the tool
 * log and the gate, the secrets the runners' client carries, and a client engine (this process
 * starts runs and reads results, and runs none).
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Effect, Layer, References } from "effect"
import { engine, type Timings } from "./cluster.js"
import * as Database from "./database.js"
import type { RunnerConfig } from "./fixtures/agent.js"
import * as ModelServer from "./modelServer.js"

export interface Shared {
  readonly databaseUrl: string
  readonly server: ModelServer.ModelServer
  readonly folder: string
  /** The config of a runner at `port`. */
  readonly config: (port: number) => RunnerConfig
}

export class KillSetup extends Context.Service<KillSetup, Shared>()("test/KillSetup") {}

const secret = (prefix: string) => `${prefix}${randomBytes(12).toString("hex")}`

/** The secrets a runner carries: the API key, a header's value, a tool's bearer token. */
export const secrets = {
  apiKey: secret("sk-test-"),
  tenantKey: secret("tenant-"),
  invoiceToken: secret("oauth-"),
}

const millis = (duration: `${number} seconds`) => Number.parseFloat(duration) * 1000

/**
 * The set-up of one test file, with a client engine on its database; everything is closed, the
 * database dropped and the folder removed when the file's layer is.
 */
export const layer = (
  prefix: string,
  answer: (request: ModelServer.Received) => ModelServer.Reply,
  timings: {
    readonly shardLockRefresh: `${number} seconds`
    readonly shardLockExpiration: `${number} seconds`
  },
) => {
  const shared = Layer.effect(
    KillSetup,
    Effect.gen(function* () {
      const database = yield* Database.fresh(prefix)
      const server = yield* ModelServer.serve(answer)
      const folder = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), `${prefix}-`))),
        (made) => Effect.sync(() => rmSync(made, { recursive: true, force: true })),
      )
      return {
        databaseUrl: database.url,
        server,
        folder,
        config: (port: number): RunnerConfig => ({
          databaseUrl: database.url,
          port,
          modelUrl: server.url,
          ...secrets,
          log: join(folder, "tools.log"),
          gate: join(folder, "open"),
          shardLockRefreshMillis: millis(timings.shardLockRefresh),
          shardLockExpirationMillis: millis(timings.shardLockExpiration),
        }),
      }
    }),
  )
  const engineTimings: Timings = timings
  const client = Layer.unwrap(
    Effect.gen(function* () {
      const setup = yield* KillSetup
      return engine(setup.databaseUrl, undefined, engineTimings)
    }),
  )
  return Layer.provideMerge(client, shared).pipe(
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Warn")),
  )
}
