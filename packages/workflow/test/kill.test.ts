/**
 * Runners killed with SIGKILL at the worst moments, on Effect's cluster in PostgreSQL (D6): each
 * runner is a process of its own (`test/fixtures/runner.ts`); this process starts the runs and
 * reads their results through a client engine, and the model is an HTTP server here. The runner
 * that takes over is started at the same address as the one killed, so it takes the shards at
 * once rather than after the lock expires (`kill-many.test.ts` covers the expiry).
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { layer } from "@effect/vitest"
import { ToolCall } from "@svir/core"
import { Approval, type Loop } from "@svir/loop"
import { Effect, Layer } from "effect"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import { expect } from "vitest"
import { DurableLoop } from "../src/index.js"
import * as Database from "./database.js"
import { agent, type LogLine, question, registered } from "./fixtures/agent.js"
import { KillSetup, layer as killSetup, secrets } from "./killSetup.js"
import type { Received, Reply } from "./modelServer.js"
import * as Runners from "./runners.js"

const lookup = "Where is order 42?"
const ship = "Ship order 7."
const refund = "Refund order 9."
const invoice = "Send me the invoice of order 5."
const cancel = "Cancel order 3."

/** The MCP server whose `cancel` tool asks before it acts, which the runners run over stdio. */
const mcpServer = fileURLToPath(new URL("./fixtures/cancel-server.mjs", import.meta.url))

/** The confirmation a person gives to the `cancel` tool's form. */
const confirmed = { confirm: { action: "accept", content: { confirm: true } } }

/** The model's side of each conversation, by its question and step. */
const answer = (request: Received): Reply => {
  const step = request.step
  switch (request.conversation) {
    case lookup:
      return step === 0
        ? { _tag: "Calls", calls: [{ id: "call_l0", name: "lookup", arguments: '{"id":42}' }] }
        : { _tag: "Text", text: "Order 42 is shipped and should arrive on Monday." }
    case ship:
      if (step === 0) {
        return { _tag: "Calls", calls: [{ id: "call_s0", name: "lookup", arguments: '{"id":7}' }] }
      }
      return step === 1
        ? { _tag: "Calls", calls: [{ id: "call_s1", name: "ship", arguments: '{"id":7}' }] }
        : { _tag: "Text", text: "Order 7 is on its way." }
    case refund:
      return step === 0
        ? { _tag: "Calls", calls: [{ id: "call_r0", name: "refund", arguments: '{"id":9}' }] }
        : { _tag: "Text", text: "Order 9 is refunded." }
    case cancel:
      return step === 0
        ? { _tag: "Calls", calls: [{ id: "call_c0", name: "cancel", arguments: '{"id":3}' }] }
        : { _tag: "Text", text: "Order 3 is cancelled." }
    case invoice:
      if (step === 0) {
        return { _tag: "Calls", calls: [{ id: "call_i0", name: "invoice", arguments: '{"id":5}' }] }
      }
      // A server that echoes the credentials it refused, as some proxies do.
      return {
        _tag: "Status",
        status: 401,
        body: JSON.stringify({
          error: {
            message: `invalid credentials: ${request.headers.authorization} for ${request.headers["x-tenant-key"]}`,
            type: "invalid_request_error",
          },
        }),
      }
    default:
      return { _tag: "Status", status: 500, body: '{"error":{"message":"no script"}}' }
  }
}

/** Generous: a loaded machine with two cores starts four Node processes per test. */
const timeout = 120_000

/** The address every runner of this file takes, so that each follows the last at once. */
const port = 20_000 + Math.floor(Math.random() * 40_000)

/** What a run left behind: its conversation, steps, usage and how it stopped. */
const conversation = (result: Loop.Result) =>
  JSON.stringify({ ...result, request: result.request.messages })

/**
 * The same question, run undisturbed in this process on the in-memory engine, with the same
 * model server and tools (the gate open); an approval allowed, or a tool's question confirmed,
 * as soon as it is asked for.
 */
const undisturbed = (name: string, text: string, asks?: "approval" | "input") =>
  Effect.gen(function* () {
    const setup = yield* KillSetup
    const log = join(setup.folder, `undisturbed-${name}.log`)
    Runners.createLog(log)
    return yield* Effect.gen(function* () {
      const config = { ...setup.config(port), log, mcpServer }
      yield* Layer.build(registered(config, () => Promise.resolve()))
      const id = `undisturbed-${name}`
      yield* agent.start(id, question(text))
      if (asks === "approval") {
        const asked = yield* Runners.untilLogged(log, askedIn)
        yield* DurableLoop.approve(asked.token, toolCall(asked.call), Approval.allow)
      }
      if (asks === "input") {
        const asked = yield* Runners.untilLogged(log, inputIn)
        yield* DurableLoop.answer(asked.token, toolCall(asked.call), confirmed)
      }
      return yield* agent.run(id, question(text))
    }).pipe(Effect.scoped, Effect.provide(WorkflowEngine.layerMemory))
  })

const askedIn = (lines: ReadonlyArray<LogLine>) => lines.find((line) => line._tag === "Ask")

const inputIn = (lines: ReadonlyArray<LogLine>) => lines.find((line) => line._tag === "Input")

const toolCall = (call: {
  readonly id: string
  readonly name: string
  readonly arguments: string
}) => ToolCall.make(call.id, call.name, call.arguments)

/** The tool lines of the log for one call. */
const ranFor = (lines: ReadonlyArray<LogLine>, call: string) =>
  lines.flatMap((line) => (line._tag === "Tool" && line.call === call ? [line] : []))

/** The requests for one conversation that came after `from`. */
const requestsFor = (received: ReadonlyArray<Received>, from: number, text: string) =>
  received.slice(from).filter((request) => request.conversation === text)

layer(
  killSetup("svir_kill", answer, {
    shardLockRefresh: "2 seconds",
    shardLockExpiration: "10 seconds",
  }),
  {
    timeout: "120 seconds",
    // The runners' shard locks and the engine's polls run on the real clock, not a TestClock.
    excludeTestServices: true,
  },
)("runners killed with SIGKILL", (it) => {
  it.effect(
    "a run whose runner died during a model stream finishes in the next with the same conversation",
    (test) =>
      Effect.gen(function* () {
        const setup = yield* KillSetup
        const { server } = setup
        const config = setup.config(port)
        Runners.createLog(config.log)
        const expected = yield* undisturbed("lookup", lookup)
        const from = server.received.length

        server.hold((request) => request.conversation === lookup && request.step === 1)
        const first = yield* Runners.start(test, "first", config)
        yield* agent.start("lookup-1", question(lookup))
        yield* server.until((received) =>
          requestsFor(received, from, lookup).some((request) => request.held),
        )
        yield* first.kill
        server.release()
        yield* Runners.start(test, "second", config)
        const result = yield* agent.run("lookup-1", question(lookup))

        expect(conversation(result)).toBe(conversation(expected))
        const sent = requestsFor(server.received, from, lookup).map((request) => ({
          step: request.step,
          finished: request.finished,
        }))
        // The first answer was recorded before the kill, and not asked for again (D2); the one
        // cut off was.
        expect(sent).toEqual([
          { step: 0, finished: true },
          { step: 1, finished: false },
          { step: 1, finished: true },
        ])
        expect(ranFor(Runners.lines(config.log), "call_l0").length).toBe(1)
      }).pipe(Effect.scoped),
    timeout,
  )

  it.effect(
    "a tool that ran and was not recorded runs once more with the same key; one recorded never does",
    (test) =>
      Effect.gen(function* () {
        const setup = yield* KillSetup
        const config = setup.config(port)
        Runners.createLog(config.log)
        const expected = yield* undisturbed("ship", ship)

        const first = yield* Runners.start(test, "first", config)
        const executionId = yield* agent.start("ship-1", question(ship))
        yield* Runners.untilLogged(config.log, (lines) => ranFor(lines, "call_s1")[0])
        yield* first.kill
        writeFileSync(config.gate, "")
        const second = yield* Runners.start(test, "second", config)
        const result = yield* agent.run("ship-1", question(ship))

        expect(conversation(result)).toBe(conversation(expected))
        const lines = Runners.lines(config.log)
        expect(ranFor(lines, "call_s0").map((line) => line.pid)).toEqual([first.pid])
        const shipped = ranFor(lines, "call_s1")
        expect(shipped.map((line) => line.pid)).toEqual([first.pid, second.pid])
        // Run again with the key of the first run (D4).
        expect(shipped.map((line) => line.key)).toEqual([
          `${executionId}/1/call_s1`,
          `${executionId}/1/call_s1`,
        ])
      }).pipe(Effect.scoped),
    timeout,
  )

  it.effect(
    "a run whose runner died while it waited for an approval is approved and finished through another",
    (test) =>
      Effect.gen(function* () {
        const setup = yield* KillSetup
        const config = setup.config(port)
        Runners.createLog(config.log)
        const expected = yield* undisturbed("refund", refund, "approval")

        const first = yield* Runners.start(test, "first", config)
        yield* agent.start("refund-1", question(refund))
        const asked = yield* Runners.untilLogged(config.log, askedIn)
        yield* first.kill
        yield* Runners.start(test, "second", config)
        yield* DurableLoop.approve(asked.token, toolCall(asked.call), Approval.allow)
        const result = yield* agent.run("refund-1", question(refund))

        expect(conversation(result)).toBe(conversation(expected))
        const lines = Runners.lines(config.log)
        expect(ranFor(lines, "call_r0").length).toBe(1)
        // Told at least once (D3): again only if the kill came before the telling was recorded.
        for (const line of lines) {
          if (line._tag === "Ask") expect(line.token).toBe(asked.token)
        }
      }).pipe(Effect.scoped),
    timeout,
  )

  it.effect(
    "a run whose runner died while an MCP tool's question waited is answered and finished through another",
    (test) =>
      Effect.gen(function* () {
        const setup = yield* KillSetup
        const config = { ...setup.config(port), mcpServer }
        Runners.createLog(config.log)
        const expected = yield* undisturbed("cancel", cancel, "input")

        const first = yield* Runners.start(test, "first", config)
        const executionId = yield* agent.start("cancel-1", question(cancel))
        const asked = yield* Runners.untilLogged(config.log, inputIn)
        // The server's question as it asked it, carried to the person.
        expect(asked.requests).toEqual({
          confirm: {
            method: "elicitation/create",
            params: {
              mode: "form",
              message: "Cancel order 3?",
              requestedSchema: {
                type: "object",
                properties: { confirm: { type: "boolean" } },
                required: ["confirm"],
              },
            },
          },
        })
        yield* first.kill
        yield* Runners.start(test, "second", config)
        const forged = toolCall({ ...asked.call, arguments: '{"id":4}' })
        const refused = yield* Effect.flip(DurableLoop.answer(asked.token, forged, confirmed))
        expect(refused._tag).toBe("AnswerRefused")
        yield* DurableLoop.answer(asked.token, toolCall(asked.call), confirmed)
        const result = yield* agent.run("cancel-1", question(cancel))

        expect(conversation(result)).toBe(conversation(expected))
        expect(result.steps[0]?.results[0]?.content).toBe("order 3 is cancelled")
        const lines = Runners.lines(config.log)
        // Cancelled once, by the call that carried the answers and the server's own state.
        expect(ranFor(lines, "call_c0").map((line) => [line.key, line.state])).toEqual([
          [`${executionId}/0/call_c0`, "cancel-3"],
        ])
        for (const line of lines) {
          if (line._tag === "Input") expect(line.token).toBe(asked.token)
        }
      }).pipe(Effect.scoped),
    timeout,
  )

  it.effect(
    "leaves no API key, header value or tool token in any table after the runs and a refused one",
    (test) =>
      Effect.gen(function* () {
        const setup = yield* KillSetup
        const config = setup.config(port)
        Runners.createLog(config.log)
        const from = setup.server.received.length

        yield* Runners.start(test, "runner", config)
        const failure = yield* Effect.flip(agent.run("invoice-1", question(invoice)))
        expect(failure).toMatchObject({ kind: "Authentication", status: 401 })
        // The secrets were in flight: the server saw the key and the header, the tool held the token.
        const refused = requestsFor(setup.server.received, from, invoice).at(-1)
        expect(refused?.headers.authorization).toBe(`Bearer ${secrets.apiKey}`)
        expect(refused?.headers["x-tenant-key"]).toBe(secrets.tenantKey)
        expect(ranFor(Runners.lines(config.log), "call_i0").length).toBe(1)

        // A tool's answer is a control: the scan reads what the runs stored, and finds it.
        const control = "order 42 is shipped"
        const { rows, found } = yield* Database.scan(setup.databaseUrl, [
          ...Object.values(secrets),
          control,
        ])
        expect(found.filter((where) => where.needle !== control)).toEqual([])
        expect(found.some((where) => where.table === "cluster_replies")).toBe(true)
        // Not vacuous: the messages and replies of every run of this file were read.
        expect(rows.cluster_messages).toBeGreaterThan(10)
        expect(rows.cluster_replies).toBeGreaterThan(10)
      }).pipe(Effect.scoped),
    timeout,
  )
})
