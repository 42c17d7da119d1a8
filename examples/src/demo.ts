/**
 * The svir demo: the whole stack in one terminal program. Tools from a registry and from a real
 * MCP server (the filesystem server, on a temporary folder) are offered together; the client
 * streams each answer from an OpenAI-compatible server; the loop (`@svir/loop`), with a bound and
 * a token budget, prints text and calls as they arrive, runs the calls, feeds the results back,
 * and prints the final answer. Last, it prints a summary of the spans it made, collected by
 * OpenTelemetry's SDK (see `telemetry.ts`).
 *
 * By default it talks to a scripted server on 127.0.0.1 (from `@svir/testing`) that plays a
 * multi-step conversation, and says so. With `--base-url` and `--model` (or OPENAI_BASE_URL and
 * SVIR_MODEL, and OPENAI_API_KEY where the server wants one) it runs unchanged against a real
 * server: LM Studio, Ollama, vLLM, llama.cpp, OpenAI.
 *
 *   npm run demo
 *   npm run demo -- --base-url http://127.0.0.1:11434/v1 --model qwen3
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { Client } from "@svir/client"
import { Request, SvirError, Toolbox, type ToolResult } from "@svir/core"
import { Loop, Stop } from "@svir/loop"
import { McpToolbox } from "@svir/mcp-bridge"
import { Tools } from "@svir/registry"
import { Answer, ScriptedServer } from "@svir/testing"
import { Effect, Exit, Schema, type Scope } from "effect"
import { FetchHttpClient } from "effect/http"
import { summarize, tracing } from "./telemetry.js"

/** A model that keeps calling tools is stopped after this many answers, */
const TURNS = 6
/** or once the answers have used this many tokens. */
const TOKEN_BUDGET = 50_000

/** Which server and model to talk to; no base URL means the scripted server. */
export interface Target {
  readonly baseUrl: string | undefined
  readonly model: string
}

/** The target named by the command line, else by OPENAI_BASE_URL and SVIR_MODEL. */
export const targetFrom = (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Target => {
  const { values } = parseArgs({
    args: [...argv],
    options: { "base-url": { type: "string" }, model: { type: "string" } },
  })
  return {
    baseUrl: values["base-url"] ?? (env.OPENAI_BASE_URL || undefined),
    model: values.model ?? env.SVIR_MODEL ?? "scripted",
  }
}

/** Where the demo writes: the answer's text, and everything about calls and turns. */
export interface Printer {
  readonly text: (piece: string) => void
  readonly note: (piece: string) => void
}

const orders: Record<number, string> = {
  42: "shipped on 2026-11-28, arriving 2026-12-02",
  43: "waiting for payment",
}

const eurTo: Record<string, number> = { EUR: 1, USD: 1.08, GBP: 0.86, JPY: 163.2 }

const Lookup = Schema.Struct({
  id: Schema.Int.annotate({ description: "The order number" }),
})

const Convert = Schema.Struct({
  amount: Schema.Finite.annotate({ description: "The amount to convert." }),
  from: Schema.String.annotate({ description: "The currency to convert from, as a code." }),
  to: Schema.String.annotate({ description: "The currency to convert to, as a code." }),
})

/** The registry's tools: an order lookup and a currency converter. */
export const registry = Tools.empty.pipe(
  Tools.add("lookup_order", "Find an order by its number.", Lookup, (args) =>
    args.id in orders
      ? Effect.succeed(`order ${args.id} is ${orders[args.id]}`)
      : Effect.fail(new Error(`no order ${args.id}`)),
  ),
  Tools.add("convert", "Convert an amount between currencies.", Convert, (args) => {
    const from = eurTo[args.from.toUpperCase()]
    const to = eurTo[args.to.toUpperCase()]
    if (from === undefined || to === undefined) {
      return Effect.fail(new Error(`no rate for ${args.from} to ${args.to}`))
    }
    return Effect.succeed(
      `${args.amount} ${args.from} is about ${((args.amount / from) * to).toFixed(2)} ${args.to}`,
    )
  }),
)

const question = "What do my notes in todo.md ask me to do? Check what you can with your tools."

/** What the scripted server plays: read the notes over MCP, then use two registry tools. */
export const script = (folder: string): ReadonlyArray<Answer.Answer> => [
  Answer.reply({
    text: "Let me read your notes first.",
    calls: [{ name: "files__read_text_file", arguments: { path: join(folder, "todo.md") } }],
  }),
  Answer.reply({
    text: "Two things to check: the order, and the fee in dollars.",
    calls: [
      { name: "lookup_order", arguments: { id: 42 } },
      { name: "convert", arguments: { amount: 20, from: "EUR", to: "USD" } },
    ],
  }),
  Answer.text(
    "Your notes ask you to follow up on order 42 and to pay the 20 EUR customs fee. " +
      "Order 42 shipped on 2026-11-28 and arrives on 2026-12-02; the fee is about 21.60 USD.",
  ),
]

/** A temporary folder with the notes the model reads, removed when the Scope closes. */
const notesFolder: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(async () => {
    const folder = await mkdtemp(join(tmpdir(), "svir-demo-"))
    await writeFile(
      join(folder, "todo.md"),
      "# To do\n- Follow up on order 42.\n- Pay the customs fee: 20 EUR.\n",
    )
    return folder
  }),
  (folder) => Effect.promise(() => rm(folder, { recursive: true, force: true })),
)

const filesystemServer = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-filesystem/dist/index.js",
)

const describeResult = (result: ToolResult.ToolResult): string => {
  const firstLines = result.content.split("\n").filter((line) => line.trim() !== "")
  const shown = firstLines.slice(0, 3).join(" | ")
  return `\n  ${result.isError ? "✗" : "←"} ${shown.length > 100 ? `${shown.slice(0, 100)}…` : shown}`
}

/** What a run of the demo did, and its spans in one line. */
export interface Outcome {
  readonly answer: string
  readonly turns: number
  readonly calls: ReadonlyArray<string>
  readonly spans: string
}

/** Runs the demo against the target, printing as it goes. */
export const demo = (
  target: Target,
  print: Printer,
): Effect.Effect<
  Outcome,
  SvirError.SvirError | Toolbox.ToolClash | ScriptedServer.ScriptedServerError
> => {
  const { exporter, layer } = tracing()
  return Effect.gen(function* () {
    const folder = yield* notesFolder
    const files = yield* McpToolbox.stdio(
      { command: process.execPath, args: [filesystemServer, folder] },
      { prefix: "files" },
    )
    const toolbox = yield* Toolbox.combine([registry, files])

    let baseUrl = target.baseUrl
    if (baseUrl === undefined) {
      const server = yield* ScriptedServer.start(script(folder), { chunkSize: 6 })
      baseUrl = server.url
      print.note(
        `svir demo: no --base-url given, so the model is a SCRIPTED server at ${baseUrl}.\n` +
          "Its answers are canned; the tools, the MCP server, the client and the loop are real.\n",
      )
    } else {
      print.note(`svir demo: talking to ${baseUrl} as model ${target.model}\n`)
    }
    const client = yield* Client.make({ baseUrl })

    const offered = (yield* toolbox.tools).map((tool) => tool.name)
    print.note(`tools: ${offered.join(", ")}\n`)
    print.note(`notes folder (MCP filesystem server, pid ${files.pid}): ${folder}\n\n`)
    print.note(`user: ${question}\n`)

    const request = yield* Request.make(target.model).pipe(
      Request.system(`You are a helpful assistant. The user's files are in ${folder}.`),
      Request.user(question),
      Request.toolsFrom(toolbox),
    )
    let textStarted = false
    const result = yield* Loop.run({
      send: client.stream,
      toolbox,
      request,
      maxSteps: TURNS,
      stopWhen: Stop.tokenBudget(TOKEN_BUDGET),
      onEvent: (event) => {
        switch (event._tag) {
          case "StepStarted":
            textStarted = false
            return print.note(`\n── turn ${event.index + 1}\n`)
          case "TextDelta":
            if (!textStarted) print.note("assistant: ")
            textStarted = true
            return print.text(event.text)
          // A piece of a call: a name once, then fragments of the arguments.
          case "ToolCallDelta":
            if (event.name !== undefined) print.note(`\n  → ${event.name} `)
            return print.note(event.arguments)
          case "CallFinished":
            return print.note(describeResult(event.result))
          case "StepFinished":
            return print.note("\n")
        }
      },
    })
    const calls = result.steps.flatMap((step) => step.calls.map((call) => call.name))
    const turns = result.steps.length
    if (result.stop._tag !== "Answered") {
      return yield* SvirError.make(
        "Unsupported",
        `the model kept calling tools for ${turns} turns (stopped: ${result.stop._tag})`,
      )
    }
    print.note(`\n(${turns} turns, ${calls.length} tool calls: ${calls.join(", ")})\n`)
    const spans = summarize(exporter.getFinishedSpans())
    print.note(`spans: ${spans}\n`)
    return { answer: result.text, turns, calls, spans }
  }).pipe(Effect.provide([FetchHttpClient.layer, layer]), Effect.scoped)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const terminal: Printer = {
    text: (piece) => process.stdout.write(piece),
    note: (piece) => process.stdout.write(piece),
  }
  Effect.runPromiseExit(demo(targetFrom(process.argv.slice(2), process.env), terminal)).then(
    (exit) => {
      if (Exit.isFailure(exit)) {
        const error = exit.cause.reasons[0]
        console.error(
          `\nsvir demo failed: ${error?._tag === "Fail" ? String(error.error) : String(exit.cause)}`,
        )
        process.exitCode = 1
      }
    },
  )
}
