/**
 * 10,000 calls of one tool with a 5-field schema, the same inputs for each contender:
 *
 * - baseline: JSON.parse, checks written by hand, a direct call of the handler
 * - registry: `Tools.callAll` of this package
 * - effect/ai: `Toolkit.handle` of Effect's own toolkit (decode, handle, encode the result)
 * - ai-sdk: Vercel AI SDK's path (`safeParseJSON` with the zod schema, then `executeTool`)
 *
 * Goal: the registry costs at most twice the hand-written baseline. Each round measures the
 * baseline and the registry paired, in alternating order, then the two peers; the figure is the
 * CPU time of this process (`process.cpuUsage`, the garbage collector's threads included) per
 * call, registry over baseline, per round.
 */
import v8 from "node:v8"
import vm from "node:vm"
import { executeTool, safeParseJSON } from "@ai-sdk/provider-utils"
import { type ToolCall, ToolResult } from "@svir/core"
import { tool as aiTool, zodSchema } from "ai"
import { Effect, Schema, Stream } from "effect"
import { Tool as AiTool, Toolkit } from "effect/ai"
import { z } from "zod"
import { Tools } from "../src/index.js"

const calls = 10_000

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

const goal = 2
const rounds = Number(process.env.BENCH_ROUNDS ?? 30)
const warmupRounds = 3
/** Batches per measurement of the baseline and the registry, so that one is some milliseconds. */
const batches = 8

v8.setFlagsFromString("--expose-gc")
const collectGarbage = vm.runInNewContext("gc") as () => void

interface Contender {
  readonly name: string
  readonly run: () => Promise<ReadonlyArray<unknown>>
  readonly batches: number
}

const contenders: ReadonlyArray<Contender> = [
  { name: "baseline (hand-written)", run: baseline, batches },
  { name: "@svir/registry callAll", run: registry, batches },
  { name: "effect/ai Toolkit.handle", run: effectAi, batches: 1 },
  { name: "ai-sdk tool() + zod", run: aiSdk, batches: 1 },
]

// The registry answers each call as the baseline does.
{
  const expected = await baseline()
  const got = await registry()
  for (const [i, result] of expected.entries()) {
    if (JSON.stringify(got[i]) !== JSON.stringify(result)) {
      throw new Error(`call ${i}: ${JSON.stringify(got[i])} is not ${JSON.stringify(result)}`)
    }
  }
}

/** CPU and wall microseconds per call of one run of the contender's batches. */
const measure = async (contender: Contender): Promise<{ cpu: number; wall: number }> => {
  // Each measurement starts from a clean heap, so that none pays for the garbage of the one before.
  collectGarbage()
  const start = performance.now()
  const before = process.cpuUsage()
  for (let batch = 0; batch < contender.batches; batch++) {
    const results = await contender.run()
    if (results.length !== calls)
      throw new Error(`expected ${calls} results, got ${results.length}`)
  }
  const used = process.cpuUsage(before)
  const wall = (performance.now() - start) * 1000
  const runs = contender.batches * calls
  return { cpu: (used.user + used.system) / runs, wall: wall / runs }
}

const samples = contenders.map(() => ({ cpu: [] as Array<number>, wall: [] as Array<number> }))
for (let round = 0; round < warmupRounds + rounds; round++) {
  // Paired, in alternating order, so that a slow moment of the machine falls on both alike.
  const order = round % 2 === 0 ? [0, 1, 2, 3] : [1, 0, 3, 2]
  for (const i of order) {
    const { cpu, wall } = await measure(contenders[i]!)
    if (round < warmupRounds) continue
    samples[i]!.cpu.push(cpu)
    samples[i]!.wall.push(wall)
  }
}

// --- report -----------------------------------------------------------------------------------

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (sorted.length - 1) * q
  const low = Math.floor(at)
  const high = Math.ceil(at)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low)
}

const fixed = (value: number) => value.toFixed(2)

const ratios = (over: number, under: number, figure: "cpu" | "wall" = "cpu") =>
  samples[over]![figure].map((micros, round) => micros / samples[under]![figure][round]!)

const line = (label: string, what: string, values: ReadonlyArray<number>, withGoal: boolean) => {
  const median = quantile(values, 0.5)
  const verdict = withGoal ? ` - goal <= ${goal}x: ${median <= goal ? "met" : "NOT met"}` : ""
  console.log(
    `${label}  ${what}: ${fixed(median)}x (p10 ${fixed(quantile(values, 0.1))}x, p90 ${fixed(quantile(values, 0.9))}x)${verdict}`,
  )
}

console.log(
  `registry: ${calls} calls of a 5-field schema, ${rounds} paired rounds, CPU time (node ${process.version})`,
)
for (const [i, contender] of contenders.entries()) {
  console.log(
    `  ${contender.name.padEnd(26)} ${fixed(quantile(samples[i]!.cpu, 0.5)).padStart(7)} µs CPU/call (p10 ${fixed(quantile(samples[i]!.cpu, 0.1))}, p90 ${fixed(quantile(samples[i]!.cpu, 0.9))}); ${fixed(quantile(samples[i]!.wall, 0.5))} µs wall`,
  )
}
line("goal", "Tools.callAll / hand-written baseline, CPU per call", ratios(1, 0), true)
line("info", "Tools.callAll / hand-written baseline, wall per call", ratios(1, 0, "wall"), false)
line("info", "effect/ai Toolkit.handle / Tools.callAll, CPU per call", ratios(2, 1), false)
line("info", "ai-sdk tool() + zod / Tools.callAll, CPU per call", ratios(3, 1), false)
