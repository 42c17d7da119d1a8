/**
 * A structured answer of 10 MB streamed in 100-byte pieces through `PartialJson.reader`, the
 * value so far taken at every piece (as a UI does), against one `JSON.parse` of the whole text.
 * Goal: the whole stream costs at most 3 times the one `JSON.parse`, that is, each byte is read
 * a bounded number of times however the answer is cut.
 *
 * Two answers: records of a few short fields (numbers, names, tags, an escaped note), and
 * records whose fields are mostly prose (where the engine's `JSON.parse` is at its fastest).
 * Each round measures both contenders paired, in alternating order, in CPU time
 * (`process.cpuUsage`) from a clean heap; the figure is the ratio per round. For context, the
 * same answer read by one `PartialJson.parse` call of the text cut before its last character.
 *
 * The peers' streaming helpers read the whole text again at every piece: openai-node's
 * `partialParse` (what its chat stream runs on each delta of a call's arguments) and Vercel's
 * `parsePartialJson` (what `streamObject` runs on each delta). That is quadratic over a stream, so
 * they are measured on smaller answers, twice the size apart, beside the reader on the same text:
 * the ratio per size, and how each grows when the answer doubles (2x is linear, 4x quadratic).
 *
 * Run: npm run bench (uses `tsx --conditions=@svir/source`).
 */
import v8 from "node:v8"
import vm from "node:vm"
import { parsePartialJson } from "ai"
import { partialParse } from "openai/_vendor/partial-json-parser/parser"
import { PartialJson } from "../src/index.js"

const goal = 3
const rounds = Number(process.env.BENCH_ROUNDS ?? 10)
const warmupRounds = 2
const size = 10_000_000
const piece = 100

const answerOf = (row: (i: number) => unknown, bytes = size): string => {
  const rows: Array<unknown> = []
  let length = 0
  for (let i = 0; length < bytes; i++) {
    rows.push(row(i))
    length += JSON.stringify(rows[i]).length + 1
  }
  return JSON.stringify({ rows })
}

const shortFields = (i: number) => ({
  id: i,
  city: `City ${i}`,
  note: `"${i}" \u00e9\n`,
  population: i * 1234.5,
  tags: ["a", "b", null],
  open: i % 2 === 0,
})

const answers = [
  { name: "short fields", text: answerOf(shortFields) },
  {
    name: "prose",
    text: answerOf((i) => ({
      id: i,
      title: `City ${i}`,
      summary: `City ${i} lies on the river, with "old" temples, gardens and a market; its people say the ${i % 7} hills around it keep the summers warm.\n`,
      tags: ["river", "temples"],
    })),
  },
]

/** The pieces as a stream gives them: strings of their own, not slices of the whole. */
const piecesOf = (text: string): ReadonlyArray<string> => {
  const pieces: Array<string> = []
  for (let at = 0; at < text.length; at += piece) {
    pieces.push(JSON.parse(JSON.stringify(text.slice(at, at + piece))) as string)
  }
  return pieces
}

v8.setFlagsFromString("--expose-gc")
const collectGarbage = vm.runInNewContext("gc") as () => void

const cpuMicros = (run: () => unknown): number => {
  collectGarbage()
  const before = process.cpuUsage()
  if (run() === undefined) throw new Error("nothing was read")
  const used = process.cpuUsage(before)
  return used.user + used.system
}

const cpuMicrosAsync = async (run: () => Promise<unknown>): Promise<number> => {
  collectGarbage()
  const before = process.cpuUsage()
  if ((await run()) === undefined) throw new Error("nothing was read")
  const used = process.cpuUsage(before)
  return used.user + used.system
}

/** Reads every piece through the reader, as a UI that shows the value at each piece does. */
const streamThroughReader = (pieces: ReadonlyArray<string>): unknown => {
  const reader = PartialJson.reader()
  let shown: unknown
  for (const next of pieces) shown = reader.push(next)
  return shown
}

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (sorted.length - 1) * q
  const low = Math.floor(at)
  const high = Math.ceil(at)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low)
}

const fixed = (value: number) => value.toFixed(2)

console.log(
  `core: a ${size / 1_000_000} MB answer in ${piece}-byte pieces through PartialJson.reader / one JSON.parse, ${rounds} paired rounds, CPU time (node ${process.version})`,
)
for (const { name, text } of answers) {
  const pieces = piecesOf(text)
  const parseWhole = () => JSON.parse(text)
  const stream = () => streamThroughReader(pieces)
  const cut = text.slice(0, -1)
  const oneCall = () => PartialJson.parse(cut)
  const ratios: Array<number> = []
  const oneCallRatios: Array<number> = []
  let parseMicros = 0
  for (let round = 0; round < warmupRounds + rounds; round++) {
    const first = round % 2 === 0
    const streamed = first ? cpuMicros(stream) : 0
    const whole = cpuMicros(parseWhole)
    const streamedLast = first ? streamed : cpuMicros(stream)
    const once = cpuMicros(oneCall)
    if (round < warmupRounds) continue
    ratios.push(streamedLast / whole)
    oneCallRatios.push(once / whole)
    parseMicros += whole / rounds
  }
  const median = quantile(ratios, 0.5)
  console.log(
    `  ${name.padEnd(13)} JSON.parse ${(parseMicros / 1000).toFixed(0)} ms; streamed / JSON.parse ${fixed(median)}x (p10 ${fixed(quantile(ratios, 0.1))}x, p90 ${fixed(quantile(ratios, 0.9))}x) - goal <= ${goal}x: ${median <= goal ? "met" : "NOT met"}`,
  )
  console.log(
    `  ${"".padEnd(13)} info: one PartialJson.parse of the text cut short / JSON.parse ${fixed(quantile(oneCallRatios, 0.5))}x`,
  )
}

const peerSizes = [50_000, 100_000]
const peerRounds = Math.max(3, Math.ceil(rounds / 2))
/** The reader is read this many times per measurement, so that it takes as long as a peer's. */
const readerRepeats = 200

type Contender = {
  readonly name: string
  readonly run: (prefixes: ReadonlyArray<string>) => unknown
}

const peers: ReadonlyArray<Contender> = [
  {
    name: "openai-node partialParse",
    run: (prefixes) => {
      let shown: unknown
      for (const prefix of prefixes) shown = partialParse(prefix)
      return shown
    },
  },
  {
    name: "ai parsePartialJson",
    run: async (prefixes) => {
      let shown: unknown
      for (const prefix of prefixes) shown = (await parsePartialJson(prefix)).value
      return shown
    },
  },
]

console.log(
  `core: the peers' streaming helpers, which read the whole text so far at every ${piece}-byte piece, / PartialJson.reader on the same answer (short fields), ${peerRounds} paired rounds, CPU time`,
)
const perSize: Array<Map<string, number>> = []
for (const bytes of peerSizes) {
  const pieces = piecesOf(answerOf(shortFields, bytes))
  const prefixes = pieces.map((_, i) => pieces.slice(0, i + 1).join(""))
  const readOnce = () => {
    let shown: unknown
    for (let n = 0; n < readerRepeats; n++) shown = streamThroughReader(pieces)
    return shown
  }
  const samples = new Map<string, Array<number>>([["PartialJson.reader", []]])
  for (let round = 0; round < warmupRounds + peerRounds; round++) {
    const micros = new Map<string, number>()
    const first = round % 2 === 0
    if (first) micros.set("PartialJson.reader", cpuMicros(readOnce) / readerRepeats)
    for (const peer of peers)
      micros.set(peer.name, await cpuMicrosAsync(async () => peer.run(prefixes)))
    if (!first) micros.set("PartialJson.reader", cpuMicros(readOnce) / readerRepeats)
    if (round < warmupRounds) continue
    for (const [name, value] of micros) samples.set(name, [...(samples.get(name) ?? []), value])
  }
  const medians = new Map([...samples].map(([name, values]) => [name, quantile(values, 0.5)]))
  perSize.push(medians)
  const reader = medians.get("PartialJson.reader")!
  const line = peers.map(
    ({ name }) =>
      `${name} ${(medians.get(name)! / 1000).toFixed(0)} ms (${(medians.get(name)! / reader).toFixed(0)}x the reader)`,
  )
  console.log(
    `  ${bytes / 1000} KB: PartialJson.reader ${(reader / 1000).toFixed(1)} ms; ${line.join("; ")}`,
  )
}
const [smaller, larger] = perSize
console.log(
  `  growth when the answer doubles (2x is linear, 4x quadratic): ${[...smaller!.keys()].map((name) => `${name} ${fixed(larger!.get(name)! / smaller!.get(name)!)}x`).join(", ")}`,
)
