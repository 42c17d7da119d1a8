import { ToolCall } from "@svir/core"
import { Arguments, Tools } from "@svir/registry"
import { Schema } from "effect"

const Search = Schema.Struct({
  query: Schema.String.annotate({ description: "The search query string." }),
  limit: Schema.Int.pipe(Arguments.withDefault(10)),
})

export const tools = Tools.empty.pipe(
  Tools.add("search", "Search for documents.", Search, ({ query, limit }) => {
    return `${limit} results for ${query}`
  }),
)

export const results = Tools.callAll(tools, [
  ToolCall.make("call_1", "search", '{"query": "effect"}'),
  ToolCall.make("call_2", "search", '{"query": 42}'),
  ToolCall.make("call_3", "serach", "{}"),
])
// Effect.runSync(results):
// [ { callId: "call_1", content: "10 results for effect", isError: false },
//   { callId: "call_2", content: "invalid arguments: query: Expected string, got 42", isError: true,
//     failure: "invalid_arguments" },
//   { callId: "call_3", content: "no tool named serach; the tools are: search", isError: true,
//     failure: "unknown_tool" } ]
