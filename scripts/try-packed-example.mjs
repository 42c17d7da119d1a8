// Helper of try-packed.sh.
//   try-packed-example.mjs README.md
//     prints the first ```ts block of the README that imports no relative path;
//   try-packed-example.mjs --installs NAME example.ts TARBALLS ROOT
//     prints what to install for it, one a line: the tarball of NAME and of every svir package
//     the example imports or they depend on, and every other package it imports at the version
//     installed in the workspace ROOT.
import { readdirSync, readFileSync } from "node:fs"
import { builtinModules } from "node:module"
import { join } from "node:path"

const args = process.argv.slice(2)

if (args[0] !== "--installs") {
  const readme = readFileSync(args[0], "utf8")
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1])
  const standalone = blocks.find((block) => !/from\s+"\.\.?\//.test(block))
  if (standalone === undefined) throw new Error(`${args[0]}: no example without a relative import`)
  process.stdout.write(standalone)
} else {
  const [, name, example, tarballs, root] = args
  const packageOf = (specifier) =>
    specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]
  const imported = [...readFileSync(example, "utf8").matchAll(/from\s+"([^".][^"]*)"/g)]
    .map((match) => packageOf(match[1]))
    .filter((name) => !name.startsWith("node:") && !builtinModules.includes(name))
  const svir = new Set()
  const others = new Set()
  const add = (pkg) => {
    if (!pkg.startsWith("@svir/")) return others.add(pkg)
    if (svir.has(pkg)) return
    svir.add(pkg)
    const manifest = JSON.parse(
      readFileSync(join(root, "packages", pkg.slice("@svir/".length), "package.json"), "utf8"),
    )
    for (const dependency of Object.keys(manifest.dependencies ?? {})) add(dependency)
  }
  for (const pkg of [name, ...imported]) add(pkg)
  const files = readdirSync(tarballs)
  for (const pkg of svir) {
    const prefix = `svir-${pkg.slice("@svir/".length)}-`
    const file = files.find(
      (file) => file.startsWith(prefix) && /^\d/.test(file.slice(prefix.length)),
    )
    console.log(join(tarballs, file))
  }
  for (const pkg of others) {
    const version = JSON.parse(
      readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8"),
    ).version
    console.log(`${pkg}@${version}`)
  }
}
