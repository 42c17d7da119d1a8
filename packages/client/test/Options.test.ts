import { assert, describe, it } from "@effect/vitest"
import { Request } from "@svir/core"
import { Answer, ScriptedServer } from "@svir/testing"
import { type Duration, Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { Client } from "../src/index.js"

const make = (options: Client.Options) =>
  Client.make({ baseUrl: "http://127.0.0.1:1", ...options }).pipe(
    Effect.provide(FetchHttpClient.layer),
  )

type DurationOption = (value: Duration.Input) => Client.Options

/** Options that are waits: finite and not negative. */
const waits: ReadonlyArray<readonly [string, DurationOption]> = [
  ["retry baseDelay", (value) => ({ retry: { baseDelay: value } })],
  ["retry maxDelay", (value) => ({ retry: { maxDelay: value } })],
  ["maxRetryAfter", (value) => ({ maxRetryAfter: value })],
  ["errorBodyTimeout", (value) => ({ errorBodyTimeout: value })],
]

/** Options that are time limits: more than 0, or Infinity for none. */
const limits: ReadonlyArray<readonly [string, DurationOption]> = [
  ["connect timeout", (value) => ({ timeouts: { connect: value } })],
  ["first token timeout", (value) => ({ timeouts: { firstToken: value } })],
  ["idle timeout", (value) => ({ timeouts: { idle: value } })],
  ["total timeout", (value) => ({ timeouts: { total: value } })],
]

/** Options that are counts. */
const counts: ReadonlyArray<readonly [string, (value: number) => Client.Options, number]> = [
  ["retry times", (value) => ({ retry: { times: value } }), 0],
  ["maxResponseBytes", (value) => ({ maxResponseBytes: value }), 1],
]

const refused = (options: Client.Options, name: string, given: string) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(make(options))
    assert.strictEqual(error.reason._tag, "Config", `${name} = ${given}`)
    assert.include(error.message, name)
  })

describe("numeric options", () => {
  it.effect("a wait refuses NaN, a negative and Infinity, and takes 0", () =>
    Effect.gen(function* () {
      for (const [name, option] of waits) {
        const bads: ReadonlyArray<Duration.Input> = [
          Number.NaN,
          -1,
          -0.5,
          Number.POSITIVE_INFINITY,
          "-5 seconds",
        ]
        for (const bad of bads) {
          yield* refused(option(bad), name, String(bad))
        }
        yield* make(option(0))
        yield* make(option("250 millis"))
      }
    }),
  )

  it.effect("a time limit refuses NaN, a negative and 0, and takes Infinity for no limit", () =>
    Effect.gen(function* () {
      for (const [name, option] of limits) {
        const bads: ReadonlyArray<Duration.Input> = [
          Number.NaN,
          -1,
          0,
          Number.NEGATIVE_INFINITY,
          "-1 minute",
        ]
        for (const bad of bads) {
          yield* refused(option(bad), name, String(bad))
        }
        yield* make(option(Number.POSITIVE_INFINITY))
        yield* make(option("Infinity"))
        yield* make(option(1.5))
      }
    }),
  )

  it.effect("a count refuses NaN, a negative, a fraction, Infinity and too little", () =>
    Effect.gen(function* () {
      for (const [name, option, least] of counts) {
        for (const bad of [Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY, least - 1, 2 ** 53]) {
          yield* refused(option(bad), name, String(bad))
        }
        yield* make(option(least))
      }
    }),
  )

  it.live("an infinite time limit is no limit: the answer is waited for", () =>
    Effect.gen(function* () {
      const server = yield* ScriptedServer.start([
        Answer.text("in time", { quirks: { firstTokenDelayMillis: 30 } }),
      ])
      const client = yield* make({
        baseUrl: server.url,
        timeouts: { connect: Infinity, firstToken: Infinity, idle: Infinity, total: Infinity },
      })
      const done = yield* client.complete(Request.make("m").pipe(Request.user("Hi")))
      assert.strictEqual(done.text, "in time")
    }),
  )
})
