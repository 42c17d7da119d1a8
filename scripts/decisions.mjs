// The index at the top of every DECISIONS.md: each decision's id, title, status and date.
// `node scripts/decisions.mjs` checks that each index lists the file's decisions, in order, with
// their titles and statuses (a decision is "revised by Dn" when a later title says "(revises
// ... Dm ...)"; "revised <date>" when it has a "Revised:" paragraph); `--write` writes the
// indexes, taking the dates from `git blame` (the first line of a decision, and the last line of
// its revisions). The dates are not checked: a clean clone may have no history.
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const write = process.argv.includes("--write")
const start = "<!-- index: written by scripts/decisions.mjs --write -->"
const end = "<!-- end of index -->"

const files = [
  join(root, "DECISIONS.md"),
  ...readdirSync(join(root, "packages")).map((name) =>
    join(root, "packages", name, "DECISIONS.md"),
  ),
].filter((file) => {
  try {
    readFileSync(file)
    return true
  } catch {
    return false
  }
})

/** The decisions of a file's lines: id, title, first and last line (0-based), revised or not. */
const decisionsOf = (lines) => {
  const found = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    const bold = /^\*\*([A-Z]\d+)\. (.*)$/.exec(line)
    const heading = /^## (\d+)\. (.*)$/.exec(line)
    if (bold === null && heading === null) continue
    let title = (bold ?? heading)[2]
    let last = i
    if (bold !== null) {
      while (!title.includes("**") && last + 1 < lines.length) title += ` ${lines[++last]}`
      title = title.slice(0, title.indexOf("**"))
    }
    found.push({ id: (bold ?? heading)[1], title: title.replace(/\.$/, ""), line: i })
  }
  for (const [k, decision] of found.entries()) {
    decision.end = k + 1 < found.length ? found[k + 1].line - 1 : lines.length - 1
    decision.revisedAt = -1
    for (let i = decision.line + 1; i <= decision.end; i++) {
      if (/^Revised[ :(]/.test(lines[i])) decision.revisedAt = i
    }
  }
  return found
}

/** Who revises whom, by the "(revises ...)" of the titles. */
const revisers = (decisions) => {
  const by = new Map()
  for (const decision of decisions) {
    const revises = /\(revises ([^)]*)\)/.exec(decision.title)
    if (revises === null) continue
    // "(revises D11, D17)"; a decision of another package is named with it and is not this file's.
    for (const [, other, id] of revises[1].matchAll(/(\b[a-z-]+ )?\b([A-Z]?\d+)\b/g)) {
      if (other === undefined) by.set(id, [...(by.get(id) ?? []), decision.id])
    }
  }
  return by
}

/** The date of each line of `content`, as `git blame` gives it against the committed file. */
const blameDates = (file, content) => {
  const scratch = join(tmpdir(), `decisions-${process.pid}.md`)
  writeFileSync(scratch, content)
  try {
    const out = execFileSync(
      "git",
      ["blame", "--line-porcelain", "--contents", scratch, "--", relative(root, file)],
      { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
    )
    const dates = []
    for (const line of out.split("\n")) {
      if (line.startsWith("author-time ")) {
        dates.push(new Date(Number(line.slice(12)) * 1000).toISOString().slice(0, 10))
      }
    }
    return dates
  } catch {
    return []
  } finally {
    rmSync(scratch, { force: true })
  }
}

const today = new Date().toISOString().slice(0, 10)

const statusOf = (decision, by, dates) => {
  const parts = []
  const later = by.get(decision.id)
  if (later !== undefined) parts.push(`revised by ${later.join(", ")}`)
  if (decision.revisedAt !== -1) {
    let date = ""
    for (let i = decision.revisedAt; i <= decision.end; i++) {
      const at = dates[i] ?? today
      if (at > date) date = at
    }
    parts.push(write ? `revised ${date}` : "revised")
  }
  return parts.length === 0 ? "in force" : parts.join("; ")
}

const cell = (text) => text.replaceAll("|", "\\|")

const problems = []
for (const file of files) {
  const text = readFileSync(file, "utf8")
  const hasIndex = text.includes(start)
  const body = hasIndex
    ? text.slice(0, text.indexOf(start)) +
      text.slice(text.indexOf(end) + end.length).replace(/^\n\n?/, "")
    : text
  const lines = body.split("\n")
  const decisions = decisionsOf(lines)
  const by = revisers(decisions)
  const name = relative(root, file)
  if (!write) {
    if (!hasIndex) {
      problems.push(`${name}: no index (node scripts/decisions.mjs --write)`)
      continue
    }
    const index = text.slice(text.indexOf(start), text.indexOf(end))
    const rows = index
      .split("\n")
      .filter((line) => /^\| [A-Z]?\d+ /.test(line))
      .map((line) =>
        line
          .split(/(?<!\\)\|/)
          .slice(1, -1)
          .map((part) => part.trim()),
      )
    const expected = decisions.map((decision) => [
      decision.id,
      cell(decision.title),
      statusOf(decision, by, []),
    ])
    if (rows.length !== expected.length) {
      problems.push(
        `${name}: the index has ${rows.length} decisions, the file ${expected.length} (node scripts/decisions.mjs --write)`,
      )
      continue
    }
    for (const [i, [id, title, status]] of expected.entries()) {
      const [rowId, rowTitle, rowStatus] = rows[i]
      const shownStatus = (rowStatus ?? "").replace(/revised \d{4}-\d{2}-\d{2}/, "revised")
      if (rowId !== id || rowTitle !== title || shownStatus !== status) {
        problems.push(
          `${name}: the index row of ${id} is out of date (node scripts/decisions.mjs --write)`,
        )
        break
      }
    }
    continue
  }
  const lineDates = blameDates(file, body)
  const rows = [
    ["id", "decision", "status", "date"],
    ...decisions.map((decision) => {
      let first = "9999-99-99"
      for (let i = decision.line; i <= decision.end; i++) {
        const at = lineDates[i] ?? today
        if (at < first) first = at
      }
      return [decision.id, cell(decision.title), statusOf(decision, by, lineDates), first]
    }),
  ]
  // Padded as the formatter pads a table, so that `biome check` leaves it as written.
  const widths = [0, 1, 2, 3].map((k) => Math.max(3, ...rows.map((row) => row[k].length)))
  const line = (row) => `| ${row.map((text, k) => text.padEnd(widths[k])).join(" | ")} |`
  const table = [
    start,
    "",
    line(rows[0]),
    line(widths.map((width) => "-".repeat(width))),
    ...rows.slice(1).map(line),
    "",
    end,
  ].join("\n")
  // The index goes before the first decision.
  const firstLine = decisions[0]?.line ?? lines.length
  const out = [...lines.slice(0, firstLine), table, "", ...lines.slice(firstLine)].join("\n")
  writeFileSync(file, out)
}

for (const line of problems) console.error(line)
process.exit(problems.length === 0 ? 0 : 1)
