/**
 * Counts the lines of the three agents of `bench/agents/` that do the same job (test/agents.test.ts
 * checks that they print, answer and send back the same): the seeds' streamed loop written by
 * hand, the same with `@svir/loop`, and Vercel's AI SDK `streamText` with `stopWhen`. A line
 * counts when it holds code: blank lines and comment lines do not. Imports and the tools count.
 *
 * Run with `npm run bench` in this package.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"

const codeLines = (file: string): number =>
  readFileSync(join(import.meta.dirname, "agents", file), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^(\/\/|\/\*|\*)/.test(line)).length

const byHand = codeLines("handWritten.ts")
const withLoop = codeLines("withLoop.ts")
const vercel = codeLines("vercel.ts")

console.log(`lines of code of one agent (imports and tools included):
  by hand, on svir's pieces  ${byHand}
  with @svir/loop            ${withLoop}  (${(withLoop / byHand).toFixed(2)}x by hand)
  with the AI SDK            ${vercel}  (${(withLoop / vercel).toFixed(2)}x: @svir/loop / AI SDK)`)
