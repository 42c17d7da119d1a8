import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { Tool, Toolbox, ToolCall, ToolResult } from "../src/index.js"

/** A toolbox whose `wait` tool sleeps the given milliseconds and answers with its id. */
const sleeper = Toolbox.make({
  tools: [Tool.make("wait", "Wait a while.")],
  call: (call) =>
    Effect.as(Effect.sleep(Number(call.arguments)), ToolResult.make(call.id, call.arguments)),
})

const misbehaving = Toolbox.make({
  tools: [Tool.make("boom", "Dies."), Tool.make("stop", "Interrupts itself.")],
  call: (call) =>
    call.name === "boom" ? Effect.die(new Error("kaboom")) : (Effect.interrupt as never),
})

/** A logger that formats each line as Effect's loggers do and keeps it instead of printing it. */
const captureLogs = () => {
  const logged: Array<string> = []
  const keep = Logger.make((options) => logged.push(Logger.formatSimple.log(options)))
  return { logged, layer: Logger.layer([keep]) }
}

const throwing = (what: string) => {
  throw new Error(`${what} cannot be read`)
}

/** Values a handler may throw or die with that break code which describes them. */
const hostileValues = (): ReadonlyArray<readonly [string, unknown]> => {
  const revoked = Proxy.revocable({}, {})
  revoked.revoke()
  const stackless = new Error("no stack")
  Object.defineProperty(stackless, "stack", { get: () => throwing("stack") })
  return [
    ["null", null],
    ["undefined", undefined],
    ["a string", "bad input"],
    ["a symbol", Symbol("boom")],
    ["a bigint", 1n],
    [
      "an object whose message getter throws",
      {
        get message() {
          return throwing("message")
        },
      },
    ],
    ["a revoked proxy", revoked.proxy],
    ["an object whose toString throws", { toString: () => throwing("toString") }],
    [
      "an object that cannot become a primitive",
      { [Symbol.toPrimitive]: () => throwing("primitive") },
    ],
    ["an object without a prototype", Object.create(null)],
    ["an Error whose stack getter throws", stackless],
  ]
}

describe("Toolbox", () => {
  it.effect("answers every call in the order of the calls, one after another", () =>
    Effect.gen(function* () {
      const calls = [30, 10, 20].map((ms, i) => ToolCall.make(`c${i}`, "wait", String(ms)))
      const fiber = yield* Effect.forkChild(Toolbox.callAll(sleeper, calls))
      yield* TestClock.adjust(59)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(1)
      const results = yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        results.map((result) => result.callId),
        ["c0", "c1", "c2"],
      )
    }),
  )

  it.effect("keeps the order of the calls when they run concurrently", () =>
    Effect.gen(function* () {
      const calls = [30, 10, 20].map((ms, i) => ToolCall.make(`c${i}`, "wait", String(ms)))
      const fiber = yield* Effect.forkChild(Toolbox.callAll(sleeper, calls, { concurrency: 3 }))
      yield* TestClock.adjust(30)
      const results = yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        results.map((result) => result.content),
        ["30", "10", "20"],
      )
    }),
  )

  it.effect("turns a defect or an interruption inside a toolbox into a failed result", () => {
    const logs = captureLogs()
    return Effect.gen(function* () {
      const results = yield* Toolbox.callAll(misbehaving, [
        ToolCall.make("a", "boom"),
        ToolCall.make("b", "stop"),
      ])
      assert.deepStrictEqual(results, [
        ToolResult.error("a", "tool boom failed unexpectedly"),
        ToolResult.error("b", "tool stop was interrupted", "interrupted"),
      ])
      assert.strictEqual(logs.logged.length, 2)
      assert.include(logs.logged[0], "kaboom")
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect(
    "answers a handler that throws, dies or fails with any value, and the next call too",
    () => {
      const logs = captureLogs()
      return Effect.gen(function* () {
        for (const [name, value] of hostileValues()) {
          const behaviours = {
            throws: () => {
              throw value
            },
            dies: () => Effect.die(value),
            fails: () => Effect.fail(value) as never,
          }
          for (const [how, call] of Object.entries(behaviours)) {
            const toolbox = Toolbox.make({
              tools: [Tool.make("bad", "Misbehaves.")],
              call: (call_) =>
                call_.id === "ok" ? Effect.succeed(ToolResult.make("ok", "fine")) : call(),
            })
            const results = yield* Toolbox.callAll(toolbox, [
              ToolCall.make("a", "bad"),
              ToolCall.make("ok", "bad"),
            ])
            assert.deepStrictEqual(
              results,
              [
                ToolResult.error("a", "tool bad failed unexpectedly"),
                ToolResult.make("ok", "fine"),
              ],
              `a handler that ${how} with ${name}`,
            )
          }
        }
        assert.strictEqual(logs.logged.length, hostileValues().length * 3)
      }).pipe(Effect.provide(logs.layer))
    },
  )

  it.effect("answers a call whose defect a logger cannot write", () =>
    Effect.gen(function* () {
      const results = yield* Toolbox.callAll(misbehaving, [ToolCall.make("a", "boom")])
      assert.deepStrictEqual(results, [ToolResult.error("a", "tool boom failed unexpectedly")])
    }).pipe(Effect.provide(Logger.layer([Logger.make(() => throwing("log"))]))),
  )

  it("gives exactly one result per call, with the call's id, whatever the calls", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ id: fc.string(), name: fc.constantFrom("boom", "stop", "other") })),
        fc.integer({ min: 1, max: 4 }),
        async (specs, concurrency) => {
          const calls = specs.map((spec) => ToolCall.make(spec.id, spec.name))
          const results = await Effect.runPromise(
            Toolbox.callAll(misbehaving, calls, { concurrency }).pipe(
              Effect.provide(captureLogs().layer),
            ),
          )
          assert.deepStrictEqual(
            results.map((result) => result.callId),
            calls.map((call) => call.id),
          )
        },
      ),
      { numRuns: 50, seed: 4242 },
    )
  })

  /** What a handler does with a call; `value` picks one of the hostile values. */
  type Behaviour =
    | { readonly kind: "answer" | "answerLate" | "failedResult" | "interrupt" | "timeOut" }
    | { readonly kind: "throw" | "die" | "fail"; readonly value: number }

  const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
    fc.constantFrom<Behaviour>(
      { kind: "answer" },
      { kind: "answerLate" },
      { kind: "failedResult" },
      { kind: "interrupt" },
      { kind: "timeOut" },
    ),
    fc.record({
      kind: fc.constantFrom("throw" as const, "die" as const, "fail" as const),
      value: fc.nat({ max: hostileValues().length - 1 }),
    }),
  )

  /** Whether the call's result should be a success. */
  const succeeds = (b: Behaviour): boolean => b.kind === "answer" || b.kind === "answerLate"

  /** A toolbox that does with each call what the behaviour at index `call.name` says. */
  const scripted = (behaviours: ReadonlyArray<Behaviour>) => {
    const hostile = hostileValues()
    return Toolbox.make({
      tools: [],
      call: (call) => {
        const b = behaviours[Number(call.name)]!
        switch (b.kind) {
          case "answer":
            return Effect.succeed(ToolResult.make(call.id, "done"))
          case "answerLate":
            return Effect.as(Effect.sleep("300 millis"), ToolResult.make(call.id, "done"))
          case "failedResult":
            return Effect.succeed(ToolResult.error(call.id, "not done"))
          case "interrupt":
            return Effect.interrupt as never
          case "timeOut":
            return Effect.timeout(Effect.never, "1 second") as never
          case "throw":
            throw hostile[b.value]![1]
          case "die":
            return Effect.die(hostile[b.value]![1])
          case "fail":
            return Effect.fail(hostile[b.value]![1]) as never
        }
      },
    })
  }

  it("answers any mix of behaviours exactly once per call, in order, at any concurrency", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ id: fc.string({ maxLength: 3 }), does: behaviour }), {
          maxLength: 12,
        }),
        fc.constantFrom<number | "unbounded">(1, 4, "unbounded"),
        async (specs, concurrency) => {
          const calls = specs.map((spec, i) => ToolCall.make(spec.id, String(i)))
          const toolbox = scripted(specs.map((spec) => spec.does))
          const program = Effect.gen(function* () {
            const fiber = yield* Effect.forkChild(Toolbox.callAll(toolbox, calls, { concurrency }))
            // A call waits a second at most, so a second per call ends them all, one after another.
            for (let i = 0; i <= calls.length && fiber.pollUnsafe() === undefined; i++) {
              yield* TestClock.adjust("1 second")
            }
            assert.isDefined(fiber.pollUnsafe(), "every call should have been answered by now")
            return yield* Fiber.join(fiber)
          })
          const results = await Effect.runPromise(
            program.pipe(Effect.provide(Layer.merge(TestClock.layer(), captureLogs().layer))),
          )
          assert.deepStrictEqual(
            results.map((result) => [result.callId, !result.isError]),
            specs.map((spec) => [spec.id, succeeds(spec.does)]),
          )
        },
      ),
      { numRuns: 300, seed: 20_240_611 },
    )
  })

  it.effect("combines toolboxes and routes each call to the one that offers it", () =>
    Effect.gen(function* () {
      const greeter = Toolbox.make({
        tools: [Tool.make("greet", "Say hello.")],
        call: (call) => Effect.succeed(ToolResult.make(call.id, "hello")),
      })
      const both = yield* Toolbox.combine([greeter, sleeper])
      assert.deepStrictEqual(
        (yield* both.tools).map((tool) => tool.name),
        ["greet", "wait"],
      )
      const [greeting, unknown] = yield* Toolbox.callAll(both, [
        ToolCall.make("a", "greet"),
        ToolCall.make("b", "fly"),
      ])
      assert.deepStrictEqual(greeting, ToolResult.make("a", "hello"))
      assert.deepStrictEqual(unknown, ToolResult.unknownTool("b", "fly", ["greet", "wait"]))
    }),
  )

  it.effect("reports every name two toolboxes both offer, as the registry's merge does", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Toolbox.combine([sleeper, misbehaving, misbehaving, sleeper] as const),
      )
      assert.strictEqual(error._tag, "ToolClash")
      assert.deepStrictEqual(error.names, ["boom", "stop", "wait"])
      assert.strictEqual(
        error.message,
        "two toolboxes offer tools named boom, stop, wait: rename one, or give one of them a prefix",
      )
      assert.strictEqual(
        Toolbox.ToolClash.of(["wait"]).message,
        "two toolboxes offer a tool named wait: rename one, or give one of them a prefix",
      )
    }),
  )
})
