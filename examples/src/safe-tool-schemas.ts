/**
 * Tools fit for OpenAI's function calling, whoever wrote them: an MCP server's tools with a
 * description longer than OpenAI takes and `$defs`, a registry tool whose schema names its
 * definition, and a tool that asks for strict mode. `ToolSchema.fit` fixes what can be fixed
 * without changing how a tool is called, reports each change for the log, and refuses the rest
 * before anything is sent.
 *
 * Run it with `npx tsx --conditions=@svir/source examples/src/safe-tool-schemas.ts`.
 */
import { fileURLToPath } from "node:url"
import { Request, Tool } from "@svir/core"
import { OpenAiCodec, ToolSchema } from "@svir/openai-codec"
import { Tools } from "@svir/registry"
import { Console, Effect, Schema } from "effect"

/** What an MCP server built with pydantic sends: `$defs`, `$ref`s, and a long description. */
export const mcpTools: ReadonlyArray<Tool.Tool> = [
  Tool.make(
    "list_schedules",
    `List on-call schedules. ${"Filters are combined with AND; every filter is optional. ".repeat(30)}`,
    {
      type: "object",
      properties: { query: { $ref: "#/$defs/ScheduleQuery" } },
      required: ["query"],
      $defs: {
        ScheduleQuery: {
          type: "object",
          properties: {
            team_ids: { type: "array", description: "Teams to list the schedules of." },
            limit: { type: "integer", default: 20 },
          },
        },
      },
    },
  ),
]

/** A registry tool: an identified struct gives a schema whose root is a `$ref`. */
export const registry = Tools.empty.pipe(
  Tools.add(
    "convert",
    "Convert an amount between currencies.",
    Schema.Struct({ amount: Schema.Finite, from: Schema.String, to: Schema.String }).annotate({
      identifier: "Conversion",
    }),
    ({ amount, from, to }) => `${amount} ${from} is about ${amount} ${to}`,
  ),
)

/** A tool written by hand that asks the server to hold the model to its schema. */
export const strictTool: Tool.Tool = {
  ...Tool.make("search", "Search the notes.", {
    type: "object",
    properties: { query: { type: "string" }, limit: { type: "integer", default: 10 } },
    required: ["query"],
  }),
  strict: true,
}

/** Every tool, fit for Chat Completions, and the request that offers them. */
export const fitted = Effect.gen(function* () {
  const listed = yield* registry.tools
  const { tools, changes } = yield* ToolSchema.fit([...mcpTools, ...listed, strictTool])
  for (const change of changes) {
    yield* Effect.logInfo(`tool ${change.tool} ${change.path}: ${change.message}`)
  }
  const request = Request.make("gpt-4o-mini").pipe(Request.tools(tools), Request.user("Hi"))
  return { tools, changes, body: yield* OpenAiCodec.encode(request) }
})

/** A tool that cannot be fixed without changing how it is called is refused, saying why. */
export const refused = ToolSchema.fit([Tool.make("shout", "Shout.", { type: "string" })]).pipe(
  Effect.map(() => "sent"),
  Effect.catch((error) => Effect.succeed(`${error.reason._tag}: ${error.message}`)),
)

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  Effect.runPromise(
    Effect.gen(function* () {
      const { body } = yield* fitted
      yield* Console.log(JSON.stringify(body.tools, null, 2))
      yield* Console.log(yield* refused)
    }),
  )
}
