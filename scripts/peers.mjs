// `postinstall`: installs the libraries svir is compared and checked against (peers/package.json:
// openai, Vercel's ai, @effect/opentelemetry and the OpenTelemetry SDK) from their own lockfile,
// then links each into node_modules, where the tests, benchmarks and the demo import them by name.
// They stay out of the workspaces' install because their engines ask for Node 22 while svir
// supports Node 20.19, and npm would warn about it to every newcomer (root DECISIONS.md 10).
import { spawnSync } from "node:child_process"
import { lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const peers = join(root, "peers")
const { dependencies } = JSON.parse(readFileSync(join(peers, "package.json"), "utf8"))

// peers/.npmrc sets legacy-peer-deps: effect and zod then resolve to the workspaces' own copies,
// so there is one Effect runtime. Only errors are shown: the engine notes are the peers' own.
const install = spawnSync(
  "npm",
  ["ci", "--prefix", peers, "--no-audit", "--no-fund", "--loglevel=error"],
  { stdio: "inherit", shell: process.platform === "win32" },
)
if (install.status !== 0) {
  console.error("peers: npm ci in peers/ failed")
  process.exit(install.status ?? 1)
}

for (const name of Object.keys(dependencies)) {
  const link = join(root, "node_modules", name)
  const target = join(peers, "node_modules", name)
  let existing
  try {
    existing = lstatSync(link)
  } catch {
    existing = undefined
  }
  if (existing !== undefined && !existing.isSymbolicLink()) {
    console.error(
      `peers: node_modules/${name} is installed by the workspaces too; keep it in one place`,
    )
    process.exit(1)
  }
  if (existing !== undefined) rmSync(link)
  mkdirSync(dirname(link), { recursive: true })
  symlinkSync(relative(dirname(link), target), link, "junction")
}
console.log(`peers: ${Object.keys(dependencies).length} packages linked from peers/node_modules`)
