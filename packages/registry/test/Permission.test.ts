import { assert, describe, it } from "@effect/vitest"
import { ToolCall } from "@svir/core"
import { Permission, Tools } from "@svir/registry"
import { Effect, Schema } from "effect"

const Path = Schema.Struct({ path: Schema.String })

const ran: Array<string> = []
const tools = Tools.empty.pipe(
  Tools.add("read", "Read a file.", Path, ({ path }) => {
    ran.push(`read ${path}`)
    return `contents of ${path}`
  }),
  Tools.add("delete", "Delete a file.", Path, ({ path }) => {
    ran.push(`delete ${path}`)
    return `deleted ${path}`
  }),
  Tools.add("admin", "Administer.", Schema.Struct({}), () => {
    ran.push("admin")
    return "done"
  }),
  Permission.guard,
)

const asked: Array<string> = []
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

const policy = Permission.layer({
  visible: (tool) => tool.name !== "admin",
  decide: (tool, call) => {
    if (tool.name === "delete") return Permission.confirm(`delete ${call.arguments}?`, call)
    return call.arguments.includes("secret")
      ? Permission.deny("secrets stay secret")
      : Permission.allow
  },
})

const answer = (calls: ReadonlyArray<ToolCall.ToolCall>, yes: boolean) =>
  Effect.map(
    Tools.callAll(tools, calls).pipe(Effect.provide(policy), confirmWith(yes)),
    (results) => results.map((result) => [result.isError, result.content] as const),
  )

describe("Permission", () => {
  it.effect("a denied call gets 'permission denied: ...' and never reaches the handler", () =>
    Effect.gen(function* () {
      ran.length = 0
      const results = yield* answer(
        [
          ToolCall.make("1", "read", '{"path": "a.txt"}'),
          ToolCall.make("2", "read", '{"path": "secret.txt"}'),
        ],
        true,
      )
      assert.deepStrictEqual(results, [
        [false, "contents of a.txt"],
        [true, "permission denied: secrets stay secret"],
      ])
      assert.deepStrictEqual(ran, ["read a.txt"])
    }),
  )

  it.effect("a policy asks for confirmation through the service the caller provides", () =>
    Effect.gen(function* () {
      ran.length = 0
      asked.length = 0
      const call = ToolCall.make("1", "delete", '{"path": "a.txt"}')
      assert.deepStrictEqual(yield* answer([call], false), [
        [true, 'permission denied: not confirmed: delete {"path": "a.txt"}?'],
      ])
      assert.deepStrictEqual(yield* answer([call], true), [[false, "deleted a.txt"]])
      assert.deepStrictEqual(asked, ['delete {"path": "a.txt"}?', 'delete {"path": "a.txt"}?'])
      assert.deepStrictEqual(ran, ["delete a.txt"])
    }),
  )

  it.effect("a hidden tool is not offered, and a call of it is answered as unknown", () =>
    Effect.gen(function* () {
      ran.length = 0
      const offered = yield* Tools.definitions(tools).pipe(
        Effect.provide(policy),
        confirmWith(true),
      )
      assert.deepStrictEqual(
        offered.map((tool) => tool.name),
        ["read", "delete"],
      )
      assert.deepStrictEqual(yield* answer([ToolCall.make("1", "admin")], true), [
        [true, "no tool named admin; the tools are: read, delete"],
      ])
      assert.deepStrictEqual(yield* answer([ToolCall.make("1", "nothing")], true), [
        [true, "no tool named nothing; the tools are: read, delete"],
      ])
      assert.deepStrictEqual(ran, [])
    }),
  )

  it.effect("a policy without rules allows everything; the service can be written by hand", () =>
    Effect.gen(function* () {
      const open = yield* Tools.callAll(tools, [ToolCall.make("1", "admin")]).pipe(
        Effect.provide(Permission.layer({})),
      )
      assert.strictEqual(open[0]!.content, "done")
      const closed = yield* Tools.callAll(tools, [ToolCall.make("1", "admin")]).pipe(
        Effect.provideService(
          Permission.Policy,
          Permission.Policy.of({
            visible: () => Effect.succeed(true),
            decide: (tool) => Effect.succeed(Permission.deny(`${tool.name} is off today`)),
          }),
        ),
      )
      assert.strictEqual(closed[0]!.content, "permission denied: admin is off today")
    }),
  )

  it("a guarded registry needs a Policy: running it without one does not compile", () => {
    const run = () =>
      // @ts-expect-error Policy is not provided
      Effect.runPromise(Tools.callAll(tools, [ToolCall.make("1", "admin")]))
    assert.isFunction(run)
  })
})
