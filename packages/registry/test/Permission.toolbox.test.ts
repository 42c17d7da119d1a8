import { assert, describe, it } from "@effect/vitest"
import { Tool, Toolbox, ToolCall, ToolResult } from "@svir/core"
import { Permission, Tools } from "@svir/registry"
import { Effect, Logger, Schema } from "effect"

/** A toolbox made by hand, as an MCP server's is: its tools can change between two listings. */
const handMade = () => {
  const ran: Array<string> = []
  let offered = [
    Tool.make("read", "Read a file."),
    Tool.make("delete", "Delete a file."),
    Tool.make("admin", "Administer."),
  ]
  const toolbox = Toolbox.make({
    tools: Effect.sync(() => offered),
    call: (call) =>
      call.name === "crash"
        ? Effect.die(new Error("boom"))
        : Effect.sync(() => {
            ran.push(`${call.name} ${call.arguments}`)
            return ToolResult.make(call.id, `${call.name} done`)
          }),
  })
  const offer = (tools: ReadonlyArray<Tool.Tool>) => {
    offered = [...tools]
  }
  return { toolbox, ran, offer }
}

const asked: Array<string> = []
const policy = Permission.layer({
  visible: (tool) => tool.name !== "admin",
  decide: (tool, call) => {
    if (tool.name === "delete") return Permission.confirm(`delete ${call.arguments}?`, call)
    return call.arguments.includes("secret")
      ? Permission.deny("secrets stay secret")
      : Permission.allow
  },
})
const confirmWith = (yes: boolean) =>
  Effect.provideService(
    Permission.Confirm,
    Permission.Confirm.of({
      ask: (question) =>
        Effect.sync(() => {
          asked.push(question)
          return yes
        }),
    }),
  )

const summary = (results: ReadonlyArray<ToolResult.ToolResult>) =>
  results.map((result) => [result.isError, result.content] as const)

describe("Permission.guard on any toolbox", () => {
  it.effect("hides, denies and asks, and a denied call never reaches the toolbox", () =>
    Effect.gen(function* () {
      const { toolbox, ran } = handMade()
      const guarded: Toolbox.Toolbox<Permission.Policy> = Permission.guard(toolbox)
      const offered = yield* guarded.tools.pipe(Effect.provide(policy), confirmWith(true))
      assert.deepStrictEqual(
        offered.map((tool) => tool.name),
        ["read", "delete"],
      )
      asked.length = 0
      const results = yield* Toolbox.callAll(guarded, [
        ToolCall.make("1", "read", '{"path": "a.txt"}'),
        ToolCall.make("2", "read", '{"path": "secret.txt"}'),
        ToolCall.make("3", "admin", "{}"),
        ToolCall.make("4", "delete", '{"path": "a.txt"}'),
      ]).pipe(Effect.provide(policy), confirmWith(false))
      assert.deepStrictEqual(summary(results), [
        [false, "read done"],
        [true, "permission denied: secrets stay secret"],
        // A hidden tool is answered as if it did not exist, naming only the tools offered.
        [true, "no tool named admin; the tools are: read, delete"],
        [true, 'permission denied: not confirmed: delete {"path": "a.txt"}?'],
      ])
      assert.deepStrictEqual(ran, ['read {"path": "a.txt"}'])
      assert.deepStrictEqual(asked, ['delete {"path": "a.txt"}?'])

      const confirmed = yield* Toolbox.callAll(guarded, [
        ToolCall.make("5", "delete", '{"path": "a.txt"}'),
      ]).pipe(Effect.provide(policy), confirmWith(true))
      assert.deepStrictEqual(summary(confirmed), [[false, "delete done"]])
    }),
  )

  it.effect("follows the tools the toolbox offers now", () =>
    Effect.gen(function* () {
      const { toolbox, offer } = handMade()
      const guarded = Permission.guard(toolbox)
      offer([Tool.make("crash", "Fails."), Tool.make("admin", "Administer.")])
      const results = yield* Toolbox.callAll(guarded, [
        ToolCall.make("1", "read", "{}"),
        ToolCall.make("2", "crash", "{}"),
      ]).pipe(Effect.provide(policy), confirmWith(true), Effect.provide(Logger.layer([])))
      assert.deepStrictEqual(summary(results), [
        [true, "no tool named read; the tools are: crash"],
        // What the toolbox does wrong is still one failed result.
        [true, "tool crash failed unexpectedly"],
      ])
    }),
  )

  it("needs a Policy: without one, it does not compile", () => {
    const guarded = Permission.guard(handMade().toolbox)
    // @ts-expect-error the guarded toolbox needs a Policy
    const run = () => Effect.runSync(guarded.tools)
    assert.isFunction(run)
  })

  it.effect("a registry stays a registry, and combines with a guarded toolbox", () =>
    Effect.gen(function* () {
      const registry = Tools.empty.pipe(
        Tools.add("echo", "Echo.", Schema.Struct({ text: Schema.String }), ({ text }) => text),
        Permission.guard,
      )
      assert.isTrue(Tools.isTools(registry))
      const both = yield* Toolbox.combine<Permission.Policy>([
        registry,
        Permission.guard(handMade().toolbox),
      ])
      const results = yield* Toolbox.callAll(both, [
        ToolCall.make("1", "echo", '{"text": "hi"}'),
        ToolCall.make("2", "read", "{}"),
        ToolCall.make("3", "admin", "{}"),
      ])
      assert.deepStrictEqual(summary(results), [
        [false, "hi"],
        [false, "read done"],
        [true, "no tool named admin; the tools are: echo, read, delete"],
      ])
    }).pipe(Effect.provide(policy), confirmWith(true)),
  )
})
