import * as path from "node:path"
import { ToolCall } from "@svir/core"
import { Permission, Tools } from "@svir/registry"
import { Context, Effect, Schema } from "effect"

/** The directory the tools may touch. */
export class Workspace extends Context.Service<Workspace, { readonly root: string }>()(
  "Workspace",
) {}

/** Who the model is acting for. */
export class Caller extends Context.Service<Caller, { readonly name: string }>()("Caller") {}

const Target = Schema.Struct({ path: Schema.String })

export const tools = Tools.empty.pipe(
  Tools.add("where", "Where a path is.", Target, (args) =>
    Effect.gen(function* () {
      const workspace = yield* Workspace
      const caller = yield* Caller
      const resolved = path.resolve(workspace.root, args.path)
      if (!resolved.startsWith(workspace.root + path.sep)) {
        return yield* Effect.fail(`${args.path} is outside the workspace`)
      }
      return `${caller.name}: ${resolved}`
    }),
  ),
  Tools.add("delete_file", "Delete a file.", Target, (args) => `deleted ${args.path}`),
  Tools.add("admin", "Administer the server.", Schema.Struct({}), () => "done"),
  Permission.guard,
)
// Tools<Workspace | Caller | Permission.Policy>: without them, calling it does not compile.

const policy = Permission.layer({
  visible: (tool) => tool.name !== "admin",
  decide: (tool, call) =>
    tool.name === "delete_file"
      ? Permission.confirm(`delete ${call.arguments}?`, call)
      : Permission.allow,
})

// What the app provides once, what comes with each request (who is asking), and who answers
// "delete ...?" (here, a fixed answer).
const provided =
  (caller: string, confirmDeletes: boolean) =>
  <A>(effect: Effect.Effect<A, never, Workspace | Caller | Permission.Policy>) =>
    effect.pipe(
      Effect.provideService(Caller, Caller.of({ name: caller })),
      Effect.provideService(Workspace, Workspace.of({ root: "/srv/sandbox" })),
      Effect.provide(policy),
      Effect.provideService(
        Permission.Confirm,
        Permission.Confirm.of({ ask: () => Effect.succeed(confirmDeletes) }),
      ),
    )

export const answer = (calls: ReadonlyArray<ToolCall.ToolCall>, confirmDeletes: boolean) =>
  Tools.callAll(tools, calls).pipe(provided("ada", confirmDeletes))

export const example = answer(
  [
    ToolCall.make("1", "where", '{"path": "notes/a.txt"}'),
    ToolCall.make("2", "where", '{"path": "../etc/passwd"}'),
    ToolCall.make("3", "delete_file", '{"path": "a.txt"}'),
    ToolCall.make("4", "admin"),
  ],
  false,
)

// The policy hides `admin`: it is not offered, and a call of it is answered as unknown.
export const offered = Tools.definitions(tools).pipe(provided("ada", false))
