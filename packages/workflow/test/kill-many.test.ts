/**
 * Two runner processes share a hundred runs through PostgreSQL (D6); one is killed with SIGKILL
 * while half the runs wait in the middle of their last model stream. The other takes its shards
 * once their locks expire, and every run finishes, once.
 */
import { layer } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { expect } from "vitest"
import * as Database from "./database.js"
import { agent, type LogLine, question } from "./fixtures/agent.js"
import { KillSetup, layer as killSetup } from "./killSetup.js"
import type { Received, Reply } from "./modelServer.js"
import * as Runners from "./runners.js"

const runs = 100
const orders = Array.from({ length: runs }, (_, i) => i + 1)
const asked = (order: number) => `Where is order ${order}?`
const orderOf = (conversation: string) => Number(/order (\d+)/.exec(conversation)?.[1])

/** Each run asks for its order, then answers with it. */
const answer = (request: Received): Reply => {
  const order = orderOf(request.conversation)
  return request.step === 0
    ? {
        _tag: "Calls",
        calls: [{ id: `call_${order}`, name: "lookup", arguments: JSON.stringify({ id: order }) }],
      }
    : { _tag: "Text", text: `Order ${order} is shipped.` }
}

/** Runs above this order wait in their last model stream until the kill. */
const heldAbove = runs / 2

const timeout = 120_000

/** Two addresses: the second runner takes the first's shards only once their locks expire. */
const base = 20_000 + Math.floor(Math.random() * 40_000)

const lastAnswers = (received: ReadonlyArray<Received>, held: boolean) =>
  received.filter(
    (request) => request.step === 1 && orderOf(request.conversation) > heldAbove === held,
  )

/** How many runs have their result stored (a reply to the run's message). */
const storedRuns = (url: string) =>
  Effect.map(
    Database.withClient(
      url,
      (sql) => sql<{ runs: string }>`
        SELECT count(DISTINCT m.entity_id)::text AS runs FROM cluster_messages m
        JOIN cluster_replies r ON r.request_id = m.request_id
        WHERE m.tag = 'run'`,
    ),
    (rows) => Number(rows[0]?.runs),
  )

const toolLines = (lines: ReadonlyArray<LogLine>) =>
  lines.flatMap((line) => (line._tag === "Tool" ? [line] : []))

layer(
  // Longer locks than kill.test.ts (D11): a lock operation may take a third of the expiration,
  // and two runners on a loaded machine lost shards to each other with less.
  killSetup("svir_kill_many", answer, {
    shardLockRefresh: "4 seconds",
    shardLockExpiration: "15 seconds",
  }),
  { timeout: "120 seconds", excludeTestServices: true },
)("two runners, one killed", (it) => {
  it.effect(
    "finish every one of a hundred runs, none twice, and run no recorded tool again",
    (test) =>
      Effect.gen(function* () {
        const setup = yield* KillSetup
        const { server } = setup
        const killed = setup.config(base)
        Runners.createLog(killed.log)
        server.hold((request) => request.step === 1 && orderOf(request.conversation) > heldAbove)
        const [first, second] = yield* Effect.all(
          [
            Runners.start(test, "first", killed),
            Runners.start(test, "second", setup.config(base + 1)),
          ],
          { concurrency: 2 },
        )
        yield* Effect.forEach(
          orders,
          (order) => agent.start(`order-${order}`, question(asked(order))),
          {
            concurrency: 10,
          },
        )
        // Some runs finished, the others wait in their last model stream: every tool has run and
        // been recorded (the next model call follows the record).
        yield* server.until(
          (received) =>
            lastAnswers(received, false).filter((request) => request.finished).length ===
              heldAbove &&
            lastAnswers(received, true).filter((request) => request.held).length ===
              runs - heldAbove,
        )
        // A last answer streamed whole is not yet a recorded one: its activity's result, and the
        // run's, are written after it. Only once every run that is not held has its result stored
        // is none of them asked for again after the kill.
        yield* Effect.repeat(storedRuns(setup.databaseUrl), {
          until: (stored) => stored === heldAbove,
          schedule: Schedule.spaced("50 millis"),
        })
        const before = toolLines(Runners.lines(killed.log))
        const cutOff = before.filter(
          (line) => line.pid === first.pid && Number(line.call.slice(5)) > heldAbove,
        )
        // Both runners took runs, and the one killed holds some that have not finished.
        expect(cutOff.length).toBeGreaterThan(0)
        expect(before.some((line) => line.pid === second.pid)).toBe(true)
        yield* first.kill
        server.release()

        const results = yield* Effect.forEach(
          orders,
          (order) => agent.run(`order-${order}`, question(asked(order))),
          { concurrency: "unbounded" },
        )
        expect(results.map((result) => result.text)).toEqual(
          orders.map((order) => `Order ${order} is shipped.`),
        )

        // Each tool ran once: all had been recorded before the kill.
        const ran = toolLines(Runners.lines(killed.log))
        expect(ran.length).toBe(runs)
        expect(new Set(ran.map((line) => line.call)).size).toBe(runs)
        // Each run's last answer was read whole once; the killed runner's were asked for again.
        const whole = lastAnswers(server.received, false)
          .concat(lastAnswers(server.received, true))
          .filter((request) => request.finished)
          .map((request) => orderOf(request.conversation))
        expect([...whole].sort((a, b) => a - b)).toEqual(orders)
        for (const line of cutOff) {
          const order = Number(line.call.slice(5))
          const sent = server.received.filter(
            (request) => request.step === 1 && orderOf(request.conversation) === order,
          )
          expect(sent.map((request) => request.finished)).toEqual([false, true])
        }
        // And each run's result was stored once.
        const stored = yield* Database.withClient(
          setup.databaseUrl,
          (sql) => sql<{ entity_id: string; replies: string }>`
            SELECT m.entity_id, count(r.id)::text AS replies FROM cluster_messages m
            JOIN cluster_replies r ON r.request_id = m.request_id
            WHERE m.tag = 'run' GROUP BY m.entity_id`,
        )
        expect(stored.length).toBe(runs)
        expect(stored.every((row) => row.replies === "1")).toBe(true)
      }).pipe(Effect.scoped),
    timeout,
  )
})
