/**
 * Runs the transport cases (`transport/*.json`, format in `README.md`): each case's replies are
 * played by `@svir/testing`'s scripted server on 127.0.0.1, its calls are made through the client,
 * and the outcomes and the requests the server received are compared with the case.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Util from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Notation } from "@svir/conformance"
import { type Event as CoreEvent, Request, SvirError } from "@svir/core"
import { Answer, ScriptedServer } from "@svir/testing"
import { ConfigProvider, Effect, Exit, Schema, Scope, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { Client } from "../../src/index.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const folder = Path.join(here, "transport")
const decisions = Fs.readFileSync(Path.join(here, "../../DECISIONS.md"), "utf8")

type Json =
  | null
  | boolean
  | number
  | string
  | ReadonlyArray<Json>
  | { readonly [key: string]: Json }
type JsonObject = { readonly [key: string]: Json }

interface Reply {
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  readonly recording?: string
  readonly cut_before?: string
  readonly then?: "stall"
  readonly stall?: "headers"
}

type Action =
  | "read_all"
  | "cancel"
  | { readonly read_events: number }
  | { readonly read_for_ms: number }

interface Expect {
  readonly ok?: JsonObject
  readonly error?: string
  readonly retryable?: boolean
  readonly retry_after_ms?: number | null
  readonly status?: number | null
  readonly message?: string
  readonly partial?: { readonly text?: string; readonly reasoning?: string }
  readonly within_ms?: number
  readonly cancelled?: true
  readonly models?: ReadonlyArray<{ readonly id: string; readonly name: string | null }>
}

interface Call {
  readonly request?: JsonObject
  readonly list_models?: true
  readonly client?: ReadonlyArray<Action>
  readonly expect: Expect
}

interface ExpectedRequest {
  readonly method?: string
  readonly path?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly absent_headers?: ReadonlyArray<string>
  readonly body_includes?: JsonObject
  readonly body_excludes?: ReadonlyArray<string>
}

interface Config extends Omit<Client.Options, "baseUrl"> {
  readonly baseUrl: string | ReadonlyArray<string>
}

interface Case {
  readonly file: string
  readonly name: string
  readonly from?: string | undefined
  readonly why: string
  readonly config: Config
  readonly expect_config?: "accepted" | "rejected"
  readonly replies?: ReadonlyArray<Reply>
  readonly calls?: ReadonlyArray<Call>
  readonly expect_requests?: ReadonlyArray<ExpectedRequest>
  readonly expect_closed?: true
  readonly departs?: { readonly decision: string; readonly svir: string }
}

const caseKeys = new Set([
  "name",
  "from",
  "why",
  "config",
  "expect_config",
  "replies",
  "calls",
  "expect_requests",
  "expect_closed",
  "departs",
])

const loadCases = (): ReadonlyArray<Case> =>
  Fs.readdirSync(folder)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => {
      const json = JSON.parse(Fs.readFileSync(Path.join(folder, name), "utf8"))
      for (const key of Object.keys(json)) {
        if (!caseKeys.has(key)) throw new Error(`${name}: unknown key ${key}`)
      }
      return { ...json, file: name }
    })

// ---------------------------------------------------------------------------------------------
// The request notation (svir's neutral form), as far as transport cases use it.

/** The call's request in the suite's notation (the kit reads it), or the harness's default. */
const requestOf = (notation: JsonObject | undefined): Effect.Effect<Request.Request, unknown> =>
  notation === undefined
    ? Effect.succeed(Request.make("m").pipe(Request.user("hi")))
    : Schema.decodeUnknownEffect(Notation.Request)(notation).pipe(
        Effect.flatMap((request) => Notation.toRequest(request)),
      )

// ---------------------------------------------------------------------------------------------
// Replies, as the scripted server plays them: the body ends when the connection closes.

const replace = (text: string, origin: string) => text.replaceAll("{server}", origin)

const bodyOf = (reply: Reply): string => {
  if (reply.recording === undefined) return reply.body ?? ""
  const text = Fs.readFileSync(Path.join(folder, reply.recording), "utf8")
  if (reply.cut_before === undefined) return text
  const at = text.indexOf(reply.cut_before)
  if (at < 0) throw new Error(`cut_before ${JSON.stringify(reply.cut_before)} does not occur`)
  return text.slice(0, at)
}

const answerOf = (reply: Reply, origin: string): Answer.Answer =>
  reply.stall === "headers"
    ? Answer.hang
    : Answer.raw(bodyOf(reply), {
        status: reply.status ?? 200,
        headers: Object.fromEntries(
          Object.entries(reply.headers ?? {}).map(([name, value]) => [
            name,
            replace(value, origin),
          ]),
        ),
        closeDelimited: true,
        holdOpen: reply.then === "stall",
      })

// ---------------------------------------------------------------------------------------------
// The client a case describes, with svir's harness defaults: no retries, usage not asked for,
// nothing from the environment.

const noEnvironment = ConfigProvider.fromEnvRecord({})

const makeClient = (config: Config, baseUrl: string) =>
  Client.make({
    retry: false,
    includeUsage: false,
    ...config,
    baseUrl,
  }).pipe(
    Effect.provide(FetchHttpClient.layer),
    Effect.provideService(ConfigProvider.ConfigProvider, noEnvironment),
  )

/** What a call gave, in the notation of the cases. */
interface Outcome {
  readonly kind: "ok" | "error" | "cancelled" | "models" | "pending"
  readonly completion?: CoreEvent.Completed["completion"]
  readonly error?: SvirError.SvirError
  readonly models?: ReadonlyArray<Client.Model>
  readonly text: string
  readonly reasoning: string
  readonly millis: number
}

const runCall = (client: Client.Service, call: Call): Effect.Effect<Outcome> =>
  Effect.gen(function* () {
    const started = performance.now()
    const done = (outcome: Omit<Outcome, "millis">): Outcome => ({
      ...outcome,
      millis: performance.now() - started,
    })
    if (call.list_models === true) {
      const listed = yield* Effect.exit(client.listModels())
      return Exit.isSuccess(listed)
        ? done({ kind: "models", models: listed.value, text: "", reasoning: "" })
        : done({ kind: "error", error: failureOf(listed), text: "", reasoning: "" })
    }
    const scope = yield* Scope.make()
    const request = yield* Effect.orDie(requestOf(call.request))
    const pull = yield* Stream.toPull(client.stream(request)).pipe(Scope.provide(scope))
    let text = ""
    let reasoning = ""
    const buffered: Array<CoreEvent.Event> = []
    /** The next event, or an ending: "end", or the error. */
    const next = Effect.gen(function* () {
      if (buffered.length > 0) return buffered.shift()!
      const chunk = yield* Effect.exit(pull)
      if (Exit.isSuccess(chunk)) {
        buffered.push(...chunk.value)
        return buffered.shift()!
      }
      const error = failureOrDone(chunk)
      return error === undefined ? ("end" as const) : error
    })
    /** Takes one event; gives the outcome when the call ends with it. */
    const step = Effect.gen(function* () {
      const event = yield* next
      if (event === "end") return done({ kind: "error", text, reasoning })
      if (SvirError.isSvirError(event))
        return done({ kind: "error", error: event, text, reasoning })
      if (event._tag === "TextDelta") text += event.text
      if (event._tag === "ReasoningDelta") reasoning += event.text
      if (event._tag === "Completed") {
        return done({ kind: "ok", completion: event.completion, text, reasoning })
      }
      return undefined
    })
    for (const action of call.client ?? ["read_all"]) {
      if (action === "cancel") {
        yield* Scope.close(scope, Exit.void)
        return done({ kind: "cancelled", text, reasoning })
      }
      if (action === "read_all") {
        for (;;) {
          const ended = yield* step
          if (ended !== undefined) return ended
        }
      }
      if ("read_events" in action) {
        for (let i = 0; i < action.read_events; i++) {
          const ended = yield* step
          if (ended !== undefined) return ended
        }
      }
      if ("read_for_ms" in action) {
        // A client action, not an assertion: the case reads for a while, then goes on.
        const ended = yield* Effect.timeoutOption(
          Effect.gen(function* () {
            for (;;) {
              const ended = yield* step
              if (ended !== undefined) return ended
            }
          }),
          action.read_for_ms,
        )
        if (ended._tag === "Some") return ended.value
      }
    }
    yield* Scope.close(scope, Exit.void)
    return done({ kind: "pending", text, reasoning })
  })

const failureOf = (exit: Exit.Exit<unknown, SvirError.SvirError>): SvirError.SvirError => {
  const error = failureOrDone(exit)
  if (error === undefined) throw new Error("the call failed with no SvirError")
  return error
}

const failureOrDone = (exit: Exit.Exit<unknown, unknown>): SvirError.SvirError | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  for (const reason of exit.cause.reasons) {
    if (reason._tag === "Fail" && SvirError.isSvirError(reason.error)) return reason.error
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Comparison

const kindName = (kind: SvirError.Kind): string =>
  kind.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase()

const compareOutcome = (expected: Expect, got: Outcome, where: string): void => {
  if (expected.within_ms !== undefined) {
    assert.isAtMost(got.millis, expected.within_ms, `${where}: took ${Math.round(got.millis)} ms`)
  }
  if (expected.ok !== undefined) {
    assert.strictEqual(got.kind, "ok", `${where}: ${describeOutcome(got)}`)
    const completion = got.completion!
    const want = expected.ok
    assert.strictEqual(completion.text, want.text ?? "", `${where}: text`)
    if (want.finish !== undefined) assert.strictEqual(completion.finish, want.finish, `${where}`)
    if (want.usage !== undefined) {
      const usage = want.usage as JsonObject | null
      if (usage === null) assert.isUndefined(completion.usage, `${where}: usage`)
      else {
        for (const [key, value] of Object.entries(usage)) {
          assert.strictEqual(
            (completion.usage as Record<string, unknown> | undefined)?.[key],
            value,
            `${where}: usage.${key}`,
          )
        }
      }
    }
  } else if (expected.error !== undefined) {
    assert.strictEqual(got.kind, "error", `${where}: ${describeOutcome(got)}`)
    const error = got.error
    assert.isDefined(error, `${where}: the stream ended with no error and no completion`)
    assert.strictEqual(kindName(error!.reason._tag), expected.error, `${where}: ${error!.message}`)
    if (expected.retryable !== undefined) {
      assert.strictEqual(error!.isRetryable, expected.retryable, `${where}: retryable`)
    }
    if (expected.retry_after_ms !== undefined) {
      assert.strictEqual(
        error!.retryAfterMillis ?? null,
        expected.retry_after_ms,
        `${where}: retry_after_ms`,
      )
    }
    if (expected.status !== undefined) {
      assert.strictEqual(error!.status ?? null, expected.status, `${where}: status`)
    }
    if (expected.message !== undefined) {
      assert.strictEqual(error!.serverMessage, expected.message, `${where}: message`)
    }
  } else if (expected.cancelled === true) {
    assert.strictEqual(got.kind, "cancelled", `${where}: ${describeOutcome(got)}`)
  } else if (expected.models !== undefined) {
    assert.strictEqual(got.kind, "models", `${where}: ${describeOutcome(got)}`)
    assert.deepStrictEqual(
      got.models!.map((model) => ({ id: model.id, name: model.name ?? null })),
      expected.models,
      `${where}: models`,
    )
  } else {
    assert.fail(`${where}: the expectation names no outcome`)
  }
  if (expected.partial?.text !== undefined) {
    assert.strictEqual(got.text, expected.partial.text, `${where}: partial text`)
  }
  if (expected.partial?.reasoning !== undefined) {
    assert.strictEqual(got.reasoning, expected.partial.reasoning, `${where}: partial reasoning`)
  }
}

const describeOutcome = (got: Outcome): string =>
  got.error === undefined
    ? got.kind
    : `${got.kind} ${got.error.reason._tag} (${got.error.message}; ${got.error.serverMessage ?? ""})`

const compareRequests = (
  expected: ReadonlyArray<ExpectedRequest>,
  got: ReadonlyArray<ScriptedServer.RecordedRequest>,
  where: string,
): void => {
  assert.strictEqual(
    got.length,
    expected.length,
    `${where}: requests ${got.map((request) => `${request.method} ${request.path}`).join(", ")}`,
  )
  for (const [i, want] of expected.entries()) {
    const request = got[i]!
    const at = `${where}: request ${i + 1}`
    if (want.method !== undefined) assert.strictEqual(request.method, want.method, at)
    if (want.path !== undefined) assert.strictEqual(request.path, want.path, at)
    for (const [name, value] of Object.entries(want.headers ?? {})) {
      assert.strictEqual(request.headers[name], value, `${at}: header ${name}`)
    }
    for (const name of want.absent_headers ?? []) {
      assert.notProperty(request.headers, name, `${at}: header ${name}`)
    }
    const body = (request.body ?? {}) as Record<string, unknown>
    for (const [key, value] of Object.entries(want.body_includes ?? {})) {
      assert.deepStrictEqual(body[key], value, `${at}: body.${key}`)
    }
    for (const key of want.body_excludes ?? []) {
      assert.notProperty(body, key, `${at}: body.${key}`)
    }
  }
}

/** Every POST is sized JSON: `content-length` equal to the body, never chunked. */
const checkFraming = (got: ReadonlyArray<ScriptedServer.RecordedRequest>, where: string) => {
  for (const [i, request] of got.entries()) {
    if (request.method !== "POST") continue
    const at = `${where}: request ${i + 1}`
    assert.strictEqual(request.headers["content-type"], "application/json", at)
    assert.strictEqual(
      request.headers["content-length"],
      String(Buffer.byteLength(request.text, "utf8")),
      `${at}: content-length`,
    )
    assert.notProperty(request.headers, "transfer-encoding", at)
  }
}

/** The key and the configured header values never show in an error, however it is printed. */
const checkSecrets = (config: Config, shown: ReadonlyArray<unknown>, where: string) => {
  const apiKey = typeof config.apiKey === "string" ? config.apiKey : undefined
  const secrets = [
    ...(apiKey === undefined ? [] : [apiKey]),
    ...Object.values(config.headers ?? {}),
  ].filter((secret) => secret.length >= 4)
  for (const value of shown) {
    const forms = [String(value), JSON.stringify(value) ?? "", Util.inspect(value, { depth: 8 })]
    for (const form of forms) {
      for (const secret of secrets) {
        assert.notInclude(form, secret, `${where}: a secret shows in ${form.slice(0, 80)}`)
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Running a case, once per base URL it lists

interface Run {
  readonly url: string
  readonly outcomes: ReadonlyArray<Outcome>
  readonly requests: ReadonlyArray<ScriptedServer.RecordedRequest>
  /** Errors and the client, for the check that no secret shows. */
  readonly shown: ReadonlyArray<unknown>
  readonly closed: boolean | undefined
}

/** How long a closed connection may take to be seen; a condition waited on, not a sleep. */
const closeDeadlineMillis = 5_000

const runOnce = (testCase: Case, url: string): Effect.Effect<Run, unknown> =>
  Effect.scoped(
    Effect.gen(function* () {
      // As in the Rust crate's harness, every request takes the next reply, GET /v1/models too.
      const server = yield* ScriptedServer.start([], { scriptEveryRequest: true })
      const origin = server.url.replace(/\/v1$/, "")
      server.push(...(testCase.replies ?? []).map((reply) => answerOf(reply, origin)))
      const client = yield* makeClient(testCase.config, replace(url, origin))
      const outcomes: Array<Outcome> = []
      for (const call of testCase.calls ?? []) outcomes.push(yield* runCall(client, call))
      let closed: boolean | undefined
      if (testCase.expect_closed === true) {
        const last = server.requests.length - 1
        closed = yield* Effect.promise(() => server.whenAbandoned(last)).pipe(
          Effect.timeoutOption(closeDeadlineMillis),
          Effect.map((seen) => seen._tag === "Some"),
        )
      }
      return {
        url,
        outcomes,
        requests: [...server.requests],
        shown: [client, ...outcomes.flatMap((outcome) => outcome.error ?? [])],
        closed,
      }
    }),
  )

const urlsOf = (config: Config): ReadonlyArray<string> =>
  typeof config.baseUrl === "string" ? [config.baseUrl] : config.baseUrl

const cases = loadCases()

describe("svir transport cases", () => {
  it("has every case of the Rust crate's transport section, each with its source", () => {
    // A case of our own (written where a departure leaves a behaviour untested) has no `from`.
    const fromRust = cases.filter((testCase) => testCase.from !== undefined)
    assert.strictEqual(fromRust.length, 58)
    for (const testCase of fromRust) {
      assert.strictEqual(testCase.from, `svir transport/${testCase.file}`)
    }
    for (const testCase of cases) {
      assert.strictEqual(`${testCase.name}.json`, testCase.file)
      assert.isAbove(testCase.why.length, 10, testCase.file)
    }
  })

  for (const testCase of cases) {
    const label = `${testCase.name}${testCase.departs === undefined ? "" : " (departs)"}`

    if (testCase.expect_config !== undefined) {
      it.effect(`${label}: the configuration is ${testCase.expect_config}`, () =>
        Effect.gen(function* () {
          for (const url of urlsOf(testCase.config)) {
            const made = yield* Effect.exit(makeClient(testCase.config, url))
            const got = Exit.isSuccess(made) ? "accepted" : "rejected"
            assert.strictEqual(got, testCase.expect_config, url)
            if (Exit.isFailure(made)) {
              const error = failureOf(made)
              assert.strictEqual(error.reason._tag, "Config", url)
              checkSecrets(testCase.config, [error], url)
            }
          }
        }),
      )
      continue
    }

    // The case runs once; each check reads the same runs.
    let runs: Promise<ReadonlyArray<Run>> | undefined
    const runAll = Effect.promise(() => {
      runs ??= Effect.runPromise(
        Effect.forEach(urlsOf(testCase.config), (url) => runOnce(testCase, url)),
      )
      return runs
    })

    it.live(`${label}: outcomes`, () =>
      Effect.gen(function* () {
        for (const run of yield* runAll) {
          for (const [i, call] of (testCase.calls ?? []).entries()) {
            compareOutcome(call.expect, run.outcomes[i]!, `${run.url} call ${i + 1}`)
          }
          if (testCase.expect_closed === true) {
            assert.isTrue(run.closed, `${run.url}: the connection was not closed`)
          }
        }
      }),
    )

    it.live(`${label}: requests`, () =>
      Effect.gen(function* () {
        for (const run of yield* runAll) {
          compareRequests(testCase.expect_requests ?? [], run.requests, run.url)
        }
      }),
    )

    it.live(`${label}: every POST is sized JSON, not chunked`, () =>
      Effect.gen(function* () {
        for (const run of yield* runAll) checkFraming(run.requests, run.url)
      }),
    )

    it.live(`${label}: no secret shows`, () =>
      Effect.gen(function* () {
        for (const run of yield* runAll) checkSecrets(testCase.config, run.shown, run.url)
      }),
    )

    if (testCase.departs !== undefined) {
      const decision = testCase.departs.decision
      it(`${label}: ${decision} exists`, () => {
        const number = /^client (D\d+)$/.exec(decision)?.[1]
        assert.isDefined(number, `${decision} is not a decision of this package`)
        assert.include(decisions, `**${number}.`)
      })
    }
  }
})
