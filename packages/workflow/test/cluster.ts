import { PgClient } from "@effect/sql-pg"
import { type Duration, Layer, Option, Redacted } from "effect"
import * as ClusterWorkflowEngine from "effect/cluster/ClusterWorkflowEngine"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as SingleRunner from "effect/cluster/SingleRunner"
import * as Digest from "effect/crypto/Digest"

/**
 * How often a runner renews its shard locks, and how old a lock is before another runner takes
 * its shards. Under heavy load 1 s and 4 s lost shards to a runner that was alive (a renewal came
 * late), so a test that shares work between runners takes longer ones.
 */
export interface Timings {
  readonly shardLockRefresh: Duration.Input
  readonly shardLockExpiration: Duration.Input
}

/** Fast takeover, for runners that follow one another at the same address. */
export const quick: Timings = { shardLockRefresh: "1 second", shardLockExpiration: "4 seconds" }

/**
 * Effect's workflow engine on its cluster, with every message, reply and shard lock in
 * PostgreSQL: a runner at `port` (an address only: runners talk through the database), or a
 * client that starts runs and reads results and runs none (`port` undefined).
 */
export const engine = (url: string, port: number | undefined, timings: Timings = quick) =>
  ClusterWorkflowEngine.layer.pipe(
    Layer.provideMerge(
      SingleRunner.layer({
        shardingConfig: {
          runnerAddress:
            port === undefined ? Option.none() : Option.some(RunnerAddress.make("127.0.0.1", port)),
          entityMessagePollInterval: "100 millis",
          entityReplyPollInterval: "50 millis",
          refreshAssignmentsInterval: "200 millis",
          shardLockRefreshInterval: timings.shardLockRefresh,
          shardLockExpiration: timings.shardLockExpiration,
        },
      }),
    ),
    Layer.provide(Digest.layerWebCrypto),
    Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 8 })),
  )
