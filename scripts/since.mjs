// `npm run check:since`: the `@since` tags of packages/*/src against the version each package is
// released as next (root DECISIONS.md 11). That version is the package's `version` raised by the
// highest bump of the pending changesets (.changeset/*.md) that name it or a package of its
// `fixed` group, as `changeset version` raises it. A tag must be a version `x.y.z` and never later
// than that; while a package has no CHANGELOG.md (it was never released), every tag must be that
// version, since everything in it is new in its first release. Reads files only, no network.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const changesets = join(root, ".changeset")
const bumps = ["none", "patch", "minor", "major"]

const parse = (version) => {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version)
  return match === null ? undefined : match.slice(1).map(Number)
}

const compare = (a, b) => {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i]
  return 0
}

const raise = ([major, minor, patch], bump) => {
  if (bump === "major") return [major + 1, 0, 0]
  if (bump === "minor") return [major, minor + 1, 0]
  if (bump === "patch") return [major, minor, patch + 1]
  return [major, minor, patch]
}

/** The packages each pending changeset bumps, and how: `"@svir/core": minor` in its front matter. */
const pending = readdirSync(changesets)
  .filter((name) => name.endsWith(".md") && name !== "README.md")
  .map((name) => {
    const text = readFileSync(join(changesets, name), "utf8")
    const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)
    const releases = new Map()
    for (const line of (front?.[1] ?? "").split(/\r?\n/)) {
      const release = /^\s*["']?([^"':\s]+)["']?\s*:\s*(major|minor|patch|none)\s*$/.exec(line)
      if (release !== null) releases.set(release[1], release[2])
    }
    return releases
  })

const config = JSON.parse(readFileSync(join(changesets, "config.json"), "utf8"))
const matches = (pattern, name) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*")}$`).test(name)
/** The names released with `name`: its `fixed` group, or itself. */
const groupOf = (name) =>
  (config.fixed ?? []).find((group) => group.some((pattern) => matches(pattern, name))) ?? [name]

const sourceFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.[cm]?tsx?$/.test(entry.name) ? [path] : []
  })

const problems = []
let tags = 0
for (const folder of readdirSync(join(root, "packages"))) {
  const dir = join(root, "packages", folder)
  if (!existsSync(join(dir, "package.json")) || !existsSync(join(dir, "src"))) continue
  const { name, version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  const current = parse(version)
  if (current === undefined) {
    problems.push(`packages/${folder}/package.json: version ${version} is not x.y.z`)
    continue
  }
  const group = groupOf(name)
  let bump = "none"
  for (const releases of pending) {
    for (const [released, type] of releases) {
      const inGroup = group.some((pattern) => matches(pattern, released))
      if (inGroup && bumps.indexOf(type) > bumps.indexOf(bump)) bump = type
    }
  }
  const next = raise(current, bump)
  const shown = next.join(".")
  const released = existsSync(join(dir, "CHANGELOG.md"))
  for (const file of sourceFiles(join(dir, "src"))) {
    const lines = readFileSync(file, "utf8").split("\n")
    for (const [i, line] of lines.entries()) {
      for (const [, tag] of line.matchAll(/@since\s+(\S+)/g)) {
        tags++
        const at = `${relative(root, file)}:${i + 1}`
        const since = parse(tag.replace(/\*\/$/, ""))
        if (since === undefined) {
          problems.push(`${at}: @since ${tag} is not a version x.y.z`)
        } else if (compare(since, next) > 0) {
          problems.push(`${at}: @since ${since.join(".")} is later than ${name}'s next ${shown}`)
        } else if (!released && compare(since, next) !== 0) {
          problems.push(
            `${at}: @since ${since.join(".")}: ${name} was never released, so everything in it is new in ${shown}`,
          )
        }
      }
    }
  }
}

for (const line of problems) console.error(`since: ${line}`)
if (problems.length > 0) {
  console.error(`since: ${problems.length} tags to fix (root DECISIONS.md 11)`)
  process.exit(1)
}
console.log(`since: ${tags} @since tags checked`)
