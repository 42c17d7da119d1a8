/**
 * The model of the benchmarks, in this process: it answers with one call of `lookup` until the
 * conversation holds `calls` tool results, then with text. Its answer depends on the
 * conversation only, so a runner in another process answers the same.
 */
import { Completion, Request, ToolCall } from "@svir/core"
import { Tools } from "@svir/registry"
import { Effect, Schema } from "effect"
import { DurableLoop } from "../src/index.js"

export const tools = Tools.empty.pipe(
  Tools.add("lookup", "Find an order by its number.", Schema.Struct({ id: Schema.Int }), (args) => {
    return `order ${args.id} is shipped`
  }),
)

const usage = { input: 20, output: 3, total: 23 }

export const model =
  (calls: number) =>
  (request: Request.Request): Effect.Effect<Completion.Completion> =>
    Effect.sync(() => {
      const answered = request.messages.filter((message) => message._tag === "Tool").length
      if (answered >= calls) return Completion.make({ text: "All shipped.", finish: "stop", usage })
      const call = ToolCall.make(`call_${answered}`, "lookup", JSON.stringify({ id: answered }))
      return Completion.make({ calls: [call], finish: "tool_calls", usage })
    })

export const question = Request.toolsFrom(tools)(
  Request.make("scripted").pipe(Request.user("Where are my orders?")),
)

/** The short run of bench/throughput.ts, the same in the client and in every runner: one call of
 * `lookup`, then text (two steps, three activities). */
export const shortCalls = 1

export const shortAgent = DurableLoop.make("bench-throughput", { maxSteps: shortCalls + 1 })
