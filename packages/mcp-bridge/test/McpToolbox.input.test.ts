import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Toolbox, ToolCall, ToolInput } from "@svir/core"
import { Deferred, Effect, Exit, Fiber, Layer, Ref } from "effect"
import { TestClock } from "effect/testing"
import { Elicitation, McpToolbox } from "../src/index.js"
import { assertNoChildLeft, captureLogs } from "./servers.js"

const inputServer = fileURLToPath(new URL("./fixtures/v2-input.mjs", import.meta.url))

/** The server of `fixtures/v2-input.mjs` over stdio, which speaks 2026-07-28 to the bridge. */
const overStdio = (options: McpToolbox.Options = {}) =>
  McpToolbox.stdio(
    { command: process.execPath, args: [inputServer, "stdio"], stopGraceMillis: 100 },
    options,
  )

/**
 * The same server over Streamable HTTP on 127.0.0.1, in a child process, until the Scope closes;
 * the release waits for the process to have exited, which `assertNoChildLeft` checks next.
 */
const overHttp = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly stop: () => Promise<unknown> }>((resume) => {
    // Its stderr is left out: the SDK's server warns there of the tool it marks wrongly on purpose.
    const child = spawn(process.execPath, [inputServer, "http"], {
      stdio: ["ignore", "pipe", "ignore"],
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => {
      output += String(chunk)
      const match = /listening on (\d+)/.exec(output)
      if (match) {
        resume(
          Effect.succeed({
            url: `http://127.0.0.1:${match[1]}/mcp`,
            stop: () => {
              if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
              const exited = new Promise((resolve) => child.once("exit", resolve))
              child.kill("SIGKILL")
              return exited
            },
          }),
        )
      }
    })
  }),
  ({ stop }) => Effect.promise(stop),
)

/** A user who answers every form with `ask`. */
const user = (ask: Elicitation.Elicitation["Service"]["ask"]) =>
  Layer.succeed(Elicitation.Elicitation, { ask })

const call = (toolbox: McpToolbox.McpToolbox, name: string) =>
  Effect.map(toolbox.call(ToolCall.make("c1", name)), (result) => [
    result.isError,
    result.content,
    result.failure,
  ])

describe("McpToolbox answering a 2026-07-28 server's input_required results (D51)", () => {
  afterEach(assertNoChildLeft)

  it.live("gives the user's accepted form to the server, which asked for it in its result", () =>
    Effect.gen(function* () {
      const asked = yield* Ref.make<ReadonlyArray<Elicitation.Request>>([])
      const toolbox = yield* overStdio().pipe(
        Effect.provide(
          user((request) =>
            Effect.as(
              Ref.update(asked, (requests) => [...requests, request]),
              Elicitation.accept({ confirm: true }),
            ),
          ),
        ),
      )
      assert.strictEqual(toolbox.protocolVersion, "2026-07-28")
      assert.deepStrictEqual(yield* call(toolbox, "confirm"), [
        false,
        'accept: {"confirm":true}',
        undefined,
      ])
      const [request] = yield* Ref.get(asked)
      assert.deepStrictEqual([request?.message, request?.server], ["Go on?", "v2-input"])
    }),
  )

  it.live("tells the server the user declined, and declines for a program with no user", () =>
    Effect.gen(function* () {
      const declining = yield* overStdio().pipe(
        Effect.provide(user(() => Effect.succeed(Elicitation.decline))),
      )
      assert.deepStrictEqual(yield* call(declining, "confirm"), [false, "decline: {}", undefined])
      const alone = yield* overStdio()
      assert.deepStrictEqual(yield* call(alone, "confirm"), [false, "decline: {}", undefined])
    }),
  )

  it.live("does not send content that breaks the form's pattern: the call fails", () =>
    Effect.gen(function* () {
      const logs = captureLogs()
      const toolbox = yield* overStdio().pipe(
        Effect.provide(user(() => Effect.succeed(Elicitation.accept({ code: "12ab" })))),
      )
      const [isError, content, failure] = yield* call(toolbox, "code").pipe(
        Effect.provide(logs.layer),
      )
      assert.deepStrictEqual([isError, failure], [true, "handler_failed"])
      assert.include(content, "does not fit the requested schema")
      assert.include(content, "must match pattern")
    }),
  )

  it.live("gives up on a server that asks again and again, with a result a model can read", () =>
    Effect.gen(function* () {
      const asks = yield* Ref.make(0)
      const toolbox = yield* overStdio().pipe(
        Effect.provide(
          user(() =>
            Effect.as(
              Ref.update(asks, (n) => n + 1),
              Elicitation.accept({ confirm: true }),
            ),
          ),
        ),
      )
      assert.deepStrictEqual(yield* call(toolbox, "nag"), [
        true,
        "tool nag failed: its server still asked for input after 10 rounds of answers, and the call was given up",
        "server_refused",
      ])
      assert.strictEqual(yield* Ref.get(asks), 10)
    }),
  )

  it.effect("stops the call's time limit while the user answers", () =>
    Effect.gen(function* () {
      const asked = yield* Deferred.make<void>()
      const answer = yield* Deferred.make<Elicitation.Answer>()
      const toolbox = yield* overStdio().pipe(
        Effect.provide(
          user(() => Effect.andThen(Deferred.succeed(asked, undefined), Deferred.await(answer))),
        ),
      )
      // The caller's limit is the default minute; the user takes five.
      const confirm = yield* Effect.forkChild(
        Toolbox.callSafely(toolbox, ToolCall.make("c1", "confirm")),
      )
      yield* Deferred.await(asked)
      yield* TestClock.adjust("5 minutes")
      yield* Deferred.succeed(answer, Elicitation.accept({ confirm: false }))
      const result = yield* Fiber.join(confirm)
      assert.deepStrictEqual([result.isError, result.content], [false, 'accept: {"confirm":false}'])
    }),
  )

  it.live("answers with the roots when they are given, and declares none when they are not", () =>
    Effect.gen(function* () {
      const rooted = yield* overStdio({ roots: [{ uri: "file:///srv/notes", name: "notes" }] })
      assert.deepStrictEqual(yield* call(rooted, "where"), [false, "file:///srv/notes", undefined])
      // The SDK's server reads the capabilities each request carries, and refuses to ask.
      const rootless = yield* overStdio()
      const [isError, content, failure] = yield* call(rootless, "where")
      assert.deepStrictEqual([isError, failure], [true, "server_refused"])
      assert.include(content, "MCP error -32021")
    }),
  )

  it.live("reads the progress a 2026-07-28 server reports", () =>
    Effect.gen(function* () {
      const reported = yield* Deferred.make<number>()
      const toolbox = yield* overStdio({
        onProgress: (event) => Deferred.doneUnsafe(reported, Exit.succeed(event.progress)),
      })
      const report = yield* Effect.forkChild(call(toolbox, "report"))
      assert.strictEqual(yield* Deferred.await(reported), 1)
      yield* call(toolbox, "release")
      assert.deepStrictEqual(yield* Fiber.join(report), [false, "reported", undefined])
    }),
  )

  // A report for a token no request gave is an error of the SDK's Client, after which the bridge
  // asks the server whether it is still there; 2026-07-28 has no ping (D51).
  it.live("keeps a call whose server reports progress for a token nobody gave", () =>
    Effect.gen(function* () {
      const toolbox = yield* overStdio()
      assert.deepStrictEqual(yield* call(toolbox, "stray"), [false, "reported", undefined])
      assert.deepStrictEqual(yield* call(toolbox, "confirm"), [false, "decline: {}", undefined])
    }),
  )

  it.live("answers a form over Streamable HTTP too", () =>
    Effect.gen(function* () {
      const { url } = yield* overHttp
      // The listing warns of the tool the server marks wrongly on purpose.
      const toolbox = yield* McpToolbox.http({ url }).pipe(
        Effect.provide(
          Layer.merge(
            user(() => Effect.succeed(Elicitation.accept({ confirm: true }))),
            captureLogs().layer,
          ),
        ),
      )
      assert.strictEqual(toolbox.protocolVersion, "2026-07-28")
      assert.deepStrictEqual(yield* call(toolbox, "confirm"), [
        false,
        'accept: {"confirm":true}',
        undefined,
      ])
      const nag = yield* toolbox.call(ToolCall.make("c2", "nag"))
      assert.deepStrictEqual([nag.isError, nag.failure], [true, "server_refused"])
      assert.include(nag.content, "after 10 rounds")
    }),
  )

  it.live(
    "sends the arguments a tool marks with x-mcp-header as headers, and leaves out a tool marked wrongly",
    () =>
      Effect.gen(function* () {
        const { url } = yield* overHttp
        const logs = captureLogs()
        const toolbox = yield* McpToolbox.http({ url }).pipe(Effect.provide(logs.layer))
        const names = (yield* toolbox.tools).map((tool) => tool.name)
        assert.isTrue(names.includes("region"))
        assert.isFalse(names.includes("badly_marked"))
        assert.isTrue(logs.logged.some((line) => line.includes("breaks SEP-2243")))
        // The SDK's server compares the header with the argument: a space at the end needs Base64.
        const result = yield* toolbox.call(ToolCall.make("r1", "region", '{"region":"us west 1 "}'))
        assert.deepStrictEqual([result.isError, result.content], [false, "region: us west 1 "])
      }),
  )
})

describe("McpToolbox handing a 2026-07-28 server's questions to a caller that takes them (D55)", () => {
  afterEach(assertNoChildLeft)

  /** A user who must not be asked: the questions go to the caller. */
  const nobody = user(() => Effect.die("the Elicitation service was asked"))

  const taking = (toolbox: McpToolbox.McpToolbox, name: string, answers?: ToolInput.Answers) =>
    ToolInput.taking(toolbox.call(ToolCall.make("c1", name)), answers)

  it.live("gives the server's question and state, and sends the answers with both back", () =>
    Effect.gen(function* () {
      const toolbox = yield* overStdio().pipe(Effect.provide(nobody))
      const asked = yield* taking(toolbox, "pay")
      assert.deepStrictEqual(asked, {
        _tag: "Asked",
        question: {
          requests: {
            confirm: {
              method: "elicitation/create",
              params: {
                mode: "form",
                message: "Pay?",
                requestedSchema: {
                  type: "object",
                  properties: { confirm: { type: "boolean" } },
                  required: ["confirm"],
                },
              },
            },
          },
          state: "pay-state-1",
        },
      })
      const answered = yield* taking(toolbox, "pay", {
        responses: { confirm: { action: "accept", content: { confirm: true } } },
        state: "pay-state-1",
      })
      assert.deepStrictEqual(answered, {
        _tag: "Answered",
        result: { callId: "c1", content: "accept with state pay-state-1", isError: false },
      })
    }),
  )

  it.live(
    "hands on a question without state, and roots, and every round of a server that asks again",
    () =>
      Effect.gen(function* () {
        const toolbox = yield* overStdio().pipe(Effect.provide(nobody))
        const confirm = yield* taking(toolbox, "confirm")
        assert.strictEqual(confirm._tag, "Asked")
        if (confirm._tag === "Asked") assert.notProperty(confirm.question, "state")
        const answered = yield* taking(toolbox, "confirm", {
          responses: { confirm: { action: "decline" } },
        })
        assert.deepStrictEqual(answered, {
          _tag: "Answered",
          result: { callId: "c1", content: "decline: {}", isError: false },
        })
        const where = yield* taking(toolbox, "where", {
          responses: { roots: { roots: [{ uri: "file:///srv/notes" }] } },
        })
        assert.deepStrictEqual(
          where._tag === "Answered" && where.result.content,
          "file:///srv/notes",
        )
        // The caller bounds the rounds: each one asks it again, past the bridge's own ten.
        const answers = { responses: { again: { action: "accept", content: { confirm: true } } } }
        for (let round = 0; round < 12; round++) {
          assert.strictEqual((yield* taking(toolbox, "nag", answers))._tag, "Asked")
        }
      }),
  )

  it.live("refuses answers that are none of the kinds MCP defines", () =>
    Effect.gen(function* () {
      const toolbox = yield* overStdio().pipe(Effect.provide(nobody))
      const outcome = yield* taking(toolbox, "pay", {
        responses: { confirm: { action: "maybe" } },
        state: "pay-state-1",
      })
      assert.strictEqual(outcome._tag, "Answered")
      if (outcome._tag === "Answered") {
        assert.deepStrictEqual(
          [outcome.result.isError, outcome.result.failure],
          [true, "invalid_arguments"],
        )
        assert.include(outcome.result.content, "not answers MCP defines")
      }
    }),
  )
})
