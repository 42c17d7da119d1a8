import { describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { agreesInPieces, cuts } from "./PartialJson.agree.js"

const runs = Number(process.env.SVIR_FUZZ_RUNS ?? 10_000)

/** Characters that JSON gives a meaning to, and a few it refuses, so that random text often parses. */
const syntax = fc.constantFrom(
  ...'{}[]":,\\ \n\tu0123456789abcdefABCDEFtrunlsE.+-/',
  "\u0000",
  "\u001f",
  "é",
  "\ud83d",
  "😀",
)

/** Random text: JSON's characters, or any code point. */
const randomText = fc.oneof(
  fc.string({ unit: syntax, maxLength: 60 }),
  fc.string({ unit: "binary", maxLength: 30 }),
)

/** JSON with something wrong, somewhere: a character replaced, inserted, or junk after it. */
const brokenJson = fc
  .tuple(
    fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
    fc.nat(),
    fc.string({ unit: syntax, minLength: 1, maxLength: 3 }),
    fc.constantFrom<"replace" | "insert" | "append">("replace", "insert", "append"),
  )
  .map(([text, at, junk, how]) => {
    const cut = at % (text.length + 1)
    if (how === "append") return `${text}${junk}`
    return `${text.slice(0, cut)}${junk}${text.slice(how === "replace" ? cut + junk.length : cut)}`
  })

describe("PartialJson fuzz", () => {
  it("the reader, fed random text in random pieces, gives what parse gives for each prefix", () => {
    fc.assert(fc.property(randomText, cuts, agreesInPieces), { numRuns: runs, seed: 4_242 })
  }, 120_000)

  it("the reader, fed broken JSON in random pieces, gives what parse gives for each prefix", () => {
    fc.assert(fc.property(brokenJson, cuts, agreesInPieces), { numRuns: runs, seed: 2_424 })
  }, 120_000)
})
