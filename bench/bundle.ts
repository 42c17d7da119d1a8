/**
 * Bundle size: the same small program (stream one answer that may call one tool, print its text,
 * answer the calls) written on svir (`@svir/client` + `@svir/registry`, an Effect Schema tool), on
 * `openai` (a hand-written JSON Schema) and on `ai` + `@ai-sdk/openai-compatible` + zod, each in
 * `bench/bundle/`. esbuild bundles each one (ESM for Node, minified, the packages' built `dist`),
 * and the output is gzipped. A bundle is the same bytes every time, so there is no spread to
 * sample: p10 and p90 equal the median.
 *
 * Run from the root: `npm run bench` (or `tsx bench/bundle.ts`; `--why` lists the heaviest
 * modules of the svir bundle). It builds the packages first (`turbo run build`, cached when
 * nothing changed).
 */
import path from "node:path"
import { gzipSync } from "node:zlib"
import * as esbuild from "esbuild"
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
    entryPoints: [path.join(root, "bench/bundle", `${name}.ts`)],
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
