/**
 * Cold start: the whole cost of a Node process that imports `@svir/client` and
 * `@svir/openai-codec` (their built `dist`, through the packages' names, as a user's program loads
 * them), and of `@svir/openai-codec` alone (a transport of one's own), beside one that imports `openai`, one that imports `ai` + `@ai-sdk/openai-compatible`,
 * and an empty one (Node's own start-up). The processes run one after another in interleaved
 * rounds (each round in a new order), and each child reports its own CPU time
 * (`process.cpuUsage()`, user + system) and peak resident memory at exit.
 *
 * Run from the root: `npm run bench` (or `tsx bench/coldStart.ts`). It builds the packages first
 * (`turbo run build`, cached when nothing changed).
 */
import { spawnSync } from "node:child_process"
import { buildPackages, root } from "./build.js"

const WARMUP = 3
/** `--rounds N` for a quicker look; 30 by default. */
const roundsAt = process.argv.indexOf("--rounds")
const ROUNDS = roundsAt === -1 ? 30 : Number(process.argv[roundsAt + 1])
const GOAL = 1.2

interface Program {
  readonly name: string
  readonly source: string
}

const programs: ReadonlyArray<Program> = [
  {
    name: "svir",
    source:
      'import { Client } from "@svir/client"; import { OpenAiCodec } from "@svir/openai-codec";',
  },
  { name: "codec", source: 'import { OpenAiCodec } from "@svir/openai-codec";' },
  { name: "openai", source: 'import OpenAI from "openai";' },
  {
    name: "ai",
    source:
      'import { streamText } from "ai"; import { createOpenAICompatible } from "@ai-sdk/openai-compatible";',
  },
  { name: "node", source: "" },
]

/** Printed by each child at exit: what the whole process cost, start-up of Node included. */
const report =
  'process.on("exit", () => { const c = process.cpuUsage(); ' +
  "process.stdout.write(JSON.stringify({ cpu: (c.user + c.system) / 1000, rss: process.resourceUsage().maxRSS / 1024 })) })"

interface Sample {
  readonly cpu: number
  readonly rss: number
  readonly wall: number
}

const run = (program: Program): Sample => {
  const start = performance.now()
  const child = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", `${program.source} ${report}`],
    { cwd: root, encoding: "utf8" },
  )
  const wall = performance.now() - start
  if (child.status !== 0) {
    throw new Error(`the ${program.name} process failed:\n${child.stderr}`)
  }
  const { cpu, rss } = JSON.parse(child.stdout) as { cpu: number; rss: number }
  return { cpu, rss, wall }
}

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

const ratioLine = (what: string, ratios: ReadonlyArray<number>, goal?: number): string => {
  const median = quantile(ratios, 0.5)
  const spread = `(p10 ${quantile(ratios, 0.1).toFixed(2)}x, p90 ${quantile(ratios, 0.9).toFixed(2)}x)`
  const verdict =
    goal === undefined ? "" : ` - goal <= ${goal}x: ${median <= goal ? "met" : "NOT met"}`
  return `${goal === undefined ? "info" : "goal"}  ${what}: ${median.toFixed(2)}x ${spread}${verdict}`
}

buildPackages()

const samples = new Map<string, Array<Sample>>(programs.map((p) => [p.name, []]))
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  // Each round starts with the next program, so none always runs right after another.
  for (let i = 0; i < programs.length; i++) {
    const program = programs[(round + i) % programs.length]!
    const sample = run(program)
    if (round >= WARMUP) samples.get(program.name)!.push(sample)
  }
}

const of = (name: string) => samples.get(name)!
const perRound = (a: string, b: string, pick: (s: Sample) => number) =>
  of(a).map((sample, i) => pick(sample) / pick(of(b)[i]!))

console.log(
  `\nCold start: one process per import, ${ROUNDS} interleaved rounds after ${WARMUP} warm-up`,
)
for (const program of programs) {
  const list = of(program.name)
  const median = (pick: (s: Sample) => number) => quantile(list.map(pick), 0.5)
  console.log(
    `  ${program.name.padEnd(8)} cpu ${median((s) => s.cpu)
      .toFixed(0)
      .padStart(4)} ms  wall ${median((s) => s.wall)
      .toFixed(0)
      .padStart(4)} ms  maxRSS ${median((s) => s.rss)
      .toFixed(1)
      .padStart(6)} MB`,
  )
}
const cpu = (s: Sample) => s.cpu
console.log(ratioLine("cold start CPU, svir / openai", perRound("svir", "openai", cpu), GOAL))
console.log(ratioLine("cold start CPU, svir / ai", perRound("svir", "ai", cpu)))
console.log(ratioLine("cold start CPU, the codec alone / openai", perRound("codec", "openai", cpu)))
console.log(
  ratioLine(
    "cold start wall, svir / openai",
    perRound("svir", "openai", (s) => s.wall),
  ),
)
console.log(
  ratioLine(
    "peak RSS, svir / openai",
    perRound("svir", "openai", (s) => s.rss),
  ),
)
