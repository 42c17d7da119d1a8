import { PgClient } from "@effect/sql-pg"
import { Layer, Option, Redacted } from "effect"
import * as ClusterWorkflowEngine from "effect/cluster/ClusterWorkflowEngine"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as SingleRunner from "effect/cluster/SingleRunner"
import * as Digest from "effect/crypto/Digest"

/**
 * Effect's workflow engine on its cluster, with every message, reply and shard lock in
 * PostgreSQL: a runner at `port` (an address only: runners talk through the database), or a
 * client that starts runs and reads results and runs none (`port` undefined).
 */
export const engine = (url: string, port: number | undefined) =>
  ClusterWorkflowEngine.layer.pipe(
    Layer.provideMerge(
      SingleRunner.layer({
        shardingConfig: {
          runnerAddress:
            port === undefined ? Option.none() : Option.some(RunnerAddress.make("127.0.0.1", port)),
          entityMessagePollInterval: "100 millis",
          entityReplyPollInterval: "50 millis",
          refreshAssignmentsInterval: "200 millis",
          shardLockRefreshInterval: "1 second",
          shardLockExpiration: "4 seconds",
        },
      }),
    ),
    Layer.provide(Digest.layerWebCrypto),
    Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 8 })),
  )
