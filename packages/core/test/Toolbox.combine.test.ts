import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, Ref } from "effect"
import * as fc from "fast-check"
import { Tool, Toolbox, ToolCall, ToolResult } from "../src/index.js"

/**
 * A member whose list is a Ref, as an MCP server's is after `list_changed`. It answers every
 * call with its own label and keeps what it was asked.
 */
const member = (label: string, first: ReadonlyArray<Tool.Tool>) =>
  Effect.gen(function* () {
    const list = yield* Ref.make(first)
    const got: Array<string> = []
    const toolbox = Toolbox.make({
      tools: Ref.get(list),
      call: (call) =>
        Effect.sync(() => {
          got.push(`${call.name} ${call.arguments}`)
          return ToolResult.make(call.id, `${label} ${call.name}`)
        }),
    })
    return { toolbox, got, offer: (tools: ReadonlyArray<Tool.Tool>) => Ref.set(list, tools) }
  })

/** A logger that keeps the warnings instead of printing them. */
const captureWarnings = () => {
  const warnings: Array<string> = []
  const keep = Logger.make((options) => {
    if (options.logLevel === "Warn") warnings.push(String(options.message))
  })
  return { warnings, layer: Logger.layer([keep]) }
}

const names = (tools: ReadonlyArray<Tool.Tool>) => tools.map((tool) => tool.name)

const localLookup = Tool.make("lookup", "Find an order in the local database.")
const serverLookup = Tool.make("lookup", "The server's lookup.")
const search = Tool.make("search", "Search the web.")

describe("Toolbox.combine, when a member's list changes", () => {
  it.effect(
    "a tool listed later under a name another member owns is left out, reported, and gets no call",
    () => {
      const logs = captureWarnings()
      return Effect.gen(function* () {
        // The server comes first, without a prefix, and lists nothing at first.
        const server = yield* member("server", [])
        const local = yield* member("local", [localLookup])
        const both = yield* Toolbox.combine([server.toolbox, local.toolbox])
        yield* server.offer([serverLookup, search])

        const offered = yield* both.tools
        assert.deepStrictEqual(names(offered), ["search", "lookup"])
        assert.strictEqual(offered[1], localLookup)
        assert.deepStrictEqual(names(yield* both.tools), ["search", "lookup"])

        const results = yield* Toolbox.callAll(both, [
          ToolCall.make("1", "lookup", '{"id": 42}'),
          ToolCall.make("2", "search", '{"q": "svir"}'),
        ])
        assert.deepStrictEqual(
          results.map((result) => result.content),
          ["local lookup", "server search"],
        )
        assert.deepStrictEqual(local.got, ['lookup {"id": 42}'])
        assert.deepStrictEqual(server.got, ['search {"q": "svir"}'])

        // Reported once, however often the lists are read while the clash lasts.
        assert.deepStrictEqual(logs.warnings, [
          "Toolbox.combine: the tool named lookup of toolbox 1 is left out: toolbox 2 offered that name first (give one of them a prefix)",
        ])
      }).pipe(Effect.provide(logs.layer))
    },
  )

  it.effect(
    "a name its owner drops is offered by no one until no member lists it; then the first to list it owns it",
    () => {
      const logs = captureWarnings()
      return Effect.gen(function* () {
        const server = yield* member("server", [])
        const local = yield* member("local", [localLookup])
        const both = yield* Toolbox.combine([server.toolbox, local.toolbox])
        yield* server.offer([serverLookup])

        // The owner stops listing it for a while: the server's tool is still left out.
        yield* local.offer([])
        assert.deepStrictEqual(names(yield* both.tools), [])
        const [unknown] = yield* Toolbox.callAll(both, [ToolCall.make("1", "lookup", "{}")])
        assert.deepStrictEqual(unknown, ToolResult.unknownTool("1", "lookup", []))
        assert.deepStrictEqual(server.got, [])

        // It lists it again: the name is its own still.
        yield* local.offer([localLookup])
        assert.strictEqual((yield* both.tools)[0], localLookup)
        yield* Toolbox.callAll(both, [ToolCall.make("2", "lookup", "{}")])
        assert.deepStrictEqual(local.got, ["lookup {}"])

        // No member lists it: the name is free, and the server lists it first.
        yield* Effect.all([local.offer([]), server.offer([])])
        assert.deepStrictEqual(names(yield* both.tools), [])
        yield* server.offer([serverLookup])
        yield* local.offer([localLookup])
        assert.strictEqual((yield* both.tools)[0], serverLookup)
        yield* Toolbox.callAll(both, [ToolCall.make("3", "lookup", "{}")])
        assert.deepStrictEqual(server.got, ["lookup {}"])
        assert.deepStrictEqual(local.got, ["lookup {}"])

        // Each clash was reported when it began: the server's, then the local tool's.
        assert.strictEqual(logs.warnings.length, 2)
        assert.include(logs.warnings[0], "toolbox 1")
        assert.include(logs.warnings[1], "toolbox 2")
      }).pipe(Effect.provide(logs.layer))
    },
  )

  it.effect("a name one member lists twice is offered once", () =>
    Effect.gen(function* () {
      const twice = yield* member("twice", [search, Tool.make("search", "Search again.")])
      const both = yield* Toolbox.combine([twice.toolbox])
      assert.deepStrictEqual(yield* both.tools, [search])
    }),
  )

  it.effect("a clash present when the toolboxes are combined is still a ToolClash", () =>
    Effect.gen(function* () {
      const server = yield* member("server", [serverLookup])
      const local = yield* member("local", [localLookup])
      const error = yield* Effect.flip(Toolbox.combine([server.toolbox, local.toolbox]))
      assert.strictEqual(error._tag, "ToolClash")
      assert.deepStrictEqual(error.names, [serverLookup.name])
    }),
  )

  /** One change of the members' lists, then a reading and a call of each name. */
  const change = fc.record({
    member: fc.nat({ max: 2 }),
    names: fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 4 }),
  })

  it("offers each name once and routes each call to its owner, whatever the lists do", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 4 }), {
          minLength: 3,
          maxLength: 3,
        }),
        fc.array(change, { maxLength: 12 }),
        async (first, changes) => {
          const program = Effect.gen(function* () {
            const toolOf = (m: number, name: string) => Tool.make(name, `tool ${name} of ${m}`)
            const lists = first.map((list, m) => list.map((name) => toolOf(m, name)))
            const members = yield* Effect.forEach(lists, (list, m) => member(String(m), list))
            const combined = yield* Effect.result(Toolbox.combine(members.map((m) => m.toolbox)))
            // A clash at the start is refused; the model below holds from a start without one.
            if (combined._tag === "Failure") return
            const both = combined.success

            // The rule, written plainly: a name is its owner's while any member lists it.
            const owners = new Map<string, number>()
            const expect = (now: ReadonlyArray<ReadonlyArray<string>>) => {
              for (const name of owners.keys()) {
                if (!now.some((list) => list.includes(name))) owners.delete(name)
              }
              now.forEach((list, m) => {
                for (const name of list) if (!owners.has(name)) owners.set(name, m)
              })
              const offered: Array<string> = []
              now.forEach((list, m) => {
                for (const name of list) {
                  if (owners.get(name) === m && !offered.includes(name)) offered.push(name)
                }
              })
              return offered
            }
            const now: Array<ReadonlyArray<string>> = first.map((list) => [...list])
            expect(now)
            for (const step of changes) {
              now[step.member] = step.names
              yield* members[step.member]!.offer(
                step.names.map((name) => toolOf(step.member, name)),
              )
              const offered = expect(now)
              const tools = yield* both.tools
              assert.deepStrictEqual(names(tools), offered)
              for (const tool of tools) {
                assert.strictEqual(
                  tool.description,
                  `tool ${tool.name} of ${owners.get(tool.name)}`,
                )
              }
              for (const name of ["a", "b", "c", "d"]) {
                const [result] = yield* Toolbox.callAll(both, [ToolCall.make("c", name, "{}")])
                const owner = owners.get(name)
                const served = owner !== undefined && now[owner]!.includes(name)
                if (served) assert.strictEqual(result!.content, `${owner} ${name}`)
                else assert.match(result!.content, /^no tool named /)
              }
            }
          })
          await Effect.runPromise(program.pipe(Effect.provide(Logger.layer([]))))
        },
      ),
      { numRuns: 300, seed: 20_260_115 },
    )
  })
})
