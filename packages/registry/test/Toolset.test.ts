import { assert, describe, it } from "@effect/vitest"
import { ToolCall } from "@svir/core"
import { Tools, Toolset } from "@svir/registry"
import { Context, Effect, Schema } from "effect"

interface Notes {
  readonly kept: Array<string>
}

const NoteTools = Toolset.make<Notes>().pipe(
  Toolset.add(
    "note",
    "Keep a note for later.",
    Schema.Struct({ text: Schema.String.annotate({ description: "What to keep." }) }),
    (self, args) => {
      self.kept.push(args.text)
      return "kept"
    },
  ),
  Toolset.add("notes", "Read back every note kept so far.", Schema.Struct({}), (self) =>
    self.kept.join("\n"),
  ),
)

describe("Toolset", () => {
  it.effect("every tool of a toolset shares the one state object it was given", () =>
    Effect.gen(function* () {
      const state: Notes = { kept: [] }
      const tools = Toolset.tools(NoteTools, state)
      const results = yield* Tools.callAll(tools, [
        ToolCall.make("1", "note", '{"text": "milk"}'),
        ToolCall.make("2", "note", '{"text": "eggs"}'),
        ToolCall.make("3", "notes"),
      ])
      assert.deepStrictEqual(
        results.map((result) => result.content),
        ["kept", "kept", "milk\neggs"],
      )
      assert.deepStrictEqual(state.kept, ["milk", "eggs"])
    }),
  )

  it.effect("two registries from one toolset keep their states apart", () =>
    Effect.gen(function* () {
      const a: Notes = { kept: [] }
      const b: Notes = { kept: [] }
      yield* Tools.call(Toolset.tools(NoteTools, a), ToolCall.make("1", "note", '{"text": "x"}'))
      assert.deepStrictEqual([a.kept, b.kept], [["x"], []])
    }),
  )

  it.effect("offers schemas derived like Tools.add, and validates the same way", () =>
    Effect.gen(function* () {
      const tools = Toolset.tools(NoteTools, { kept: [] })
      const offered = yield* Tools.definitions(tools)
      assert.deepStrictEqual(offered[0], {
        name: "note",
        description: "Keep a note for later.",
        inputSchema: {
          type: "object",
          properties: { text: { type: "string", description: "What to keep." } },
          required: ["text"],
          additionalProperties: false,
        },
      })
      const bad = yield* Tools.call(tools, ToolCall.make("1", "note", '{"text": 1}'))
      assert.deepStrictEqual(
        [bad.isError, bad.content],
        [true, "invalid arguments: text: Expected string, got 1"],
      )
    }),
  )

  it.effect(
    "merging a toolset into a registry reports a clash; its services stay in the type",
    () =>
      Effect.gen(function* () {
        class Clock extends Context.Service<Clock, { readonly now: string }>()("Clock") {}
        const Stamped = Toolset.make<Notes>().pipe(
          Toolset.add("stamp", "Note the time.", Schema.Struct({}), (self) =>
            Effect.map(Effect.service(Clock), (clock) => {
              self.kept.push(clock.now)
              return clock.now
            }),
          ),
        )
        const notes = Toolset.tools(NoteTools, { kept: [] })
        const state: Notes = { kept: [] }
        const stamped: Tools.Tools<Clock> = Toolset.tools(Stamped, state)
        const both = yield* Tools.merge(notes, stamped)
        const result = yield* Tools.call(both, ToolCall.make("1", "stamp")).pipe(
          Effect.provideService(Clock, Clock.of({ now: "noon" })),
        )
        assert.strictEqual(result.content, "noon")
        assert.deepStrictEqual(state.kept, ["noon"])
        const clash = yield* Effect.flip(Tools.merge(notes, notes))
        assert.deepStrictEqual(clash.names, ["note", "notes"])
      }),
  )
})
