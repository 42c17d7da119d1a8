/**
 * The arrows between the packages, read from ARCHITECTURE.md's table (its one source), and the
 * check that the packages follow them where an import check cannot see: every package has a row,
 * every row a package, and each `package.json` depends on (or peers with) only the packages its
 * row names. `.dependency-cruiser.cjs` reads the same arrows for the imports. Run by
 * `npm run check:boundaries`; `node scripts/arrows.cjs` prints what is wrong and exits 1.
 */
const { readdirSync, readFileSync } = require("node:fs")
const { join } = require("node:path")

const root = join(__dirname, "..")

/** The rows of the table: package, what it may use, what it loads by name. */
const readArrows = (text = readFileSync(join(root, "ARCHITECTURE.md"), "utf8")) => {
  const rows = {}
  for (const line of text.split("\n")) {
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim())
    if (cells.length !== 3) continue
    const [name] = names(cells[0])
    if (name === undefined) continue
    rows[name] = { uses: names(cells[1]), loads: names(cells[2]) }
  }
  return rows
}

/** The package names written as code spans in a cell. */
const names = (cell) => Array.from(cell.matchAll(/`([a-z-]+)`/g), (match) => match[1])

/** What is wrong, one line each; empty when the packages follow the table. */
const problems = (arrows = readArrows()) => {
  const found = []
  const packages = readdirSync(join(root, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
  for (const name of packages) {
    const row = arrows[name]
    if (row === undefined) {
      found.push(`packages/${name} has no row in ARCHITECTURE.md's table of arrows`)
      continue
    }
    const json = JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8"))
    const allowed = new Set([...row.uses, ...row.loads])
    for (const field of ["dependencies", "peerDependencies"]) {
      for (const dependency of Object.keys(json[field] ?? {})) {
        if (!dependency.startsWith("@svir/")) continue
        const other = dependency.slice("@svir/".length)
        if (!allowed.has(other)) {
          found.push(
            `packages/${name}/package.json: ${field} has ${dependency}, which ARCHITECTURE.md does not let @svir/${name} use`,
          )
        }
      }
    }
  }
  for (const name of Object.keys(arrows)) {
    if (!packages.includes(name))
      found.push(`ARCHITECTURE.md names ${name}, which is not a package`)
    for (const other of [...arrows[name].uses, ...arrows[name].loads]) {
      if (arrows[other] === undefined)
        found.push(`ARCHITECTURE.md: ${name} uses ${other}, which has no row`)
    }
  }
  const readme = readFileSync(join(root, "README.md"), "utf8")
  const diagram = /```\n(@svir\/core[\s\S]*?)```/.exec(readme)?.[1] ?? ""
  for (const name of packages) {
    if (!diagram.includes(`@svir/${name}`))
      found.push(`README.md's diagram of the packages leaves out @svir/${name}`)
  }
  return found
}

module.exports = { readArrows, problems }

if (require.main === module) {
  const found = problems()
  for (const line of found) console.error(line)
  process.exit(found.length === 0 ? 0 : 1)
}
