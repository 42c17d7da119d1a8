/**
 * Building a history turn by turn with the public helpers: a user turn, the assistant turn that
 * calls a tool, the tool's result, again and again, each step returning a new request (as an
 * agent loop does). Goal: building 4,000 messages costs at most 5 times building 1,000, that is,
 * building is linear in the length of the history.
 *
 * Each round builds both lengths, paired and in alternating order, several times over so that a
 * measurement is some milliseconds of CPU time (`process.cpuUsage`); the figure is the ratio of
 * the two per round. For context, the time per message is shown beside pushing the same messages
 * onto a plain array, and the same ratio when the loop also reads `messages` after every step (as
 * a loop that sends every turn does; each read is one copy, see DECISIONS.md, D9).
 *
 * Run: npm run bench (uses `tsx --conditions=@svir/source`).
 */
import v8 from "node:v8"
import vm from "node:vm"
import { Completion, Message, Request, Tool, ToolCall, ToolResult } from "../src/index.js"

const goal = 5
const rounds = Number(process.env.BENCH_ROUNDS ?? 30)
const warmupRounds = 3
const short = 1_000
const long = 4_000

const weather = Tool.make("weather", "The weather in a city.", {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
})

// The inputs of each step, made once, so that the rounds measure building and nothing else.
const questions = Array.from({ length: long }, (_, i) => `What is the weather in city ${i}?`)
const completions = Array.from({ length: long }, (_, i) =>
  Completion.make({
    text: "",
    calls: [ToolCall.make(`call_${i}`, "weather", `{"city":"City ${i}"}`)],
    finish: "tool_calls",
  }),
)
const results = Array.from({ length: long }, (_, i) => [
  ToolResult.make(`call_${i}`, `Sunny, ${i % 30} degrees`),
])

const start = Request.make("gpt-bench").pipe(Request.system("Be brief."), Request.tool(weather))

/** `count` steps, one message each: user, assistant with a call, the call's result, ... */
const build = (count: number, read: boolean): number => {
  let request = start
  let seen = 0
  for (let step = 0; step < count; step++) {
    const turn = Math.floor(step / 3)
    if (step % 3 === 0) request = Request.user(request, questions[turn]!)
    else if (step % 3 === 1) request = Request.assistant(request, completions[turn]!)
    else request = Request.toolResults(request, results[turn]!)
    if (read) seen += request.messages.length
  }
  return request.messages.length + seen
}

/** The same messages pushed onto one array. */
const push = (count: number): number => {
  const messages: Array<Message.Message> = []
  for (let step = 0; step < count; step++) {
    const turn = Math.floor(step / 3)
    if (step % 3 === 0) messages.push(Message.user(questions[turn]!))
    else if (step % 3 === 1) messages.push(Message.assistant(completions[turn]!))
    else messages.push(...results[turn]!.map(Message.toolResult))
  }
  return messages.length
}

v8.setFlagsFromString("--expose-gc")
const collectGarbage = vm.runInNewContext("gc") as () => void

const cpuMicros = (run: () => number, times: number): number => {
  // Each measurement starts from a clean heap, so that none pays for the garbage of the one before.
  collectGarbage()
  const before = process.cpuUsage()
  let check = 0
  for (let i = 0; i < times; i++) check += run()
  const used = process.cpuUsage(before)
  if (check === 0) throw new Error("nothing was built")
  return (used.user + used.system) / times
}

/** How many runs make some milliseconds of CPU time, so that one measurement is not all noise. */
const repeatsFor = (run: () => number): number => {
  const once = Math.max(cpuMicros(run, 20), 1)
  return Math.max(1, Math.ceil(50_000 / once))
}

interface Contender {
  readonly name: string
  readonly short: () => number
  readonly long: () => number
}

const contenders: ReadonlyArray<Contender> = [
  { name: "built", short: () => build(short, false), long: () => build(long, false) },
  {
    name: "built, read every step",
    short: () => build(short, true),
    long: () => build(long, true),
  },
  { name: "array push", short: () => push(short), long: () => push(long) },
]

const repeats = contenders.map((contender) => repeatsFor(contender.short))
const samples = contenders.map(() => ({ short: [] as Array<number>, long: [] as Array<number> }))

for (let round = 0; round < warmupRounds + rounds; round++) {
  for (const [i, contender] of contenders.entries()) {
    const into = samples[i]!
    const times = repeats[i]!
    // Paired, in alternating order, so that a slow moment of the machine falls on both alike.
    if (round % 2 === 0) {
      into.short.push(cpuMicros(contender.short, times))
      into.long.push(cpuMicros(contender.long, times))
    } else {
      into.long.push(cpuMicros(contender.long, times))
      into.short.push(cpuMicros(contender.short, times))
    }
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

const line = (label: string, what: string, values: ReadonlyArray<number>, withGoal: boolean) => {
  const median = quantile(values, 0.5)
  const verdict = withGoal ? ` - goal <= ${goal}x: ${median <= goal ? "met" : "NOT met"}` : ""
  console.log(
    `${label}  ${what}: ${fixed(median)}x (p10 ${fixed(quantile(values, 0.1))}x, p90 ${fixed(quantile(values, 0.9))}x)${verdict}`,
  )
}

const measured = (values: ReadonlyArray<number>) => values.slice(warmupRounds)
const ratios = (i: number) => {
  const into = samples[i]!
  return measured(into.long).map((micros, round) => micros / measured(into.short)[round]!)
}
const perMessage = (i: number, which: "short" | "long") =>
  (quantile(measured(samples[i]![which]), 0.5) * 1000) / (which === "short" ? short : long)

console.log(
  `core: a history built turn by turn (user, assistant with a call, result), ${rounds} paired rounds, CPU time (node ${process.version})`,
)
for (const [i, contender] of contenders.entries()) {
  console.log(
    `  ${contender.name.padEnd(24)} ${short} messages ${perMessage(i, "short").toFixed(0).padStart(7)} ns/message; ${long} messages ${perMessage(i, "long").toFixed(0).padStart(7)} ns/message`,
  )
}
line("goal", `history of ${long} messages / ${short}, built turn by turn`, ratios(0), true)
line("info", `the same, reading messages after every step`, ratios(1), false)
line("info", `${long} / ${short} messages pushed onto an array`, ratios(2), false)
{
  const builtOverPush = measured(samples[0]!.long).map(
    (micros, round) => micros / measured(samples[2]!.long)[round]!,
  )
  line("info", `${long} messages built / pushed onto an array, per message`, builtOverPush, false)
}
