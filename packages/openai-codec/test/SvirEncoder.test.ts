import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { describeCases } from "@svir/conformance/vitest"
import { OpenAiCodec } from "../src/index.js"

const folder = join(
  import.meta.dirname,
  "..",
  "..",
  "conformance",
  "cases",
  "openai",
  "svir",
  "encoder",
)

// The Rust svir crate's encoder cases, in our format. The kit encodes each request once, streamed,
// with its attachments in memory; a case whose attachment describes a file on disk
// (`declared_size`, `escaped_len`) is skipped here and run by @svir/client's tests, which write
// the files and read them as the client does.
describeCases(
  "svir encoder cases (@svir/conformance runner)",
  (options) => OpenAiCodec.make(options as OpenAiCodec.Options),
  [folder],
)

interface CaseFile {
  readonly name: string
  readonly from?: string
  readonly why?: string
  readonly departs?: { readonly decision: string; readonly svir: string }
}

const decisions = readFileSync(join(import.meta.dirname, "..", "DECISIONS.md"), "utf8")

describe("svir encoder case files", () => {
  const files = readdirSync(folder).filter((file) => file.endsWith(".json"))
  const cases = files.map(
    (file) => [file, JSON.parse(readFileSync(join(folder, file), "utf8")) as CaseFile] as const,
  )

  it("are the crate's 39, each named for its case and saying why in our words", () => {
    assert.strictEqual(cases.length, 39)
    for (const [file, c] of cases) {
      assert.strictEqual(`${c.name}.json`, file)
      assert.strictEqual(c.from, `svir encoder/${file}`)
      assert.isAbove((c.why ?? "").length, 0, file)
    }
  })

  it("depart only by a decision of this package that exists", () => {
    const departing = cases.filter(([, c]) => c.departs !== undefined)
    assert.deepStrictEqual(
      departing.map(([file]) => file),
      ["attach-file-changed.json", "attach-image-grew.json", "attach-image-shrank.json"],
    )
    for (const [file, c] of departing) {
      const number = /^openai-codec (D\d+)$/.exec(c.departs!.decision)?.[1]
      assert.isDefined(number, file)
      assert.include(decisions, `**${number}. `, file)
      assert.isAbove(c.departs!.svir.length, 0, file)
    }
  })
})
