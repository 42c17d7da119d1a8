/**
 * Every example compiles, and every output it claims is what it prints (DECISIONS.md 2).
 *
 * Reads each `@example` of a doc comment in packages/*\/src and each ```ts block of a package
 * README and of the root README, writes each as a module under `.examples/` (not kept in git),
 * type-checks them all against the packages' sources, then runs those that claim an output: a
 * one-line statement followed by `// <value>` claims that the statement's value equals `<value>`,
 * itself written as code (`Json.isObject([1]) // false`; for `console.log(x) // 3`, the value of
 * `x`). A claim runs in the folder of the package it documents.
 *
 * A README block with no `import` continues the block before it. A relative import is read from
 * the file the example is in, or, in a README, from the folder its `<!-- examples-base: path -->`
 * line names.
 *
 * Run by `npm run check:examples` (tsx with the `@svir/source` condition).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { pathToFileURL } from "node:url"
import { inspect, isDeepStrictEqual } from "node:util"
import ts from "typescript"

const root = join(import.meta.dirname, "..")
const out = join(root, ".examples")

interface Example {
  /** Where it was read, as `path:line` of its first code line. */
  readonly from: string
  readonly file: string
  readonly line: number
  /** The folder it runs in: its package's, or the root's for the root README. */
  readonly cwd: string
  /** The folder its relative imports are read from. */
  readonly base: string
  /** The blocks it continues, checked with it. */
  readonly before: string
  readonly code: string
}

/** The ```ts blocks of a Markdown file. */
const fromMarkdown = (file: string, cwd: string): Array<Example> => {
  const text = readFileSync(file, "utf8")
  const named = /^<!-- examples-base: (.+) -->$/m.exec(text)?.[1]
  const base = named === undefined ? dirname(file) : join(dirname(file), named)
  const lines = text.split("\n")
  const examples: Array<Example> = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== "```ts") continue
    const start = i + 1
    let end = start
    while (end < lines.length && lines[end]?.trim() !== "```") end++
    const code = lines.slice(start, end)
    const previous = examples.at(-1)
    const continues = previous !== undefined && !code.some((line) => /^import\s/.test(line))
    const before = continues ? `${previous.before}${previous.code}\n` : ""
    examples.push(example(file, start, cwd, base, before, code))
    i = end
  }
  return examples
}

/** The ```ts blocks that follow an `@example` tag in the doc comments of a source file. */
const fromDocComments = (file: string, cwd: string): Array<Example> => {
  const lines = readFileSync(file, "utf8").split("\n")
  const examples: Array<Example> = []
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\* @example\s*$/.test(lines[i] ?? "")) continue
    if (!/^\s*\* ```ts\s*$/.test(lines[i + 1] ?? "")) {
      throw new Error(`${relative(root, file)}:${i + 1}: an @example is a \`\`\`ts block`)
    }
    const start = i + 2
    let end = start
    while (end < lines.length && !/^\s*\* ```\s*$/.test(lines[end] ?? "")) end++
    const code = lines.slice(start, end).map((line) => line.replace(/^\s*\*( |$)/, ""))
    examples.push(example(file, start, cwd, dirname(file), "", code))
    i = end
  }
  return examples
}

const example = (
  file: string,
  start: number,
  cwd: string,
  base: string,
  before: string,
  code: ReadonlyArray<string>,
): Example => ({
  from: `${relative(root, file)}:${start + 1}`,
  file,
  line: start,
  cwd,
  base,
  before,
  code: code.join("\n"),
})

const sourceFiles = (folder: string): Array<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(entry.parentPath, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

const examples: Array<Example> = fromMarkdown(join(root, "README.md"), root)
for (const name of readdirSync(join(root, "packages")).sort()) {
  const folder = join(root, "packages", name)
  examples.push(...fromMarkdown(join(folder, "README.md"), folder))
  for (const file of sourceFiles(join(folder, "src")).sort()) {
    examples.push(...fromDocComments(file, folder))
  }
}

/** A claim: the statement `[start, end)` of an example should be `expected`. */
interface Claim {
  readonly start: number
  readonly end: number
  readonly expected: string
  readonly line: number
}

const problems: Array<string> = []

const claimsOf = (item: Example): Array<Claim> => {
  const source = ts.createSourceFile("example.ts", item.code, ts.ScriptTarget.ES2022, true)
  const claims: Array<Claim> = []
  for (const statement of source.statements) {
    if (!ts.isExpressionStatement(statement)) continue
    const comment = ts.getTrailingCommentRanges(item.code, statement.end)?.[0]
    if (comment === undefined || comment.kind !== ts.SyntaxKind.SingleLineCommentTrivia) continue
    const line = source.getLineAndCharacterOfPosition(statement.getStart()).line
    if (source.getLineAndCharacterOfPosition(statement.end).line !== line) continue
    const expected = item.code.slice(comment.pos + 2, comment.end).trim()
    // `console.log(x) // 3` claims what it prints.
    const printed =
      ts.isCallExpression(statement.expression) &&
      statement.expression.expression.getText() === "console.log" &&
      statement.expression.arguments.length === 1
        ? statement.expression.arguments[0]!
        : statement.expression
    const parsed = ts.createSourceFile("claim.ts", `(${expected})`, ts.ScriptTarget.ES2022)
    const diagnostics = (parsed as unknown as { parseDiagnostics: ReadonlyArray<unknown> })
      .parseDiagnostics
    if (diagnostics.length > 0) {
      problems.push(
        `${relative(root, item.file)}:${item.line + line + 1}: \`// ${expected}\` is not a value; ` +
          "a comment after a statement claims its value, so put words on a line of their own",
      )
      continue
    }
    claims.push({ start: printed.getStart(), end: printed.end, expected, line })
  }
  return claims
}

/** The example's code with its relative imports read from its base folder, written at `path`. */
const rebase = (item: Example, path: string): string =>
  item.code.replace(
    /(from\s+|import\(\s*)"(\.\.?\/[^"]+)"/g,
    (_, head: string, specifier: string) => {
      const target = relative(dirname(path), join(item.base, specifier)).replace(/\\/g, "/")
      return `${head}"${target.startsWith(".") ? target : `./${target}`}"`
    },
  )

rmSync(out, { recursive: true, force: true })
const written = new Map<string, Example>()
const runnable: Array<{ readonly item: Example; readonly path: string }> = []
for (const item of examples) {
  const base = relative(root, item.file)
    .replace(/[\\/]/g, "_")
    .replace(/\.(md|ts)$/, "")
  const name = `${base}_${item.line + 1}.ts`
  const path = join(out, "check", name)
  // Each example is a module of its own, so that two may use the same names.
  const own = rebase(item, path)
  const code = /^\s*(import|export)\s/m.test(own) ? own : `${own}\nexport {}`
  const before = rebase({ ...item, code: item.before }, path)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${before}${code}\n`)
  written.set(path, item)
  const claims = claimsOf({ ...item, code })
  if (claims.length === 0) continue
  let run = code
  for (const claim of claims.toReversed()) {
    const actual = run.slice(claim.start, claim.end).replace(/;\s*$/, "")
    const where = `${relative(root, item.file)}:${item.line + claim.line + 1}`
    const site = JSON.stringify({ where, actual, expected: claim.expected })
    run = `${run.slice(0, claim.start)}globalThis.svirClaim(${actual}, (${claim.expected}), ${site})${run.slice(claim.end)}`
  }
  const runPath = join(out, "run", name)
  mkdirSync(dirname(runPath), { recursive: true })
  writeFileSync(runPath, `${before}${run}\n`)
  runnable.push({ item, path: runPath })
}

writeFileSync(
  join(out, "tsconfig.json"),
  JSON.stringify({
    extends: "../tsconfig.base.json",
    compilerOptions: {
      noEmit: true,
      declaration: false,
      declarationMap: false,
      noUnusedLocals: false,
      noUnusedParameters: false,
    },
    include: ["check"],
  }),
)

// Type-check every example against the packages' sources (the `@svir/source` condition).
const config = ts.getParsedCommandLineOfConfigFile(join(out, "tsconfig.json"), undefined, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
    throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
  },
})
if (config === undefined) throw new Error("no tsconfig for the examples")
const program = ts.createProgram(config.fileNames, config.options)
for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")
  const file = diagnostic.file
  const item = file === undefined ? undefined : written.get(file.fileName)
  if (file === undefined || item === undefined) {
    problems.push(file === undefined ? message : `${relative(root, file.fileName)}: ${message}`)
    continue
  }
  const line = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line
  const own = line - item.before.split("\n").length + 1
  // A problem in the blocks it continues is reported for those blocks.
  if (own >= 0) problems.push(`${relative(root, item.file)}:${item.line + own + 1}: ${message}`)
}

// Run the examples that claim outputs, each in its package's folder.
let claimed = 0
const globals = globalThis as { svirClaim?: (actual: unknown, expected: unknown, at: Site) => void }
interface Site {
  readonly where: string
  readonly actual: string
  readonly expected: string
}
globals.svirClaim = (actual, expected, site) => {
  claimed++
  if (isDeepStrictEqual(actual, expected)) return
  problems.push(
    `${site.where}: ${site.actual} is ${inspect(actual, { depth: 6, breakLength: Infinity })}, ` +
      `the example says ${site.expected}`,
  )
}
if (problems.length === 0) {
  // What an example prints besides its claims is its own business, not this check's output.
  const { log, info } = console
  console.log = console.info = () => {}
  for (const { item, path } of runnable) {
    process.chdir(item.cwd)
    try {
      await import(pathToFileURL(path).href)
    } catch (cause) {
      problems.push(`${item.from}: the example failed: ${String(cause)}`)
    }
  }
  Object.assign(console, { log, info })
  process.chdir(root)
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`✖ ${problem}`)
  process.exitCode = 1
} else {
  console.log(
    `examples: ${examples.length} compile, ${claimed} claimed outputs hold (${runnable.length} run)`,
  )
}
