/**
 * The package boundaries that knip cannot check (DECISIONS.md 1): no import cycle, even a
 * type-only one; no relative import into another package's folder; and each package depends only
 * on what ARCHITECTURE.md allows. Imports are read by madge. Run by `npm run check:boundaries`.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
// @ts-expect-error madge ships no types
import madge from "madge"

/**
 * What each package may depend on (`dependencies` and `peerDependencies`): ARCHITECTURE.md's
 * arrows. Tests and benchmarks use `devDependencies`, which knip checks.
 */
const allowed: Record<string, ReadonlyArray<string>> = {
  "@svir/core": ["effect"],
  "@svir/registry": ["@svir/core", "effect"],
  "@svir/openai-codec": ["@svir/core", "effect"],
  "@svir/mcp-bridge": ["@svir/core", "effect", "@modelcontextprotocol/sdk"],
  // `@svir/openai-codec` is an optional peer: the command loads it by name for `--codec openai`,
  // nothing imports it; `vitest` is the optional peer of the `./vitest` entry.
  "@svir/conformance": ["@svir/core", "effect", "@svir/openai-codec", "vitest"],
  "@svir/client": ["@svir/core", "@svir/openai-codec", "effect"],
  "@svir/testing": ["effect"],
}

const root = join(import.meta.dirname, "..")
const problems: Array<string> = []

for (const folder of readdirSync(join(root, "packages"))) {
  const manifest = JSON.parse(readFileSync(join(root, "packages", folder, "package.json"), "utf8"))
  const allows = allowed[manifest.name]
  if (allows === undefined) {
    problems.push(`${manifest.name}: not in the table of allowed dependencies`)
    continue
  }
  const used = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]
  for (const name of used.filter((name) => !allows.includes(name))) {
    problems.push(`${manifest.name} depends on ${name}; it may depend on ${allows.join(", ")}`)
  }
}

const graph = await madge(["packages", "examples"], {
  baseDir: root,
  fileExtensions: ["ts", "mts", "js", "mjs"],
  excludeRegExp: [/(^|\/)(node_modules|dist|coverage)\//],
  tsConfig: join(root, "tsconfig.base.json"),
})

for (const cycle of graph.circular() as Array<Array<string>>) {
  problems.push(`import cycle: ${[...cycle, cycle[0]].join(" > ")}`)
}

/** `packages/core` for a file of that package, `examples` for an example, "" for the root's own. */
const owner = (file: string): string => {
  const [top, name] = file.split(/[\\/]/)
  if (top === "packages") return `packages/${name}`
  return top === "examples" ? top : ""
}

const edges = graph.obj() as Record<string, Array<string>>
for (const [file, imports] of Object.entries(edges)) {
  for (const imported of imports.filter(
    (imported) => owner(imported) !== "" && owner(imported) !== owner(file),
  )) {
    problems.push(
      `${file} imports ${imported}: another package's files are reached by its name and exports`,
    )
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`✖ ${problem}`)
  process.exitCode = 1
} else {
  const files = Object.keys(edges).length
  console.log(`boundaries: ${files} files, no cycle, no reach into another package`)
}
