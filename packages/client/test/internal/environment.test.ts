import { assert, describe, it } from "@effect/vitest"
import { Request } from "@svir/core"
import { Answer, ScriptedServer } from "@svir/testing"
import { ConfigProvider, Effect, Exit, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { Client } from "../../src/index.js"
import * as Environment from "../../src/internal/environment.js"

/**
 * An environment that refuses, as Deno does without `--allow-env` (`NotCapable: Requires env
 * access`), to read any `OPENAI_` variable or to list the variables, installed as `process.env`
 * for the life of the scope. Other variables are still read: Node's module loader reads some
 * (Node 24 does when the client loads `effect/Config`), and Deno's own internals are not refused.
 */
const refusingEnvironment = Effect.acquireRelease(
  Effect.sync(() => {
    const original = Object.getOwnPropertyDescriptor(process, "env")!
    const real: Record<string | symbol, unknown> = original.value
    const refuse = (): never => {
      throw new Error("NotCapable: Requires env access, run again with the --allow-env flag")
    }
    const refused = (name: string | symbol) =>
      typeof name === "string" && name.startsWith("OPENAI_")
    const env = new Proxy(
      {},
      {
        get: (_, name) => (refused(name) ? refuse() : real[name]),
        has: (_, name) => (refused(name) ? refuse() : name in real),
        getOwnPropertyDescriptor: (_, name) =>
          refused(name) ? refuse() : Object.getOwnPropertyDescriptor(real, name),
        ownKeys: refuse,
      },
    )
    Object.defineProperty(process, "env", { ...original, value: env })
    return original
  }),
  (original) => Effect.sync(() => Object.defineProperty(process, "env", original)),
)

/** `process.env` holding `values` over the real environment, for the life of the scope. */
const environmentWith = (values: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const original = Object.getOwnPropertyDescriptor(process, "env")!
      Object.defineProperty(process, "env", { ...original, value: { ...process.env, ...values } })
      return original
    }),
    (original) => Effect.sync(() => Object.defineProperty(process, "env", original)),
  )

describe("environment", () => {
  it.effect("a runtime that refuses to read a variable gives 'not set', never a defect", () =>
    Effect.scoped(
      Effect.gen(function* () {
        yield* refusingEnvironment
        assert.isUndefined(yield* Environment.baseUrl("OPENAI_BASE_URL"))
        assert.isUndefined(yield* Environment.apiKey("OPENAI_API_KEY"))
      }),
    ),
  )

  it.live("Client.make({ baseUrl }) works where the environment may not be read", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* ScriptedServer.start([Answer.text("no env")])
        const exit = yield* Effect.scoped(
          Effect.gen(function* () {
            yield* refusingEnvironment
            return yield* Effect.exit(
              Client.make({ baseUrl: server.url }).pipe(Effect.provide(FetchHttpClient.layer)),
            )
          }),
        )
        assert.isTrue(Exit.isSuccess(exit))
        if (!Exit.isSuccess(exit)) return
        const done = yield* exit.value
          .complete(Request.make("m").pipe(Request.user("Hi")))
          .pipe(Effect.provide(FetchHttpClient.layer))
        assert.strictEqual(done.text, "no env")
        assert.notProperty(server.requests[0]!.headers, "authorization")
      }),
    ),
  )

  it.effect("a ConfigProvider in the context wins, even where the environment refuses", () =>
    Effect.scoped(
      Effect.gen(function* () {
        yield* refusingEnvironment
        const provider = ConfigProvider.fromEnvRecord({ OPENAI_API_KEY: "sk-provided" })
        const key = yield* Environment.apiKey("OPENAI_API_KEY").pipe(
          Effect.provideService(ConfigProvider.ConfigProvider, provider),
        )
        assert.strictEqual(key === undefined ? undefined : Redacted.value(key), "sk-provided")
      }),
    ),
  )

  it.effect("reads only the variables it names from the runtime's environment", () =>
    Effect.scoped(
      Effect.gen(function* () {
        yield* environmentWith({
          OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
          OPENAI_API_KEY: "sk-env",
        })
        assert.strictEqual(yield* Environment.baseUrl("OPENAI_BASE_URL"), "http://127.0.0.1:9/v1")
        const key = yield* Environment.apiKey("OPENAI_API_KEY")
        assert.strictEqual(key === undefined ? undefined : Redacted.value(key), "sk-env")
      }),
    ),
  )
})
