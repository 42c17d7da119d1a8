/**
 * "Requiring or forbidding a call" of the seeds (svir-tools.txt): `Request.toolChoice` decides
 * whether the model must, may or may not call a tool. A choice that cannot be sent fails before
 * anything is sent; the answer is not checked against the choice.
 *
 * Run it with `npx tsx --conditions=@svir/source examples/src/tool-choice.ts`.
 */
import { fileURLToPath } from "node:url"
import { type Completion, Request, Tool, ToolChoice, type ToolResult } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"
import { Console, Effect } from "effect"

const label = Tool.make("label", "Label a support ticket by its topic.", {
  type: "object",
  properties: { topic: { type: "string", enum: ["billing", "bug", "other"] } },
  required: ["topic"],
})

/** The answer is a call of `label`, not prose. */
export const classify = (ticket: string): Request.Request =>
  Request.make("qwen3-27b").pipe(
    Request.tool(label),
    Request.toolChoice(ToolChoice.tool("label")),
    Request.user(ticket),
  )

/**
 * In a loop the choice stays on the request: a model required to call a tool on every turn never
 * gets to answer. Once it has called, set the choice back with the results.
 */
export const continueAfter = (
  request: Request.Request,
  done: Completion.Completion,
  results: Iterable<ToolResult.ToolResult>,
): Request.Request =>
  request.pipe(
    Request.assistant(done),
    Request.toolResults(results),
    Request.toolChoice(ToolChoice.auto),
  )

/**
 * At the loop's bound, `None` keeps the tools in the request and asks for an answer without a
 * call.
 */
export const lastTurn = (request: Request.Request): Request.Request =>
  Request.toolChoice(request, ToolChoice.none)

/** The `tool_choice` each choice is sent as, or the reason it cannot be sent. */
export const sentAs = (request: Request.Request) =>
  OpenAiCodec.encode(request).pipe(
    Effect.map((body) => ("tool_choice" in body ? body.tool_choice : "(not sent)")),
    Effect.catch((error) => Effect.succeed(`${error.reason._tag}: ${error.message}`)),
  )

/** Every choice, on a request that offers `label` and on one that offers nothing. */
export const choices = Effect.gen(function* () {
  const offered = classify("I was charged twice.")
  const bare = Request.make("qwen3-27b").pipe(Request.user("Hello"))
  return {
    auto: yield* sentAs(Request.toolChoice(offered, ToolChoice.auto)),
    none: yield* sentAs(Request.toolChoice(offered, ToolChoice.none)),
    noneWithoutTools: yield* sentAs(Request.toolChoice(bare, ToolChoice.none)),
    required: yield* sentAs(Request.toolChoice(offered, ToolChoice.required)),
    requiredWithoutTools: yield* sentAs(Request.toolChoice(bare, ToolChoice.required)),
    named: yield* sentAs(offered),
    namedNotOffered: yield* sentAs(Request.toolChoice(offered, ToolChoice.tool("escalate"))),
  }
})

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  Effect.runPromise(
    Effect.flatMap(choices, (sent) =>
      Effect.forEach(Object.entries(sent), ([choice, wire]) =>
        Console.log(`${choice.padEnd(22)} ${JSON.stringify(wire)}`),
      ),
    ),
  )
}
