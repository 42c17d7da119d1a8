/**
 * 10,000 calls of one tool with a 5-field schema, the same inputs for each contender:
 *
 * - baseline: JSON.parse, checks written by hand, a direct call of the handler
 * - registry: `Tools.callAll` of this package
 * - effect/ai: `Toolkit.handle` of Effect's own toolkit (decode, handle, encode the result)
 * - ai-sdk: Vercel AI SDK's path (`safeParseJSON` with the zod schema, then `executeTool`)
 *
 * Each contender runs a warm-up batch, then measured rounds, interleaved; the best round is kept.
 */
import { executeTool, safeParseJSON } from "@ai-sdk/provider-utils"
import { type ToolCall, ToolResult } from "@svir/core"
import { tool as aiTool, zodSchema } from "ai"
import { Effect, Schema, Stream } from "effect"
import { Tool as AiTool, Toolkit } from "effect/ai"
import { z } from "zod"
import { Tools } from "../src/index.js"

const calls = 10_000
const rounds = 30

const inputs: ReadonlyArray<ToolCall.ToolCall> = Array.from({ length: calls }, (_, i) => ({
  id: `call_${i}`,
  name: "book",
  arguments: JSON.stringify({
    city: i % 2 === 0 ? "Lisbon" : "Porto",
    nights: 1 + (i % 7),
    guests: 1 + (i % 4),
    breakfast: i % 3 === 0,
    note: `request ${i}`,
  }),
}))

interface Booking {
  readonly city: string
  readonly nights: number
  readonly guests: number
  readonly breakfast: boolean
  readonly note: string
}

const book = (args: Booking): string =>
  `${args.nights} nights in ${args.city} for ${args.guests}${args.breakfast ? " with breakfast" : ""}`

// --- baseline -------------------------------------------------------------------------------

const baselineCall = (call: ToolCall.ToolCall): ToolResult.ToolResult => {
  let value: unknown
  try {
    value = JSON.parse(call.arguments)
  } catch {
    return ToolResult.error(call.id, "invalid arguments: not JSON")
  }
  if (typeof value !== "object" || value === null) {
    return ToolResult.error(call.id, "invalid arguments: not an object")
  }
  const args = value as Record<string, unknown>
  if (typeof args.city !== "string") return ToolResult.error(call.id, "invalid arguments: city")
  if (!Number.isInteger(args.nights)) return ToolResult.error(call.id, "invalid arguments: nights")
  if (!Number.isInteger(args.guests)) return ToolResult.error(call.id, "invalid arguments: guests")
  if (typeof args.breakfast !== "boolean") {
    return ToolResult.error(call.id, "invalid arguments: breakfast")
  }
  if (typeof args.note !== "string") return ToolResult.error(call.id, "invalid arguments: note")
  return ToolResult.make(call.id, book(args as unknown as Booking))
}

const baseline = async () => inputs.map(baselineCall)

// --- this package -----------------------------------------------------------------------------

const BookArgs = Schema.Struct({
  city: Schema.String,
  nights: Schema.Int,
  guests: Schema.Int,
  breakfast: Schema.Boolean,
  note: Schema.String,
})

const tools = Tools.empty.pipe(Tools.add("book", "Book a hotel.", BookArgs, book))

const registry = () => Effect.runPromise(Tools.callAll(tools, inputs))

// --- effect/ai Toolkit ------------------------------------------------------------------------

const BookTool = AiTool.make("book", {
  description: "Book a hotel.",
  parameters: BookArgs,
  success: Schema.String,
})
const toolkit = Toolkit.make(BookTool)
const handlers = Effect.runSync(
  toolkit.pipe(Effect.provide(toolkit.toLayer({ book: (args) => Effect.succeed(book(args)) }))),
)

const effectAi = () =>
  Effect.runPromise(
    Effect.forEach(inputs, (call) =>
      Effect.flatMap(handlers.handle("book", JSON.parse(call.arguments), call.id), (stream) =>
        Stream.runLast(stream),
      ),
    ),
  )

// --- Vercel AI SDK ----------------------------------------------------------------------------

const sdkTool = aiTool({
  description: "Book a hotel.",
  inputSchema: zodSchema(
    z.object({
      city: z.string(),
      nights: z.number().int(),
      guests: z.number().int(),
      breakfast: z.boolean(),
      note: z.string(),
    }),
  ),
  execute: async (args: Booking) => book(args),
})

const aiSdkCall = async (call: ToolCall.ToolCall): Promise<ToolResult.ToolResult> => {
  const parsed = await safeParseJSON({ text: call.arguments, schema: sdkTool.inputSchema })
  if (!parsed.success) return ToolResult.error(call.id, parsed.error.message)
  let output: unknown
  for await (const part of executeTool({
    tool: sdkTool,
    input: parsed.value,
    options: { toolCallId: call.id, messages: [], context: undefined as never },
  })) {
    if (part.type === "final") output = part.output
  }
  return ToolResult.make(call.id, String(output))
}

const aiSdk = async () => {
  const results: Array<ToolResult.ToolResult> = []
  for (const call of inputs) results.push(await aiSdkCall(call))
  return results
}

// --- run --------------------------------------------------------------------------------------

const contenders: ReadonlyArray<readonly [string, () => Promise<ReadonlyArray<unknown>>]> = [
  ["baseline (hand-written)", baseline],
  ["@svir/registry callAll", registry],
  ["effect/ai Toolkit.handle", effectAi],
  ["ai-sdk tool() + zod", aiSdk],
]

// Rounds alternate between contenders, so that load from elsewhere on the machine falls on all
// of them alike; the best round of each is kept.
const best = contenders.map(() => Number.POSITIVE_INFINITY)
for (const [, run] of contenders) await run()
for (let round = 0; round < rounds; round++) {
  for (const [i, [, run]] of contenders.entries()) {
    const start = performance.now()
    const results = await run()
    const elapsed = performance.now() - start
    if (results.length !== calls)
      throw new Error(`expected ${calls} results, got ${results.length}`)
    best[i] = Math.min(best[i]!, elapsed)
  }
}
const timings = contenders.map(([name], i) => [name, best[i]!] as const)

const base = timings[0]![1]
console.log(`${calls} calls, 5-field schema, best of ${rounds} rounds (node ${process.version})`)
for (const [name, ms] of timings) {
  console.log(
    `${name.padEnd(26)} ${ms.toFixed(1).padStart(8)} ms  ${((ms * 1000) / calls).toFixed(2).padStart(7)} µs/call  ${(ms / base).toFixed(2).padStart(6)}x baseline`,
  )
}
const ours = timings[1]![1]
console.log(
  `registry vs effect/ai: ${(timings[2]![1] / ours).toFixed(2)}x faster; vs ai-sdk: ${(timings[3]![1] / ours).toFixed(2)}x faster`,
)
