import { assert, describe, it } from "@effect/vitest"
import { fc } from "@fast-check/vitest"
import { Json, Request, SvirError, Tool, Toolbox, ToolCall, type ToolResult } from "@svir/core"
import { Arguments, Tools } from "@svir/registry"
import {
  Cause,
  Context,
  Data,
  Deferred,
  type Duration,
  Effect,
  Exit,
  Fiber,
  Logger,
  Schema,
  SchemaGetter,
} from "effect"
import { TestClock } from "effect/testing"
import * as z from "zod"

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
      assert.deepStrictEqual(clash, Toolbox.ToolClash.of(["a", "b"]))
      assert.strictEqual(
        clash.message,
        "two toolboxes offer tools named a, b: rename one, or give one of them a prefix",
      )
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

describe("what the model is offered is what the handler gets", () => {
  it.effect("a zod tool refuses a key its closed schema does not name, at any depth", () =>
    Effect.gen(function* () {
      const seen: Array<unknown> = []
      const Search = z.object({
        limit: z.number().optional(),
        inner: z.object({ a: z.string() }).optional(),
        items: z.array(z.object({ x: z.number() })).optional(),
        open: z.looseObject({ a: z.string() }).optional(),
      })
      const tools = Tools.empty.pipe(
        Tools.add("search", "Search.", Search, (args) => {
          seen.push(args)
          return "ok"
        }),
      )
      const calls = [
        ToolCall.make("1", "search", '{"limt": 5}'),
        ToolCall.make("2", "search", '{"inner": {"a": "x", "b": 1}}'),
        ToolCall.make("3", "search", '{"items": [{"x": 1}, {"x": 2, "y": 3}]}'),
        ToolCall.make("4", "search", '{"limt": 5, "limit": "five"}'),
        ToolCall.make("5", "search", '{"open": {"a": "x", "b": 1}, "limit": 5}'),
      ]
      assert.deepStrictEqual(content(yield* Tools.callAll(tools, calls)), [
        ["1", true, "invalid arguments: limt: Unexpected key with value 5"],
        ["2", true, "invalid arguments: inner.b: Unexpected key with value 1"],
        ["3", true, "invalid arguments: items[1].y: Unexpected key with value 3"],
        [
          "4",
          true,
          "invalid arguments: limt: Unexpected key with value 5; limit: Invalid input: expected number, received string",
        ],
        ["5", false, "ok"],
      ])
      // The loose object says so in its JSON Schema, so its extra key is the model's to send.
      assert.deepStrictEqual(seen, [{ open: { a: "x", b: 1 }, limit: 5 }])
    }),
  )

  it.effect("Schema.Number takes a JSON number only, as its JSON Schema says", () =>
    Effect.gen(function* () {
      const Measure = Schema.Struct({
        n: Schema.Number,
        list: Schema.optionalKey(Schema.Array(Schema.NullOr(Schema.Number))),
      })
      const tools = Tools.empty.pipe(Tools.add("m", "Measure.", Measure, (args) => args))
      const [tool] = yield* Tools.definitions(tools)
      assert.deepStrictEqual(tool!.inputSchema.properties, {
        n: { type: "number" },
        list: { type: "array", items: { anyOf: [{ type: "number" }, { type: "null" }] } },
      })
      const calls = [
        ToolCall.make("1", "m", '{"n": 1.5, "list": [2, null]}'),
        ToolCall.make("2", "m", '{"n": "NaN"}'),
        ToolCall.make("3", "m", '{"n": "Infinity"}'),
        ToolCall.make("4", "m", '{"n": "42"}'),
        ToolCall.make("5", "m", '{"n": 1, "list": ["-Infinity"]}'),
      ]
      assert.deepStrictEqual(content(yield* Tools.callAll(tools, calls)), [
        ["1", false, '{"n":1.5,"list":[2,null]}'],
        ["2", true, 'invalid arguments: n: Expected number, got "NaN"'],
        ["3", true, 'invalid arguments: n: Expected number, got "Infinity"'],
        ["4", true, 'invalid arguments: n: Expected number, got "42"'],
        ["5", true, 'invalid arguments: list[0]: Expected number | null, got "-Infinity"'],
      ])
    }),
  )

  interface Tree {
    readonly value: number
    readonly children: ReadonlyArray<Tree>
  }
  const Tree: Schema.Codec<Tree> = Schema.Struct({
    value: Schema.Number,
    children: Schema.Array(Schema.suspend((): Schema.Codec<Tree> => Tree)),
  })
  // Each level of the tree is two levels of JSON: an object and its `children` array.
  const treeText = (levels: number) =>
    `${'{"value":1,"children":['.repeat(levels)}{"value":1,"children":[]}${"]}".repeat(levels)}`
  const ZodTree: z.ZodType<Tree> = z.object({
    value: z.number(),
    get children() {
      return z.array(ZodTree)
    },
  })

  it.effect(
    "a recursive schema is offered, decodes, and arguments nested too deep are invalid",
    () =>
      Effect.gen(function* () {
        const tools = Tools.empty.pipe(
          Tools.add("tree", "Tree.", Tree, () => "ok"),
          Tools.add("zodTree", "Zod tree.", ZodTree, () => "ok"),
        )
        const offered = yield* Tools.definitions(tools)
        const strict = yield* Tools.definitions(tools, { strict: true })
        assert.strictEqual(offered.length, 2)
        assert.strictEqual(strict.length, 2)
        const levels = [3, Json.maxDepth / 2 - 1, Json.maxDepth, 5_000]
        for (const name of ["tree", "zodTree"]) {
          const results = yield* Tools.callAll(
            tools,
            levels.map((n) => ToolCall.make(`${n}`, name, treeText(n))),
          )
          assert.deepStrictEqual(
            results.map((result) => [result.isError, result.content.slice(0, 19)]),
            [
              [false, "ok"],
              [false, "ok"],
              [true, "invalid arguments: "],
              [true, "invalid arguments: "],
            ],
          )
          const unknownKey = yield* one(
            tools,
            name,
            '{"value":1,"children":[{"value":2,"children":[],"x":0}]}',
          )
          assert.strictEqual(
            unknownKey.content,
            "invalid arguments: children[0].x: Unexpected key with value 0",
          )
        }
      }).pipe(Effect.provide(Logger.layer([]))),
  )
})

describe("bounds on what is wrong", () => {
  const Counts = Schema.Struct({ counts: Schema.Array(Schema.Int), label: Schema.String })

  // Before the bound, 10 MB of wrong elements took 11 s and 2.4 GB to report, every one listed.
  // The one issue named shows that decoding stopped at the first (registry R3); the time it
  // takes is measured in the bench, not here.
  it.effect(
    "10 MB of wrong array elements are refused at the cost of reading them, in a short message",
    () =>
      Effect.gen(function* () {
        const tools = Tools.empty.pipe(Tools.add("t", "t", Counts, () => "never"))
        const wrong = Array.from({ length: 2_500_000 }, () => '"x"').join(",")
        const result = yield* one(tools, "t", `{"counts": [${wrong}], "label": 1}`)
        assert.strictEqual(result.content, 'invalid arguments: counts[0]: Expected number, got "x"')
      }),
  )

  it.effect("small arguments get every issue, cut to a few, each short", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(
        Tools.add("t", "t", Counts, () => "never"),
        Tools.add("z", "z", z.object({ counts: z.array(z.number()) }), () => "never"),
      )
      const long = "y".repeat(300)
      const args = `{"counts": [${Array.from({ length: 20 }, () => `"${long}"`).join(",")}], "other": "${long}"}`
      for (const name of ["t", "z"]) {
        const result = yield* one(tools, name, args)
        assert.isTrue(result.isError)
        assert.isBelow(result.content.length, 2_000)
        assert.match(result.content, /and \d+ more$/)
      }
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

  it.effect("maxOutput never cuts a character of two UTF-16 units in half", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(Tools.add("emoji", "e", Lookup, () => "ab😀cd"))
      const cuts = [1, 2, 3, 4, 5, 6, 7]
      const results = yield* Effect.forEach(cuts, (maxOutput) =>
        Tools.call(tools, ToolCall.make("c", "emoji", '{"id": 1}'), { maxOutput }),
      )
      assert.deepStrictEqual(
        results.map((result) => result.content.split("\n")[0]),
        ["a", "ab", "ab", "ab😀", "ab😀c", "ab😀cd", "ab😀cd"],
      )
      assert.strictEqual(results[2]!.content, "ab\n[output truncated: 2 of 6 characters shown]")
    }),
  )

  it.effect("options that cannot be a bound are a Config error when the call runs", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(Tools.add("t", "t", Lookup, () => "x"))
      const call = ToolCall.make("c", "t", '{"id": 1}')
      const refused: ReadonlyArray<readonly [Tools.CallOptions, string]> = [
        [{ maxOutput: Number.NaN }, "maxOutput"],
        [{ maxOutput: -1 }, "maxOutput"],
        [{ maxOutput: 2.5 }, "maxOutput"],
        [{ concurrency: 0 }, "concurrency"],
        [{ concurrency: 1.5 }, "concurrency"],
        [{ concurrency: Number.NaN }, "concurrency"],
        [{ timeout: Number.NaN }, "timeout"],
        [{ timeout: -5 }, "timeout"],
        [{ timeout: 0 }, "timeout"],
        [{ timeout: "soon" as Duration.Input }, "timeout"],
        [{ timeout: Number.NEGATIVE_INFINITY }, "timeout"],
      ]
      for (const [options, name] of refused) {
        const runs: ReadonlyArray<Effect.Effect<unknown>> = [
          Tools.call(tools, call, options),
          Tools.callAll(tools, [call], options),
        ]
        for (const run of runs) {
          const exit = yield* Effect.exit(run)
          const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
          assert.isTrue(SvirError.isSvirError(defect), JSON.stringify(options))
          if (SvirError.isSvirError(defect)) {
            assert.strictEqual(defect.reason._tag, "Config")
            assert.match(defect.message, new RegExp(`^${name} `))
          }
        }
      }
      const accepted: ReadonlyArray<Tools.CallOptions> = [
        { maxOutput: 0, concurrency: 1, timeout: 1 },
        { maxOutput: Number.POSITIVE_INFINITY, concurrency: Number.POSITIVE_INFINITY },
        { timeout: Number.POSITIVE_INFINITY },
        { timeout: "10 seconds", concurrency: 3 },
      ]
      for (const options of accepted) {
        const results = yield* Tools.callAll(tools, [call, call], options)
        assert.strictEqual(results.length, 2)
      }
    }),
  )

  it.effect(
    "a Promise handler's signal fires at the timeout; the result does not wait for it",
    () =>
      Effect.gen(function* () {
        let finish: (text: string) => void = () => {}
        let seen: AbortSignal | undefined
        const tools = Tools.empty.pipe(
          Tools.add("slow", "s", Lookup, (_args, _call, { signal }) => {
            seen = signal
            // Ignores the signal: only the caller's timer can end the call.
            return new Promise<string>((resolve) => {
              finish = resolve
            })
          }),
        )
        const fiber = yield* Effect.forkChild(
          Tools.call(tools, ToolCall.make("c", "slow", '{"id": 1}'), { timeout: "1 second" }),
        )
        yield* TestClock.adjust("1 second")
        const result = yield* Fiber.join(fiber)
        assert.strictEqual(result.content, "tool slow did not answer within 1s and was stopped")
        assert.isTrue(seen?.aborted)
        finish("late")
      }),
  )

  it.effect("a Promise handler's signal fires when its call is interrupted", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<AbortSignal>()
      const tools = Tools.empty.pipe(
        Tools.add("wait", "w", Lookup, (_args, _call, { signal }) => {
          Deferred.doneUnsafe(started, Effect.succeed(signal))
          return new Promise<string>((_resolve, reject) => {
            signal.addEventListener("abort", () => reject(signal.reason))
          })
        }),
      )
      const fiber = yield* Effect.forkChild(
        Tools.callAll(tools, [ToolCall.make("c", "wait", '{"id": 1}')]),
      )
      const signal = yield* Deferred.await(started)
      assert.isFalse(signal.aborted)
      yield* Fiber.interrupt(fiber)
      // Its rejection, once aborted, goes nowhere: the call is over.
      yield* Effect.promise(
        () =>
          new Promise((resolve) =>
            signal.aborted ? resolve(undefined) : signal.addEventListener("abort", resolve),
          ),
      )
      assert.isTrue(signal.aborted)
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
            const perCall: Tools.Handler<unknown, unknown, never> = (args, call, options) =>
              handlerFor(outcomes.get(call.id)!)(args, call, options)
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

  /** Values a handler may throw, fail, die or reject with: anything at all. */
  const thrownValue = fc.constantFrom<() => unknown>(
    () => null,
    () => undefined,
    () => Symbol("thrown"),
    () => 7n,
    () => "words",
    () => new Error("secret detail"),
    () => {
      const { proxy, revoke } = Proxy.revocable({}, {})
      revoke()
      return proxy
    },
    () => ({
      get message(): string {
        throw new Error("getter")
      },
      get _tag(): string {
        throw new Error("getter")
      },
    }),
    () => ({
      toString() {
        throw new Error("toString")
      },
      toJSON() {
        throw new Error("toJSON")
      },
    }),
  )

  type Behaviour =
    | { readonly _tag: "return" | "promise" | "effect"; readonly value: () => unknown }
    | {
        readonly _tag: "throw" | "fail" | "die" | "reject"
        readonly thrown: () => unknown
      }
    | { readonly _tag: "interrupt" | "hang" | "hangPromise" }

  const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
    fc.record({
      _tag: fc.constantFrom("return" as const, "promise" as const, "effect" as const),
      // Thunks: fast-check cannot itself hold a revoked Proxy.
      value: fc.oneof(
        fc.string().map((text) => () => text),
        fc.jsonValue({ maxDepth: 2 }).map((json) => () => json),
        thrownValue,
      ),
    }),
    fc.record({
      _tag: fc.constantFrom("throw" as const, "fail" as const, "die" as const, "reject" as const),
      thrown: thrownValue,
    }),
    fc.record({
      _tag: fc.constantFrom("interrupt" as const, "hang" as const, "hangPromise" as const),
    }),
  )

  const behave = (b: Behaviour): ReturnType<Tools.Handler<unknown, unknown, never>> => {
    switch (b._tag) {
      case "return":
        return b.value() as Tools.Output
      case "promise":
        return Promise.resolve(b.value() as Tools.Output)
      case "effect":
        return Effect.succeed(b.value() as Tools.Output)
      case "throw":
        throw b.thrown()
      case "fail":
        return Effect.fail(b.thrown())
      case "die":
        return Effect.die(b.thrown())
      case "reject":
        return Promise.reject(b.thrown())
      case "interrupt":
        return Effect.interrupt
      case "hang":
        return Effect.never
      case "hangPromise":
        return new Promise<Tools.Output>(() => {})
    }
  }

  it.effect("any mix of handler behaviours: one result per call, in order, with its id", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.array(behaviour, { maxLength: 10 }),
          fc.constantFrom(1, 2, 4, Number.POSITIVE_INFINITY),
          async (behaviours, concurrency) => {
            const calls = behaviours.map((_, i) => ToolCall.make(`call_${i}`, "t", ""))
            const tools = Tools.empty.pipe(
              Tools.add("t", "t", Schema.Struct({}), (_args, call) =>
                behave(behaviours[Number(call.id.slice(5))]!),
              ),
            )
            const answered = Effect.gen(function* () {
              const fiber = yield* Effect.forkChild(
                Tools.callAll(tools, calls, { concurrency, timeout: "1 second" }),
              )
              // Each hang holds the calls after it for one timeout: move the clock until all are answered.
              while (fiber.pollUnsafe() === undefined) {
                yield* TestClock.adjust("1 second")
                yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
              }
              return yield* Fiber.join(fiber)
            })
            const results = await Effect.runPromise(
              answered.pipe(Effect.provide([silent, TestClock.layer()])),
            )
            assert.deepStrictEqual(
              results.map((result) => result.callId),
              calls.map((call) => call.id),
            )
            behaviours.forEach((b, i) => {
              const result = results[i]!
              assert.isString(result.content)
              if (b._tag === "hang" || b._tag === "hangPromise") {
                assert.strictEqual(
                  result.content,
                  "tool t did not answer within 1s and was stopped",
                )
              }
              if (b._tag !== "return" && b._tag !== "promise" && b._tag !== "effect") {
                assert.isTrue(result.isError)
              }
            })
          },
        ),
        { numRuns: 300, seed: 6 },
      ),
    ),
  )

  const valid = fc.record(
    {
      name: fc.string({ minLength: 2, maxLength: 6 }),
      kind: fc.constantFrom("a", "b"),
      score: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)),
      counts: fc.array(fc.integer(), { maxLength: 4 }),
      flag: fc.boolean(),
      big: fc.integer({ min: 11, max: 1_000 }),
    },
    { requiredKeys: ["name", "kind", "score", "counts", "big"] },
  )
  const fields = ["name", "kind", "score", "counts", "flag", "big", "extra", "__proto__"] as const
  // Values at the edges of what each field takes, of the wrong type, or hostile to a walker.
  const odd = fc.oneof(
    fc.constantFrom(null, "", "x", " ", "ab", 1.5, -0, 0, 10, 11, true, [], {}, "NaN", [1.5]),
    fc.constantFrom(["1"], [null], { a: 1 }, "Infinity", 2 ** 53, -(2 ** 53)),
    fc.jsonValue({ maxDepth: 3 }),
    fc
      .integer({ min: 1, max: Json.maxDepth - 2 })
      .map((depth) => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`)),
  )
  const mutation = fc.oneof(
    fc.record({ field: fc.constantFrom(...fields), to: odd }),
    fc.record({ field: fc.constantFrom(...fields), to: fc.constant(undefined) }),
  )
  /** Mostly valid values of `Mixed`, each with up to two fields changed, left out or added. */
  const mixedValue = fc
    .tuple(valid, fc.array(mutation, { maxLength: 2 }))
    .map(([value, mutations]) => {
      const out: Record<string, unknown> = { ...value }
      for (const { field, to } of mutations) {
        if (to === undefined) delete out[field]
        else
          Object.defineProperty(out, field, {
            value: to,
            enumerable: true,
            writable: true,
            configurable: true,
          })
      }
      return out
    })

  /** What decoding gives, reading a `null` for the optional `flag` as left out, as strict mode sends it. */
  const decodeMixed = (value: Record<string, unknown>) => {
    const { flag, ...rest } = value
    return Schema.decodeUnknownExit(Schema.toCodecJson(Mixed), { onExcessProperty: "error" })(
      flag === null ? rest : value,
    )
  }

  it.effect("the quick check takes deep, large and hostile values without crashing", () =>
    Effect.gen(function* () {
      const tools = Tools.empty.pipe(Tools.add("m", "Mixed.", Mixed, (args) => args.counts.length))
      const base = '"name": "ab", "kind": "a", "score": null, "big": 11'
      const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`
      const many = `[${Array.from({ length: 1_000_000 }, (_, i) => i % 10).join(",")}]`
      const results = yield* Tools.callAll(tools, [
        ToolCall.make("1", "m", `{${base}, "counts": ${many}}`),
        ToolCall.make("2", "m", `{${base}, "counts": ${deep(Json.maxDepth - 1)}}`),
        ToolCall.make("3", "m", `{${base}, "counts": [], "__proto__": {"flag": true}}`),
        ToolCall.make("4", "m", `{${base}, "counts": [], "constructor": 1}`),
        ToolCall.make("5", "m", `{${base}, "counts": [], "flag": ${deep(Json.maxDepth - 1)}}`),
        ToolCall.make("6", "m", `{${base}, "counts": ${deep(100_000)}}`),
      ])
      assert.deepStrictEqual(
        results.map((result) => [result.isError, result.content.slice(0, 40)]),
        [
          [false, "1000000"],
          [true, "invalid arguments: counts[0]: Expected n"],
          [true, "invalid arguments: __proto__: Unexpected"],
          [true, "invalid arguments: constructor: Unexpect"],
          [true, "invalid arguments: flag: Expected boolea"],
          [true, "invalid arguments: arguments nest deeper"],
        ],
      )
    }),
  )

  it("a null for an optional field is left out before the quick check (a counterexample)", () => {
    const value = { name: "  ", kind: "a", score: 0, counts: [], flag: null, big: 11 }
    assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(Schema.toCodecJson(Mixed))(value)))
    assert.isTrue(Exit.isSuccess(decodeMixed(value)))
  })

  it.effect("the quick check of plain fields agrees with full decoding", () =>
    Effect.promise(async () => {
      let decoded = 0
      const seen: Array<unknown> = []
      const tools = Tools.empty.pipe(
        Tools.add("m", "Mixed.", Mixed, (args) => {
          seen.push(args)
          return "ok"
        }),
      )
      await fc.assert(
        fc.asyncProperty(mixedValue, async (value) => {
          seen.length = 0
          const text = JSON.stringify(value)
          const result = await Effect.runPromise(Tools.call(tools, ToolCall.make("c", "m", text)))
          const expected = decodeMixed(JSON.parse(text))
          if (Exit.isSuccess(expected)) {
            decoded++
            assert.deepStrictEqual(seen, [expected.value])
            assert.isFalse(result.isError)
          } else {
            assert.deepStrictEqual(seen, [])
            assert.isTrue(result.content.startsWith("invalid arguments: "))
          }
        }),
        { numRuns: 1_000, seed: 130 },
      )
      // Values that decode are what exercises the quick check: most runs must make one.
      assert.isAbove(decoded, 300)
    }),
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
