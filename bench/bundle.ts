/**
 * Bundle size: the same small program (stream one answer that may call one tool, print its text,
 * answer the calls) written on svir (`@svir/client` + `@svir/registry`, an Effect Schema tool), on
 * `openai` (a hand-written JSON Schema) and on `ai` + `@ai-sdk/openai-compatible` + zod, each in
 * `bench/bundle/`. esbuild bundles each one (ESM for Node, minified, the packages' built `dist`),
 * and the output is gzipped. A bundle is the same bytes every time, so there is no spread to
 * sample: p10 and p90 equal the median.
 *
 * Then the root README's agent as the README writes it (its `agent.ts` block, read from the
 * README), bundled by esbuild and by Vite, beside `openai`'s program bundled the same way, and
 * once more with `import { Effect, Schema } from "effect"` in place of the module paths, to show
 * what the root import costs with each bundler (root DECISIONS.md 12).
 *
 * Run from the root: `npm run bench` (or `tsx bench/bundle.ts`; `--why` lists the heaviest
 * modules of the svir bundle). It builds the packages first (`turbo run build`, cached when
 * nothing changed).
 */
import { rmSync, writeFileSync } from "node:fs"
import path from "node:path"
import { gzipSync } from "node:zlib"
import * as esbuild from "esbuild"
import { build as viteBuild } from "vite"
import { readmeBlock } from "../scripts/readme-block.mjs"
import { buildPackages, root } from "./build.js"

const GOAL_OPENAI = 1.2

buildPackages()

interface Bundled {
  readonly minified: number
  readonly gzipped: number
  readonly inputs: ReadonlyArray<readonly [string, number]>
}

const bundle = async (name: string): Promise<Bundled> => {
  const result = await esbuild.build({
    entryPoints: [entry(name)],
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    target: "node20",
    write: false,
    metafile: true,
    logLevel: "error",
  })
  const code = result.outputFiles[0]!.contents
  const output = Object.values(result.metafile.outputs)[0]!
  const inputs = Object.entries(output.inputs)
    .map(([file, { bytesInOutput }]) => [file, bytesInOutput] as const)
    .sort((a, b) => b[1] - a[1])
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length, inputs }
}

const entry = (name: string): string => path.join(root, "bench/bundle", `${name}.ts`)

/** The bundle Vite makes of a program for Node (an SSR build with every package inside), gzipped. */
const viteGzipped = async (name: string): Promise<number> => {
  const output = await viteBuild({
    root,
    configFile: false,
    logLevel: "silent",
    build: { ssr: entry(name), write: false, minify: true, target: "node20" },
    ssr: { noExternal: true, target: "node" },
  })
  const [result] = Array.isArray(output) ? output : [output]
  if (result === undefined || !("output" in result)) throw new Error("vite gave no output")
  const code = result.output.map((file) => (file.type === "chunk" ? file.code : "")).join("")
  return gzipSync(code, { level: 9 }).length
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`

const line = (what: string, ratio: number, goal: string, met: boolean): string =>
  `goal  ${what}: ${ratio.toFixed(2)}x (p10 ${ratio.toFixed(2)}x, p90 ${ratio.toFixed(2)}x) - goal ${goal}: ${met ? "met" : "NOT met"}`

const names = ["svir", "openai", "ai"] as const
const sizes = new Map<string, Bundled>()
for (const name of names) sizes.set(name, await bundle(name))

console.log("\nBundle: esbuild, ESM for Node, minified, then gzip -9")
for (const name of names) {
  const size = sizes.get(name)!
  console.log(
    `  ${name.padEnd(8)} minified ${kb(size.minified).padStart(9)}  gzipped ${kb(size.gzipped).padStart(8)}`,
  )
}
const svir = sizes.get("svir")!.gzipped
const vsOpenai = svir / sizes.get("openai")!.gzipped
const vsAi = svir / sizes.get("ai")!.gzipped
console.log(
  line("bundle gzipped, svir / openai", vsOpenai, `<= ${GOAL_OPENAI}x`, vsOpenai <= GOAL_OPENAI),
)
console.log(line("bundle gzipped, svir / ai", vsAi, "< 1x", vsAi < 1))

if (process.argv.includes("--why")) {
  console.log("\nHeaviest modules of the svir bundle (minified bytes, before gzip):")
  for (const [file, bytes] of sizes.get("svir")!.inputs.slice(0, 40)) {
    console.log(`  ${kb(bytes).padStart(9)}  ${file}`)
  }
}

// The README's agent, as written and with the root import, next to the bench's folder so that
// the packages resolve as they do for the other programs.
const agent = readmeBlock("agent.ts")
const rootImport = agent
  .replace('import * as Effect from "effect/Effect"\n', 'import { Effect, Schema } from "effect"\n')
  .replace('import * as Schema from "effect/Schema"\n', "")
if (rootImport === agent) throw new Error("the README's agent no longer imports effect/Effect")
const written = { "readme-agent": agent, "readme-agent-root": rootImport }
try {
  for (const [name, text] of Object.entries(written)) writeFileSync(entry(`.${name}`), text)
  console.log("\nThe README's agent, gzipped, by bundler (openai's program bundled the same way)")
  for (const bundler of ["esbuild", "vite"] as const) {
    const size = async (name: string) =>
      bundler === "esbuild" ? (await bundle(name)).gzipped : await viteGzipped(name)
    const openai = await size("openai")
    const asWritten = await size(".readme-agent")
    const withRoot = await size(".readme-agent-root")
    console.log(
      `  ${bundler.padEnd(8)} as written ${kb(asWritten).padStart(8)} (${(asWritten / openai).toFixed(2)}x openai)  from the effect root ${kb(withRoot).padStart(8)} (${(withRoot / openai).toFixed(2)}x)  openai ${kb(openai).padStart(8)}`,
    )
  }
} finally {
  for (const name of Object.keys(written)) rmSync(entry(`.${name}`), { force: true })
}
