import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"

const src = fileURLToPath(new URL("../src/", import.meta.url))

/** Every module specifier a source file reaches through its static imports and re-exports. */
const reachable = (file: string, seen = new Set<string>()): Set<string> => {
  const text = readFileSync(file, "utf8")
  // Only statements at the start of a line: doc comment examples import other packages.
  for (const [, specifier] of text.matchAll(
    /^(?:import|export)\b[^"']*?from\s+["']([^"']+)["']/gm,
  )) {
    if (specifier === undefined) continue
    if (!specifier.startsWith(".")) {
      seen.add(specifier)
      continue
    }
    const next = join(dirname(file), specifier.replace(/\.js$/, ".ts"))
    if (!seen.has(next)) {
      seen.add(next)
      reachable(next, seen)
    }
  }
  return seen
}

describe("entries", () => {
  it("the main entry never imports vitest, so the kit installs without it", () => {
    const main = [...reachable(join(src, "index.ts"))]
    assert.include(main, "@svir/core")
    assert.isFalse(
      main.some((specifier) => specifier.startsWith("vitest")),
      main.join(", "),
    )
  })

  it("the main entry imports no builtin, so Runner and Case load in a browser or a Worker (#17)", () => {
    const main = [...reachable(join(src, "index.ts"))]
    const builtins = main.filter((specifier) => specifier.startsWith("node:"))
    assert.deepStrictEqual(builtins, [])
    assert.isTrue(
      [...reachable(join(src, "node.ts"))].includes("node:fs"),
      "files are read by the node entry",
    )
  })

  it("the vitest entry is the one that imports vitest", () => {
    assert.include([...reachable(join(src, "vitest.ts"))], "vitest")
  })

  it("nothing imports the Chat Completions codec statically", () => {
    const all = [...reachable(join(src, "index.ts")), ...reachable(join(src, "vitest.ts"))]
    assert.notInclude(all, "@svir/openai-codec")
  })
})
