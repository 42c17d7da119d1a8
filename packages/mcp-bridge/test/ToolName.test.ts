import { assert, describe, it } from "@effect/vitest"
import { Tool } from "@svir/core"
import { Effect } from "effect"
import * as fc from "fast-check"
import { ToolName } from "../src/index.js"

const validName = /^[a-zA-Z0-9_-]{1,64}$/
const hashSuffix = /_[0-9a-f]{8}$/
const prefixes = fc.option(fc.stringMatching(/^[a-zA-Z0-9_-]{1,40}$/), { nil: undefined })

const chars = (text: string) => fc.constantFrom(...Array.from(text))
const latinLetter = chars("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
const combiningMark = fc
  .integer({ min: 0x300, max: 0x36f })
  .map((code) => String.fromCharCode(code))
/** Greek letters, with and without accents, and Cyrillic letters of Russian and Ukrainian. */
const greek = chars("αβγδεζηθικλμνξοπρσςτυφχψωάέήίόύώϊϋΐΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩΆΈΉΊΌΎΏ")
const cyrillic = chars("абвгдеёжзийклмнопрстуфхцчшщъыьэюяіїєґАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЫЭЮЯІЇЄҐ")
const cjk = fc.integer({ min: 0x4e00, max: 0x9fff }).map((code) => String.fromCodePoint(code))
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c))
const emoji = fc.integer({ min: 0x1f600, max: 0x1f64f }).map((code) => String.fromCodePoint(code))
const asciiWord = fc.stringMatching(/^[a-z]{1,8}$/)
const punctuation = chars(" ./:@!?#()[]{}\"'\\")

/** Names mixing every kind of character a server's name may hold, short and long. */
const mixedName = fc
  .array(
    fc.oneof(
      asciiWord,
      fc.string({ unit: greek, minLength: 1, maxLength: 6 }),
      fc.string({ unit: cyrillic, minLength: 1, maxLength: 6 }),
      fc.tuple(latinLetter, combiningMark).map(([letter, mark]) => `${letter}${mark}`),
      fc.string({ unit: cjk, minLength: 1, maxLength: 4 }),
      punctuation,
      loneSurrogate,
      emoji,
      chars("_-"),
    ),
    { maxLength: 30 },
  )
  .map((pieces) => pieces.join(""))

const anyName = fc.oneof(
  mixedName,
  fc.string({ maxLength: 120, unit: "grapheme" }),
  fc.string({ maxLength: 200, unit: "binary" }),
  fc.stringMatching(/^[a-zA-Z0-9_-]{0,80}$/),
)

// Two names whose 32-bit FNV-1a hashes are the same, found by a search of 3 million names; both
// read as "tool" in ASCII, so `offered` gives both the same name.
const hashTwins = ["丢涓磰縩", "裢椳皰偉"] as const

/**
 * Lists of distinct names built to collide: names that read the same in ASCII, names equal to
 * what another name of the list is offered under, names that share their first 64 characters,
 * and the two hash twins.
 */
const collidingNames = fc
  .tuple(
    fc.uniqueArray(anyName, { maxLength: 12 }),
    fc.stringMatching(/^[a-z]{1,70}$/),
    prefixes,
    fc.boolean(),
  )
  .map(([names, stem, prefix, twins]) => {
    const variants = [stem, `${stem}.`, `${stem}é`, `${stem}e`, `${stem}${"x".repeat(64)}`]
    const lookalikes = [...names, ...variants].map((name) => {
      const offered = ToolName.offered(name, prefix)
      return prefix === undefined ? offered : offered.slice(prefix.length + 2)
    })
    const all = [...names, ...variants, ...lookalikes, ...(twins ? hashTwins : [])]
    return { names: [...new Set(all)], prefix }
  })

/** The names with their offered names, as a map from the server's name. */
const offeredBy = (names: ReadonlyArray<string>, prefix: string | undefined) => {
  const offered = ToolName.offeredAll(names, prefix)
  return new Map(names.map((name, i) => [name, offered[i]!]))
}

describe("ToolName.offered", () => {
  it("is always a name servers accept, behind the prefix whole", () =>
    fc.assert(
      fc.property(anyName, prefixes, (name, prefix) => {
        const offered = ToolName.offered(name, prefix)
        assert.match(offered, validName)
        assert.isUndefined(Tool.nameProblem(offered))
        if (prefix !== undefined) assert.isTrue(offered.startsWith(`${prefix}__`))
      }),
    ))

  it("keeps a name that is already valid, behind its prefix", () =>
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9_-]{1,22}$/), prefixes, (name, prefix) => {
        const expected = prefix === undefined ? name : `${prefix}__${name}`
        assert.strictEqual(ToolName.offered(name, prefix), expected)
      }),
    ))

  it("writes Latin letters with diacritics as the letters, then a hash", () =>
    fc.assert(
      fc.property(
        fc.array(fc.tuple(latinLetter, fc.option(combiningMark, { nil: "" })), {
          minLength: 1,
          maxLength: 40,
        }),
        combiningMark,
        (letters, mark) => {
          const name = `${letters.map(([letter, marks]) => `${letter}${marks}`).join("")}${mark}`
          const bare = name.normalize("NFD").replace(/[\u0300-\u036f]/g, "")
          const offered = ToolName.offered(name)
          assert.strictEqual(offered.replace(hashSuffix, ""), bare.slice(0, 55))
          assert.match(offered, hashSuffix)
        },
      ),
    ))

  it("writes Greek and Cyrillic words in ASCII letters", () =>
    fc.assert(
      fc.property(
        fc.string({ unit: fc.oneof(greek, cyrillic), minLength: 1, maxLength: 20 }),
        (word) => {
          fc.pre(/[^ъьЪЬ]/.test(word))
          assert.match(ToolName.offered(word), /^[a-zA-Z]+_[0-9a-f]{8}$/)
        },
      ),
    ))

  it("keeps the ASCII words of a name in a script it cannot write, or says tool", () =>
    fc.assert(
      fc.property(
        fc.array(fc.oneof(asciiWord, fc.string({ unit: cjk, minLength: 1, maxLength: 4 })), {
          minLength: 1,
          maxLength: 12,
        }),
        (pieces) => {
          const name = pieces.join("")
          fc.pre(/[^a-z]/.test(name))
          const words = name.split(/[\u4e00-\u9fff]+/).filter((word) => word !== "")
          const expected = (words.join("_") || "tool").slice(0, 55)
          assert.strictEqual(ToolName.offered(name).replace(hashSuffix, ""), expected)
        },
      ),
    ))

  it("writes names of every script readably", () => {
    const readable = (name: string, prefix?: string) =>
      ToolName.offered(name, prefix).replace(hashSuffix, "")
    assert.strictEqual(ToolName.offered("read.file"), "read_file_2d6f0437")
    assert.strictEqual(readable("read.file", "fs"), "fs__read_file")
    assert.strictEqual(readable("résumé"), "resume")
    assert.strictEqual(readable("Straße"), "Strasse")
    assert.strictEqual(readable("Żółć_Łódź"), "Zolc_Lodz")
    assert.strictEqual(readable("Ærø"), "Aero")
    assert.strictEqual(readable("ｆｕｌｌ"), "full")
    assert.strictEqual(readable("Αθήνα"), "Athina")
    assert.strictEqual(readable("Москва"), "Moskva")
    assert.strictEqual(readable("ЖУК"), "ZhUK")
    assert.strictEqual(readable("Київ"), "Kiyiv")
    assert.strictEqual(readable("get weather!"), "get_weather")
    assert.strictEqual(readable("検索_files"), "files")
    assert.strictEqual(readable("😀 party"), "party")
    assert.strictEqual(readable("名前"), "tool")
    assert.strictEqual(readable(""), "tool")
    assert.strictEqual(ToolName.offered("", "fs"), "fs__")
  })

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
})

describe("ToolName.offeredAll", () => {
  it("gives distinct servers' names distinct valid names, even names built to collide", () =>
    fc.assert(
      fc.property(collidingNames, ({ names, prefix }) => {
        const offered = ToolName.offeredAll(names, prefix)
        assert.strictEqual(offered.length, names.length)
        assert.strictEqual(new Set(offered).size, names.length)
        for (const name of offered) assert.match(name, validName)
      }),
    ))

  it("names each tool as offered does when no two of them collide", () =>
    fc.assert(
      fc.property(fc.uniqueArray(anyName, { maxLength: 20 }), prefixes, (names, prefix) => {
        const alone = names.map((name) => ToolName.offered(name, prefix))
        fc.pre(new Set(alone).size === names.length)
        assert.deepStrictEqual(ToolName.offeredAll(names, prefix), alone)
      }),
    ))

  it("gives the same names whatever the order of the list, listing after listing", () =>
    fc.assert(
      fc.property(
        collidingNames.chain(({ names, prefix }) =>
          fc.tuple(
            fc.constant(names),
            fc.shuffledSubarray(names, { minLength: names.length }),
            fc.constant(prefix),
          ),
        ),
        ([names, shuffled, prefix]) => {
          assert.deepStrictEqual(offeredBy(shuffled, prefix), offeredBy(names, prefix))
          assert.deepStrictEqual(
            ToolName.offeredAll(names, prefix),
            ToolName.offeredAll(names, prefix),
          )
        },
      ),
    ))

  it("leaves a name that is valid as it is to its own tool", () =>
    fc.assert(
      fc.property(anyName, prefixes, (name, prefix) => {
        const offered = ToolName.offered(name, prefix)
        const lookalike = prefix === undefined ? offered : offered.slice(prefix.length + 2)
        fc.pre(lookalike !== name)
        const [forName, forLookalike] = ToolName.offeredAll([name, lookalike], prefix)
        assert.strictEqual(forLookalike, offered)
        assert.notStrictEqual(forName, offered)
        assert.match(forName!, validName)
      }),
    ))

  it("keeps two names apart whose hashes collide", () => {
    const [first, second] = hashTwins
    assert.strictEqual(ToolName.offered(first), ToolName.offered(second))
    const offered = ToolName.offeredAll([second, first])
    assert.strictEqual(offered[1], ToolName.offered(first))
    assert.match(offered[0]!, /^tool_[0-9a-f]{8}$/)
    assert.notStrictEqual(offered[0], offered[1])
  })
})

describe("ToolName.validatePrefix", () => {
  it.effect("accepts 1 to 40 valid characters and rejects the rest with a Config error", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* ToolName.validatePrefix("files-2"), "files-2")
      for (const prefix of ["", "my files", "x".repeat(41), "fs.v2"]) {
        const error = yield* Effect.flip(ToolName.validatePrefix(prefix))
        assert.strictEqual(error.reason._tag, "Config")
      }
    }),
  )
})
