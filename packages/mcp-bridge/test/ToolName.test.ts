import { assert, describe, it } from "@effect/vitest"
import { Tool } from "@svir/core"
import { Effect } from "effect"
import * as fc from "fast-check"
import { ToolName } from "../src/index.js"

const validName = /^[a-zA-Z0-9_-]{1,64}$/
const prefixes = fc.option(fc.stringMatching(/^[a-zA-Z0-9_-]{1,40}$/), { nil: undefined })
const anyName = fc.string({ minLength: 1, maxLength: 120, unit: "grapheme" })

describe("ToolName.offered", () => {
  it("is always a name servers accept", () =>
    fc.assert(
      fc.property(anyName, prefixes, (name, prefix) => {
        const offered = ToolName.offered(name, prefix)
        assert.match(offered, validName)
        assert.isUndefined(Tool.nameProblem(offered))
      }),
    ))

  it("is the same name every time", () =>
    fc.assert(
      fc.property(anyName, prefixes, (name, prefix) => {
        assert.strictEqual(ToolName.offered(name, prefix), ToolName.offered(name, prefix))
      }),
    ))

  it("keeps a name that is already valid, behind its prefix", () =>
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9_-]{1,22}$/), prefixes, (name, prefix) => {
        const expected = prefix === undefined ? name : `${prefix}__${name}`
        assert.strictEqual(ToolName.offered(name, prefix), expected)
      }),
    ))

  it("keeps two names apart that differ only in characters it replaces", () =>
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z]{1,30}$/),
        fc.constantFrom(".", "/", " ", ":", "é"),
        fc.constantFrom(".", "/", " ", ":", "é"),
        (stem, a, b) => {
          fc.pre(a !== b)
          assert.notStrictEqual(ToolName.offered(`${stem}${a}x`), ToolName.offered(`${stem}${b}x`))
        },
      ),
    ))

  it("keeps two long names apart that share their first 64 characters", () =>
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z]{64,80}$/),
        fc.stringMatching(/^[a-z]{1,5}$/),
        (stem, tail) => {
          const long = ToolName.offered(`${stem}${tail}`)
          assert.strictEqual(long.length, ToolName.maxLength)
          assert.notStrictEqual(long, ToolName.offered(stem))
        },
      ),
    ))

  it("replaces what servers reject and keeps the readable part", () => {
    assert.match(ToolName.offered("read.file", "fs"), /^fs__read_file_[0-9a-f]{8}$/)
    assert.match(ToolName.offered(""), /^_[0-9a-f]{8}$/)
    assert.strictEqual(ToolName.offered("", "fs"), "fs__")
  })
})

describe("ToolName.validatePrefix", () => {
  it.effect("accepts 1 to 40 valid characters and rejects the rest with a Config error", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* ToolName.validatePrefix("files-2"), "files-2")
      for (const prefix of ["", "my files", "x".repeat(41), "fs.v2"]) {
        const error = yield* Effect.flip(ToolName.validatePrefix(prefix))
        assert.strictEqual(error.kind, "Config")
      }
    }),
  )
})
