import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as CaseFiles from "@svir/conformance/node"
import { describeCases } from "@svir/conformance/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { OpenAiCodec } from "../src/index.js"
import { feed, optionsFor } from "./support/cases.js"

// Answers of real servers recorded by other projects and providers' documentation, each case
// with its provenance (`from`) and the expectation its source states (test/corpus/README.md).
const cases = new URL("./corpus/cases", import.meta.url)
// A case file in cases/ names its recording in recordings/, beside it.
const root = fileURLToPath(new URL("./corpus", import.meta.url))

describeCases(
  "corpus of real servers' answers",
  (options) => OpenAiCodec.make(options as OpenAiCodec.Options),
  [cases],
  { root },
)

const loaded = Effect.runSync(CaseFiles.CaseFiles.load([cases], { root }))
const runs = Number(process.env.SVIR_FUZZ_RUNS ?? 20)

describe("corpus of real servers' answers, as a whole", () => {
  it("holds at least 150 answers of at least 20 servers, each saying where it comes from", () => {
    assert.isAtLeast(loaded.length, 150)
    const servers = new Set(
      loaded.map(({ case: c }) =>
        "recording" in c && c.recording !== undefined
          ? c.recording.split("/").at(-2)
          : c.name.split("-")[1],
      ),
    )
    assert.isAtLeast(servers.size, 20)
    for (const { case: c } of loaded) {
      assert.match(c.from ?? "", /^(github:\S+\/\S+ \S+@[0-9a-f]{7,40}|https:\/\/)/, c.name)
      assert.isAbove((c.why ?? "").length, 20, c.name)
    }
  })
})

describe("corpus of real servers' answers, each streamed answer cut at random places", () => {
  for (const { case: c, recording } of loaded) {
    if ("request" in c || c.json !== undefined) continue
    it(`${c.name} reads the same however its bytes are cut`, () => {
      const text = recording ?? c.sse ?? c.chunks?.join("") ?? ""
      const bytes = new TextEncoder().encode(text)
      const outcomeOf = (chunks: ReadonlyArray<Uint8Array>) => {
        const { completion, error } = feed(
          OpenAiCodec.decoder(optionsFor(c, c.options?.mode ?? "strict")),
          chunks,
        )
        return { completion, error }
      }
      const whole = outcomeOf([bytes])
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), {
            maxLength: 40,
          }),
          (cuts) => {
            const points = [0, ...[...cuts].sort((a, b) => a - b), bytes.length]
            const chunks = points.slice(1).map((end, i) => bytes.subarray(points[i], end))
            assert.deepStrictEqual(outcomeOf(chunks), whole)
          },
        ),
        { numRuns: runs },
      )
    })
  }
})
