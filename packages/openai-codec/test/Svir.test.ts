import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { describeCases } from "@svir/conformance/vitest"
import { OpenAiCodec } from "../src/index.js"

// The decoder cases of svir, the Rust crate, in our format: each names its Rust case in `from`,
// and a case that keeps another outcome on purpose names the decision that says why in `departs`.
const svirFolder = join(import.meta.dirname, "..", "..", "conformance", "cases", "openai", "svir")
const decoderFolder = join(svirFolder, "decoder")

describeCases(
  "svir's decoder cases",
  (options) => OpenAiCodec.make(options as OpenAiCodec.Options),
  [decoderFolder],
  // The recordings are in the sibling folder `svir/recordings`.
  { root: svirFolder },
)

const packagesFolder = join(import.meta.dirname, "..", "..")

/** Every case below `cases/openai/svir` of `@svir/conformance`, as written. */
const svirCases = (): ReadonlyArray<{ readonly file: string; readonly case: unknown }> =>
  readdirSync(svirFolder, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".json"))
    .sort()
    .flatMap((file) => {
      const json: unknown = JSON.parse(readFileSync(join(svirFolder, file), "utf8"))
      return (Array.isArray(json) ? json : [json]).map((c: unknown) => ({ file, case: c }))
    })

/** The numbers of the decisions in a package's DECISIONS.md (`**D12. ...**`). */
const decisionsOf = (pkg: string): ReadonlySet<string> => {
  const text = readFileSync(join(packagesFolder, pkg, "DECISIONS.md"), "utf8")
  return new Set(Array.from(text.matchAll(/^\*\*(D\d+)\./gm), (match) => match[1]!))
}

describe("svir's cases", () => {
  it("name the Rust case they come from", () => {
    const cases = svirCases().filter(({ file }) => file.startsWith("decoder"))
    assert.isAtLeast(cases.length, 72)
    for (const { file, case: c } of cases) {
      const from = (c as { from?: unknown }).from
      assert.strictEqual(from, `svir ${file}`, file)
    }
  })

  it("depart only by a decision that exists", () => {
    for (const { file, case: c } of svirCases()) {
      const departs = (c as { departs?: { decision?: unknown } }).departs
      if (departs === undefined) continue
      const match = /^([a-z-]+) (D\d+)$/.exec(String(departs.decision))
      assert.isNotNull(match, `${file}: "${String(departs.decision)}" is not "<package> D<n>"`)
      const [, pkg, decision] = match!
      assert.isTrue(
        decisionsOf(pkg!).has(decision!),
        `${file}: ${pkg}'s DECISIONS.md has no ${decision}`,
      )
    }
  })
})
