import { assert, describe, it } from "@effect/vitest"
import { fc } from "@fast-check/vitest"
import { Request, Tool, Toolbox, ToolCall, type ToolResult } from "@svir/core"
import { Arguments, Tools } from "@svir/registry"
import { Context, Data, Effect, Exit, Fiber, Logger, Schema, SchemaGetter } from "effect"
import { TestClock } from "effect/testing"
import { z } from "zod"

const Lookup = Schema.Struct({ id: Schema.Int })

const content = (results: ReadonlyArray<ToolResult.ToolResult>) =>
  results.map((result) => [result.callId, result.isError, result.content] as const)

const one = <R>(tools: Tools.Tools<R>, name: string, args = "") =>
  Tools.call(tools, ToolCall.make("c", name, args))

class Boom extends Data.TaggedError("Boom")<{ readonly message: string }> {}

describe("registration", () => {
  it.effect("chains, keeps order, and a name added again replaces the earlier tool", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(
        Tools.add("a", "first a", Lookup, () => "a1"),
        Tools.add("b", "b", Lookup, () => "b"),
        Tools.add("a", "second a", Lookup, () => "a2"),
      )
      const offered = yield* Tools.definitions(tools)
      assert.deepStrictEqual(
        offered.map((tool) => [tool.name, tool.description]),
        [
          ["a", "second a"],
          ["b", "b"],
        ],
      )
      assert.strictEqual((yield* one(tools, "a", '{"id": 1}')).content, "a2")
    }),
  )

  it.effect("is immutable: adding to a registry leaves it as it was", () =>
    Effect.gen(function* () {
      const base = Tools.empty.pipe(Tools.add("a", "a", Lookup, () => "a"))
      const more = base.pipe(Tools.add("b", "b", Lookup, () => "b"))
      assert.deepStrictEqual(Tools.names(base), ["a"])
      assert.deepStrictEqual(Tools.names(more), ["a", "b"])
      assert.deepStrictEqual(Tools.names(Tools.empty), [])
    }),
  )

  it.effect("data-first and data-last forms agree", () =>
    Effect.gen(function* () {
      const first = Tools.add(Tools.empty, "a", "a", Lookup, ({ id }) => id * 2)
      const last = Tools.empty.pipe(Tools.add("a", "a", Lookup, ({ id }) => id * 2))
      assert.deepStrictEqual(yield* Tools.definitions(first), yield* Tools.definitions(last))
      assert.strictEqual((yield* one(first, "a", '{"id": 4}')).content, "8")
      const raw = Tools.addTool(Tools.empty, Tool.make("r", "raw"), (json) => json as object)
      assert.strictEqual((yield* one(raw, "r", '{"x": [1]}')).content, '{"x":[1]}')
    }),
  )

  it.effect("merge joins two registries, and reports every clashing name as ToolClash", () =>
    Effect.gen(function* () {
      const left = Tools.empty.pipe(
        Tools.add("a", "a", Lookup, () => "a"),
        Tools.add("b", "b", Lookup, () => "b"),
      )
      const right = Tools.empty.pipe(Tools.add("c", "c", Lookup, () => "c"))
      const merged = yield* Tools.merge(left, right)
      assert.deepStrictEqual(Tools.names(merged), ["a", "b", "c"])
      const clash = yield* Effect.flip(Tools.merge(left, left))
      assert.strictEqual(clash._tag, "ToolClash")
      assert.deepStrictEqual(clash.names, ["a", "b"])
      assert.strictEqual(clash.message, "both registries offer tools named a, b")
      const piped = yield* left.pipe(Tools.merge(right))
      assert.deepStrictEqual(Tools.names(piped), ["a", "b", "c"])
    }),
  )
})

describe("hand-written tools", () => {
  const lookup = Tool.make("lookup", "Find an order.", {
    type: "object",
    properties: { id: { type: "integer" } },
    required: ["id"],
  })

  it.effect("offer the hand-written schema and decode with the given schema", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(Tools.addTool(lookup, Lookup, ({ id }) => `order ${id}`))
      assert.deepStrictEqual(yield* Tools.definitions(tools), [lookup])
      assert.strictEqual((yield* one(tools, "lookup", '{"id": 7}')).content, "order 7")
      const bad = yield* one(tools, "lookup", '{"id": 7.5}')
      assert.isTrue(bad.isError)
      assert.match(bad.content, /^invalid arguments: id: /)
    }),
  )

  it.effect("a raw handler gets the JSON value; no schema means no arguments", () =>
    Effect.gen(function* () {
      const seen: Array<unknown> = []
      const tools = Tools.empty.pipe(
        Tools.addTool(Tool.make("now", "The time."), (json) => {
          seen.push(json)
          return "noon"
        }),
      )
      assert.deepStrictEqual((yield* Tools.definitions(tools))[0]!.inputSchema, Tool.noArguments)
      for (const args of ["", "   ", "{}", "\n"]) {
        assert.strictEqual((yield* one(tools, "now", args)).content, "noon")
      }
      assert.deepStrictEqual(seen, [{}, {}, {}, {}])
    }),
  )

  it.effect("a zod schema works as the argument type, with its JSON Schema", () =>
    Effect.gen(function* () {
      const Search = z.object({
        query: z.string().describe("What to look for."),
        limit: z.number().int().min(1).default(10),
      })
      const tools = Tools.empty.pipe(
        Tools.add("search", "Search.", Search, ({ query, limit }) => `${query}:${limit}`),
      )
      const [tool] = yield* Tools.definitions(tools)
      assert.deepStrictEqual(tool!.inputSchema.required, ["query"])
      assert.strictEqual((yield* one(tools, "search", '{"query": "x"}')).content, "x:10")
      const bad = yield* one(tools, "search", '{"query": 1, "limit": 0}')
      assert.isTrue(bad.isError)
      assert.match(bad.content, /^invalid arguments: query: .*; limit: /)
      const viaAddTool = Tools.empty.pipe(
        Tools.addTool(Tool.make("s", "s"), Search, ({ limit }) => limit),
      )
      assert.strictEqual((yield* one(viaAddTool, "s", '{"query": "q"}')).content, "10")
    }),
  )
})

describe("schema libraries that throw", () => {
  it.effect("a validator that throws is answered as a defect, through every entry point", () =>
    Effect.gen(function* () {
      const Throws = z.object({ q: z.string() }).refine(() => {
        throw new Error("validator bug")
      })
      const tools = Tools.empty.pipe(Tools.add("t", "t", Throws, () => "never"))
      const call = ToolCall.make("c", "t", '{"q": "x"}')
      const viaTools = yield* Tools.call(tools, call)
      const viaAll = yield* Tools.callAll(tools, [call, call], { concurrency: 2 })
      const viaToolbox = yield* Toolbox.callSafely(tools, call)
      for (const result of [viaTools, ...viaAll, viaToolbox]) {
        assert.deepStrictEqual(
          [result.callId, result.isError, result.content],
          ["c", true, "tool t failed unexpectedly"],
        )
      }
    }).pipe(Effect.provide(Logger.layer([]))),
  )
})

describe("validation", () => {
  const Booking = Schema.Struct({
    city: Schema.String,
    nights: Schema.Int,
    breakfast: Schema.optionalKey(Schema.Boolean),
  })

  it.effect("arguments that do not fit never reach the handler; every field is named", () =>
    Effect.gen(function* () {
      let ran = 0
      const tools = Tools.empty.pipe(
        Tools.add("book", "Book.", Booking, () => {
          ran++
          return "booked"
        }),
      )
      const result = yield* one(tools, "book", '{"city": 3, "nights": "two", "extra": true}')
      assert.strictEqual(ran, 0)
      assert.isTrue(result.isError)
      assert.strictEqual(
        result.content,
        'invalid arguments: extra: Unexpected key with value true; city: Expected string, got 3; nights: Expected number, got "two"',
      )
    }),
  )

  it.effect("text that is not JSON says where it broke", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(Tools.add("book", "Book.", Booking, () => "booked"))
      const result = yield* one(tools, "book", '{"city": }')
      assert.isTrue(result.isError)
      assert.match(
        result.content,
        /^invalid arguments: arguments are not valid JSON: unexpected "}"/,
      )
    }),
  )

  it.effect("empty or blank arguments read as {}", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(
        Tools.add(
          "opt",
          "All optional.",
          Schema.Struct({ a: Schema.optionalKey(Schema.String) }),
          (a) => a,
        ),
      )
      for (const args of ["", " ", "\t\n"]) {
        const result = yield* one(tools, "opt", args)
        assert.deepStrictEqual([result.isError, result.content], [false, "{}"])
      }
    }),
  )

  it.effect("a null for an optional field reads as left out (OpenAI strict mode sends it)", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(
        Tools.add(
          "search",
          "Search.",
          Schema.Struct({
            query: Schema.String,
            limit: Schema.Int.pipe(Arguments.withDefault(10)),
            topic: Schema.optionalKey(Schema.String),
            inner: Schema.optionalKey(Schema.Struct({ deep: Schema.optionalKey(Schema.Int) })),
          }),
          (args) => args,
        ),
      )
      const result = yield* one(
        tools,
        "search",
        '{"query": "q", "limit": null, "topic": null, "inner": {"deep": null}}',
      )
      assert.deepStrictEqual(JSON.parse(result.content), { query: "q", limit: 10, inner: {} })
      const strict = yield* Tools.definitions(tools, { strict: true })
      assert.deepStrictEqual(strict[0]!.inputSchema.required, ["query", "limit", "topic", "inner"])
      assert.isTrue(strict[0]!.strict)
      assert.isUndefined((yield* Tools.definitions(tools))[0]!.strict)
    }),
  )

  it.effect("a null reads as left out in objects inside arrays and behind a $ref too", () =>
    Effect.gen(function* () {
      const Item = Schema.Struct({ a: Schema.String, b: Schema.optionalKey(Schema.String) })
      const Named = Item.annotate({ identifier: "Item" })
      const tools = Tools.empty.pipe(
        Tools.add("list", "List.", Schema.Struct({ items: Schema.Array(Item) }), (args) => args),
        Tools.add("ref", "Ref.", Schema.Struct({ one: Named, two: Named }), (args) => args),
        Tools.add("maybe", "Maybe.", Schema.Struct({ it: Schema.NullOr(Item) }), (args) => args),
        Tools.add(
          "zod",
          "Zod.",
          z.object({ items: z.array(z.object({ a: z.string(), b: z.string().optional() })) }),
          (args) => args,
        ),
      )
      const strict = yield* Tools.definitions(tools, { strict: true })
      assert.isTrue(strict.every((tool) => JSON.stringify(tool.inputSchema).includes('"null"')))
      const calls = [
        ToolCall.make("1", "list", '{"items": [{"a": "x", "b": null}, {"a": "y", "b": "z"}]}'),
        ToolCall.make("2", "ref", '{"one": {"a": "x", "b": null}, "two": {"a": "y", "b": null}}'),
        ToolCall.make("3", "zod", '{"items": [{"a": "x", "b": null}]}'),
        ToolCall.make("4", "maybe", '{"it": {"a": "x", "b": null}}'),
        ToolCall.make("5", "maybe", '{"it": null}'),
      ]
      assert.deepStrictEqual(content(yield* Tools.callAll(tools, calls)), [
        ["1", false, '{"items":[{"a":"x"},{"a":"y","b":"z"}]}'],
        ["2", false, '{"one":{"a":"x"},"two":{"a":"y"}}'],
        ["3", false, '{"items":[{"a":"x"}]}'],
        ["4", false, '{"it":{"a":"x"}}'],
        ["5", false, '{"it":null}'],
      ])
    }),
  )

  it.effect("decodes transformations: the handler sees the decoded type", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(
        Tools.add(
          "when",
          "When.",
          Schema.Struct({ at: Schema.DateTimeUtcFromString, n: Schema.NumberFromString }),
          ({ at, n }) => `${at.epochMilliseconds + n}`,
        ),
      )
      const result = yield* one(tools, "when", '{"at": "1970-01-01T00:00:01Z", "n": "5"}')
      assert.deepStrictEqual([result.isError, result.content], [false, "1005"])
    }),
  )
})

describe("unknown tools", () => {
  it.effect("get a failed result naming the tools that exist", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(
        Tools.add("a", "a", Lookup, () => "a"),
        Tools.add("b", "b", Lookup, () => "b"),
      )
      const result = yield* one(tools, "c")
      assert.deepStrictEqual(
        [result.isError, result.content],
        [true, "no tool named c; the tools are: a, b"],
      )
      assert.strictEqual(
        (yield* one(Tools.empty, "c")).content,
        "no tool named c; there are no tools",
      )
    }),
  )
})

describe("what a handler returns", () => {
  const Any = Schema.Struct({})
  const cases: ReadonlyArray<
    readonly [string, Tools.Handler<unknown, unknown, never>, boolean, string]
  > = [
    ["string", () => "text", false, "text"],
    ["object", () => ({ a: [1, true, null] }), false, '{"a":[1,true,null]}'],
    ["array", () => [1, "two"], false, '[1,"two"]'],
    ["number", () => 4.5, false, "4.5"],
    ["boolean", () => false, false, "false"],
    ["null", () => null, false, "null"],
    ["promise", () => Promise.resolve({ ok: 1 }), false, '{"ok":1}'],
    ["effect", () => Effect.succeed("done"), false, "done"],
    ["effect failing", () => Effect.fail(new Boom({ message: "it broke" })), true, "it broke"],
    ["effect failing with a string", () => Effect.fail("plain words"), true, "plain words"],
    ["effect failing with a tag only", () => Effect.fail({ _tag: "NotFound" }), true, "NotFound"],
    [
      "effect failing with an empty Error",
      // An untagged error with no message, as untyped code gives: the model is told its name.
      // @effect-diagnostics-next-line globalErrorInEffectFailure:off
      () => Effect.fail(new RangeError("")),
      true,
      "RangeError",
    ],
    [
      "throws",
      () => {
        throw new Error("secret detail")
      },
      true,
      "tool t failed unexpectedly",
    ],
    ["rejects", () => Promise.reject(new Error("secret")), true, "tool t failed unexpectedly"],
    ["dies", () => Effect.die("bug"), true, "tool t failed unexpectedly"],
    ["is interrupted", () => Effect.interrupt, true, "tool t was interrupted"],
    ["bigint", () => ({ n: 1n }), true, "tool t returned a value that cannot be written as JSON"],
  ]
  for (const [name, handler, isError, expected] of cases) {
    it.effect(name, () =>
      Effect.gen(function* () {
        const tools = Tools.empty.pipe(Tools.add("t", "t", Any, handler))
        const result = yield* one(tools, "t").pipe(Effect.provide(Logger.layer([])))
        assert.deepStrictEqual(
          [result.callId, result.isError, result.content],
          ["c", isError, expected],
        )
      }),
    )
  }

  it.effect("a defect is logged", () =>
    Effect.gen(function* () {
      const logged: Array<unknown> = []
      const logger = Logger.make((options) => {
        logged.push(options.message)
      })
      const tools = Tools.empty.pipe(
        Tools.add("t", "t", Any, () => {
          throw new Error("secret detail")
        }),
      )
      yield* one(tools, "t").pipe(Effect.provide(Logger.layer([logger])))
      assert.strictEqual(logged.length, 1)
      assert.include(String(logged[0]), "tool t failed unexpectedly")
    }),
  )

  it.effect("handlers see the call they answer", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(Tools.add("t", "t", Any, (_, call) => call.id))
      assert.strictEqual((yield* Tools.call(tools, ToolCall.make("xyz", "t"))).content, "xyz")
    }),
  )
})

describe("answering calls", () => {
  it.effect("callAll answers every call, in order, each with its id", () =>
    Effect.gen(function* () {
      const order: Array<string> = []
      const tools = Tools.empty.pipe(
        Tools.add("sync", "s", Lookup, ({ id }) => {
          order.push(`sync ${id}`)
          return `s${id}`
        }),
        Tools.add("later", "l", Lookup, ({ id }) =>
          Effect.sync(() => {
            order.push(`later ${id}`)
            return `l${id}`
          }).pipe(Effect.delay("1 millis")),
        ),
      )
      const calls = [
        ToolCall.make("1", "sync", '{"id": 1}'),
        ToolCall.make("2", "later", '{"id": 2}'),
        ToolCall.make("3", "sync", '{"id": 3}'),
        ToolCall.make("4", "missing"),
        ToolCall.make("5", "later", "not json"),
      ]
      const fiber = yield* Effect.forkChild(Tools.callAll(tools, calls))
      yield* TestClock.adjust("10 millis")
      const results = yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        results.map((result) => result.callId),
        ["1", "2", "3", "4", "5"],
      )
      assert.deepStrictEqual(order, ["sync 1", "later 2", "sync 3"])
      assert.deepStrictEqual(
        content(results).map(([, isError]) => isError),
        [false, false, false, true, true],
      )
    }),
  )

  it.effect("with a concurrency bound, calls overlap and results keep the calls' order", () =>
    Effect.gen(function* () {
      let running = 0
      let most = 0
      const tools = Tools.empty.pipe(
        Tools.add("wait", "w", Lookup, ({ id }) =>
          Effect.gen(function* () {
            running++
            most = Math.max(most, running)
            yield* Effect.sleep(`${10 - id} millis`)
            running--
            return `done ${id}`
          }),
        ),
      )
      const calls = Array.from({ length: 8 }, (_, i) =>
        ToolCall.make(`c${i}`, "wait", `{"id": ${i}}`),
      )
      const fiber = yield* Effect.forkChild(Tools.callAll(tools, calls, { concurrency: 3 }))
      yield* TestClock.adjust("100 millis")
      const results = yield* Fiber.join(fiber)
      assert.strictEqual(most, 3)
      assert.deepStrictEqual(
        results.map((result) => result.content),
        calls.map((_, i) => `done ${i}`),
      )
    }),
  )

  it.effect("a call that takes longer than the timeout is stopped with a failed result", () =>
    Effect.gen(function* () {
      let finished = false
      const tools = Tools.empty.pipe(
        Tools.add("slow", "s", Lookup, () =>
          Effect.sleep("10 seconds").pipe(
            Effect.map(() => {
              finished = true
              return "late"
            }),
          ),
        ),
        Tools.add("fast", "f", Lookup, () => "quick"),
      )
      const calls = [
        ToolCall.make("1", "slow", '{"id": 1}'),
        ToolCall.make("2", "fast", '{"id": 1}'),
      ]
      const fiber = yield* Effect.forkChild(Tools.callAll(tools, calls, { timeout: "1 second" }))
      yield* TestClock.adjust("2 seconds")
      const results = yield* Fiber.join(fiber)
      assert.deepStrictEqual(content(results), [
        ["1", true, "tool slow did not answer within 1s and was stopped"],
        ["2", false, "quick"],
      ])
      yield* TestClock.adjust("20 seconds")
      assert.isFalse(finished)
    }),
  )

  it.effect("output longer than maxOutput is cut and marked", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(
        Tools.add("big", "b", Lookup, ({ id }) => "x".repeat(id)),
        Tools.add("bigLater", "b", Lookup, ({ id }) => Effect.succeed("y".repeat(id))),
      )
      const results = yield* Tools.callAll(
        tools,
        [
          ToolCall.make("1", "big", '{"id": 5}'),
          ToolCall.make("2", "big", '{"id": 50}'),
          ToolCall.make("3", "bigLater", '{"id": 50}'),
        ],
        { maxOutput: 10 },
      )
      assert.deepStrictEqual(content(results), [
        ["1", false, "xxxxx"],
        ["2", false, "xxxxxxxxxx\n[output truncated: 10 of 50 characters shown]"],
        ["3", false, "yyyyyyyyyy\n[output truncated: 10 of 50 characters shown]"],
      ])
    }),
  )

  it.effect("it is a Toolbox: Request.toolsFrom offers its tools", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(Tools.add("lookup", "Find an order.", Lookup, () => "x"))
      const request = yield* Request.make("m").pipe(Request.toolsFrom(tools))
      assert.deepStrictEqual(request.tools, yield* Tools.definitions(tools))
      assert.deepStrictEqual(request.tools[0]!.inputSchema, {
        type: "object",
        properties: { id: { type: "integer" } },
        required: ["id"],
        additionalProperties: false,
      })
    }),
  )
})

describe("services", () => {
  class Workspace extends Context.Service<Workspace, { readonly root: string }>()("Workspace") {}

  const tools = Tools.empty.pipe(
    Tools.add("root", "The workspace root.", Schema.Struct({}), () =>
      Effect.map(Effect.service(Workspace), (workspace) => workspace.root),
    ),
  )

  it.effect("a handler's services are provided by the caller, per call", () =>
    Effect.gen(function* () {
      const answer = (root: string) =>
        Tools.call(tools, ToolCall.make("c", "root")).pipe(
          Effect.provideService(Workspace, Workspace.of({ root })),
        )
      assert.strictEqual((yield* answer("/a")).content, "/a")
      assert.strictEqual((yield* answer("/b")).content, "/b")
    }),
  )

  it("a registry whose handlers need services cannot run without them (type test)", () => {
    const needs: Tools.Tools<Workspace> = tools
    const run = () =>
      // @ts-expect-error Workspace is not provided
      Effect.runPromise(Tools.callAll(needs, [ToolCall.make("c", "root")]))
    const runProvided = () =>
      Effect.runPromise(
        Tools.callAll(needs, [ToolCall.make("c", "root")]).pipe(
          Effect.provideService(Workspace, Workspace.of({ root: "/" })),
        ),
      )
    assert.isFunction(run)
    assert.isFunction(runProvided)
  })
})

describe("properties", () => {
  const Booking = Schema.Struct({
    city: Schema.String,
    nights: Schema.Int,
    breakfast: Schema.optionalKey(Schema.Boolean),
  })

  type Outcome =
    | { readonly _tag: "text"; readonly text: string }
    | { readonly _tag: "json"; readonly value: unknown }
    | { readonly _tag: "fail"; readonly message: string }
    | { readonly _tag: "throw" }
    | { readonly _tag: "die" }
    | { readonly _tag: "interrupt" }
    | { readonly _tag: "reject" }
    | { readonly _tag: "promise"; readonly text: string }

  const outcome: fc.Arbitrary<Outcome> = fc.oneof(
    fc.record({ _tag: fc.constant("text" as const), text: fc.string() }),
    fc.record({ _tag: fc.constant("json" as const), value: fc.jsonValue() }),
    fc.record({ _tag: fc.constant("fail" as const), message: fc.string() }),
    fc.constant({ _tag: "throw" as const }),
    fc.constant({ _tag: "die" as const }),
    fc.constant({ _tag: "interrupt" as const }),
    fc.constant({ _tag: "reject" as const }),
    fc.record({ _tag: fc.constant("promise" as const), text: fc.string() }),
  )

  const handlerFor =
    (result: Outcome): Tools.Handler<unknown, unknown, never> =>
    () => {
      switch (result._tag) {
        case "text":
          return result.text
        case "json":
          return result.value as object
        case "fail":
          return Effect.fail(new Boom({ message: result.message }))
        case "throw":
          throw new Error("thrown")
        case "die":
          return Effect.die("died")
        case "interrupt":
          return Effect.interrupt
        case "reject":
          return Promise.reject(new Error("rejected"))
        case "promise":
          return Promise.resolve(result.text)
      }
    }

  const argumentsText = fc.oneof(
    fc.string(),
    fc.json(),
    fc
      .record(
        { city: fc.oneof(fc.string(), fc.integer()), nights: fc.oneof(fc.integer(), fc.double()) },
        { requiredKeys: [] },
      )
      .map((value) => JSON.stringify(value)),
  )

  const silent = Logger.layer([])

  it.effect("a call never fails and gives exactly one result with the call's id", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.string(),
          fc.constantFrom("book", "raw", "other"),
          argumentsText,
          outcome,
          async (id, name, args, result) => {
            const handler = handlerFor(result)
            const tools = Tools.empty.pipe(
              Tools.add("book", "Book.", Booking, handler),
              Tools.addTool(Tool.make("raw", "Raw."), handler),
            )
            const exit = await Effect.runPromiseExit(
              Tools.call(tools, ToolCall.make(id, name, args)).pipe(Effect.provide(silent)),
            )
            assert.isTrue(Exit.isSuccess(exit))
            if (Exit.isSuccess(exit)) {
              assert.strictEqual(exit.value.callId, id)
              assert.isString(exit.value.content)
            }
          },
        ),
        { numRuns: 300 },
      ),
    ),
  )

  it.effect("callAll gives one result per call, in the calls' order, at any concurrency", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.constantFrom("book", "raw", "other"), argumentsText, outcome), {
            maxLength: 12,
          }),
          fc.integer({ min: 1, max: 5 }),
          async (specs, concurrency) => {
            const calls = specs.map(([name, args], i) => ToolCall.make(`call_${i}`, name, args))
            const outcomes = new Map(specs.map(([, , result], i) => [`call_${i}`, result]))
            const perCall: Tools.Handler<unknown, unknown, never> = (args, call) =>
              handlerFor(outcomes.get(call.id)!)(args, call)
            const tools = Tools.empty.pipe(
              Tools.add("book", "Book.", Booking, perCall),
              Tools.addTool(Tool.make("raw", "Raw."), perCall),
            )
            const results = await Effect.runPromise(
              Tools.callAll(tools, calls, { concurrency, maxOutput: 50 }).pipe(
                Effect.provide(silent),
              ),
            )
            assert.deepStrictEqual(
              results.map((result) => result.callId),
              calls.map((call) => call.id),
            )
          },
        ),
        { numRuns: 100 },
      ),
    ),
  )

  it.effect("the handler sees exactly the arguments that decode, and nothing else reaches it", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(argumentsText, async (args) => {
          const seen: Array<unknown> = []
          const tools = Tools.empty.pipe(
            Tools.add("book", "Book.", Booking, (decoded) => {
              seen.push(decoded)
              return "ok"
            }),
          )
          const result = await Effect.runPromise(
            Tools.call(tools, ToolCall.make("c", "book", args)),
          )
          const json = ToolCall.readJson(args)
          const expected =
            json._tag === "Success"
              ? Schema.decodeUnknownExit(Booking, { onExcessProperty: "error" })(json.success)
              : undefined
          if (expected !== undefined && Exit.isSuccess(expected)) {
            assert.deepStrictEqual(seen, [expected.value])
            assert.isFalse(result.isError)
          } else {
            assert.deepStrictEqual(seen, [])
            assert.isTrue(result.content.startsWith("invalid arguments: "))
          }
        }),
        { numRuns: 300 },
      ),
    ),
  )

  const Mixed = Schema.Struct({
    name: Schema.String.check(Schema.isMinLength(2)),
    kind: Schema.Literals(["a", "b"]),
    score: Schema.NullOr(Schema.Finite),
    counts: Schema.Array(Schema.Int),
    flag: Schema.optionalKey(Schema.Boolean),
    big: Schema.Int.check(Schema.isGreaterThan(10)),
  })

  const mixedValue = fc.record(
    {
      name: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()),
      kind: fc.oneof(fc.constantFrom("a", "b", "c"), fc.constant(null)),
      score: fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.constant(null),
        fc.string(),
      ),
      counts: fc.oneof(fc.array(fc.oneof(fc.integer(), fc.double())), fc.string()),
      flag: fc.oneof(fc.boolean(), fc.constant(null), fc.integer()),
      big: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.double()),
      extra: fc.string(),
    },
    { requiredKeys: [] },
  )

  it.effect("the quick check of plain fields agrees with full decoding", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(mixedValue, async (value) => {
          const seen: Array<unknown> = []
          const tools = Tools.empty.pipe(
            Tools.add("m", "Mixed.", Mixed, (decoded) => {
              seen.push(decoded)
              return "ok"
            }),
          )
          const result = await Effect.runPromise(
            Tools.call(tools, ToolCall.make("c", "m", JSON.stringify(value))),
          )
          const expected = Schema.decodeUnknownExit(Schema.toCodecJson(Mixed), {
            onExcessProperty: "error",
          })(JSON.parse(JSON.stringify(value)))
          if (Exit.isSuccess(expected)) {
            assert.deepStrictEqual(seen, [expected.value])
          } else {
            assert.deepStrictEqual(seen, [])
            assert.isTrue(result.content.startsWith("invalid arguments: "))
          }
        }),
        { numRuns: 500 },
      ),
    ),
  )
})

describe("schemas that decode later", () => {
  it.effect("a Standard Schema whose validation is a Promise", () =>
    Effect.gen(function* () {
      const Later: Arguments.StandardArguments<{ readonly n: number }> = {
        "~standard": {
          version: 1,
          vendor: "test",
          validate: async (value) =>
            typeof value === "object" &&
            value !== null &&
            "n" in value &&
            typeof value.n === "number"
              ? { value: { n: value.n } }
              : { issues: [{ message: "Expected a number", path: [{ key: "n" }] }] },
          jsonSchema: {
            input: () => ({
              type: "object",
              properties: { n: { type: "number" } },
              required: ["n"],
            }),
            output: () => ({}),
          },
        },
      }
      const tools = Tools.empty.pipe(Tools.add("later", "Later.", Later, ({ n }) => n + 1))
      const results = yield* Tools.callAll(tools, [
        ToolCall.make("1", "later", '{"n": 1}'),
        ToolCall.make("2", "later", '{"n": "x"}'),
      ])
      assert.deepStrictEqual(content(results), [
        ["1", false, "2"],
        ["2", true, "invalid arguments: n: Expected a number"],
      ])
    }),
  )

  it.effect("an Effect Schema whose decoding needs a service", () =>
    Effect.gen(function* () {
      class Rates extends Context.Service<Rates, { readonly euro: number }>()("Rates") {}
      const Euros = Schema.Finite.pipe(
        Schema.decodeTo(Schema.Finite, {
          decode: SchemaGetter.transformEffect((dollars: number) =>
            Effect.map(Effect.service(Rates), (rates) => dollars * rates.euro),
          ),
          encode: SchemaGetter.passthrough(),
        }),
      )
      const tools = Tools.empty.pipe(
        Tools.add(
          "convert",
          "Convert.",
          Schema.Struct({ dollars: Euros }),
          ({ dollars }) => dollars,
        ),
      )
      const needsRates: Tools.Tools<Rates> = tools
      const results = yield* Tools.callAll(needsRates, [
        ToolCall.make("1", "convert", '{"dollars": 10}'),
        ToolCall.make("2", "convert", '{"dollars": "ten"}'),
      ]).pipe(Effect.provideService(Rates, Rates.of({ euro: 0.5 })))
      assert.deepStrictEqual(content(results), [
        ["1", false, "5"],
        ["2", true, 'invalid arguments: dollars: Expected number, got "ten"'],
      ])
    }),
  )
})
