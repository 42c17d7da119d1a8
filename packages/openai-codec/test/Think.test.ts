import { assert, describe, it } from "@effect/vitest"
import { fc, it as prop } from "@fast-check/vitest"
import { makeThinkSplitter, type ThinkPiece } from "../src/internal/think.js"

const text = (t: string): ThinkPiece => ({ kind: "text", text: t })
const reasoning = (t: string): ThinkPiece => ({ kind: "reasoning", text: t })

/** What each push gave, then what `finish` gave. */
const run = (chunks: ReadonlyArray<string>) => {
  const splitter = makeThinkSplitter()
  const pushes = chunks.map((chunk) => splitter.push(chunk))
  return { pushes, finish: splitter.finish() }
}

/** Adjacent pieces of one kind joined: how a piece is cut is the chunking's business. */
const merged = (pieces: ReadonlyArray<ThinkPiece>): Array<ThinkPiece> => {
  const out: Array<ThinkPiece> = []
  for (const piece of pieces) {
    const last = out.at(-1)
    if (last?.kind === piece.kind)
      out[out.length - 1] = { kind: last.kind, text: last.text + piece.text }
    else out.push(piece)
  }
  return out
}

const allPieces = (chunks: ReadonlyArray<string>) => {
  const { pushes, finish } = run(chunks)
  return [...pushes.flat(), ...finish]
}

const split = (chunks: ReadonlyArray<string>) => merged(allPieces(chunks))

/**
 * A reference splitter over the whole string, by a regular expression: `<think>` opens, the first
 * `</think>` after it (or the end) closes, everything else is text. `inside` says whether the
 * string ends inside reasoning.
 */
const oracle = (content: string) => {
  const pieces: Array<ThinkPiece> = []
  let last = 0
  let inside = false
  for (const match of content.matchAll(/<think>([\s\S]*?)(?:<\/think>|$)/g)) {
    pieces.push(text(content.slice(last, match.index)), reasoning(match[1] ?? ""))
    last = match.index + match[0].length
    inside = !match[0].endsWith("</think>")
  }
  pieces.push(text(content.slice(last)))
  return { pieces: merged(pieces.filter((piece) => piece.text !== "")), inside }
}

/**
 * The units of a string (its code units, or its code points) cut at the given positions, taken
 * modulo their count, and joined back into chunks.
 */
const cutAt = (units: ReadonlyArray<string>, points: ReadonlyArray<number>): Array<string> => {
  const cuts = [...new Set(points.map((p) => p % (units.length + 1)))].sort((a, b) => a - b)
  const chunks: Array<string> = []
  let from = 0
  for (const cut of cuts) {
    chunks.push(units.slice(from, cut).join(""))
    from = cut
  }
  chunks.push(units.slice(from).join(""))
  return chunks
}

/** Any cut, even between the halves of a surrogate pair: the chunks still add up to the whole. */
const codeUnits = (s: string) => s.split("")

// Fragments that put whole markers, their pieces, and characters beyond ASCII next to each other
// often: about half the contents hold reasoning, and half the cuts fall inside a marker.
const fragment = fc.oneof(
  { arbitrary: fc.constantFrom("<think>", "</think>"), weight: 2 },
  { arbitrary: fc.constantFrom("<th", "ink>", "</", "k>", "<", "/", ">", "think"), weight: 2 },
  { arbitrary: fc.constantFrom("a", "b", " ", "\n", "é", "😀"), weight: 3 },
)
const content = fc.oneof(
  {
    arbitrary: fc.array(fragment, { maxLength: 24, size: "medium" }).map((parts) => parts.join("")),
    weight: 4,
  },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }), weight: 1 },
)
const points = fc.array(fc.nat({ max: 200 }), { maxLength: 12 })

const loneSurrogate = /\p{Cs}/u

describe("think splitter", () => {
  it("splits inline markers out of one delta", () => {
    assert.deepStrictEqual(run(["<think>why</think>because"]), {
      pushes: [[reasoning("why"), text("because")]],
      finish: [],
    })
  })

  it("finds a marker cut by a delta boundary", () => {
    assert.deepStrictEqual(run(["a<thi", "nk>b</think>c"]), {
      pushes: [[text("a")], [reasoning("b"), text("c")]],
      finish: [],
    })
  })

  it("gives nothing for a delta that is only a marker or the start of one", () => {
    assert.deepStrictEqual(run(["<thi", "nk>hm</think>Four."]).pushes, [
      [],
      [reasoning("hm"), text("Four.")],
    ])
    assert.deepStrictEqual(run(["<think>hm", "</", "think>", "Four."]).pushes, [
      [reasoning("hm")],
      [],
      [],
      [text("Four.")],
    ])
    // svir's think-visible-tokens: only the deltas with text or reasoning show anything (svir P7).
    assert.deepStrictEqual(run(["<think>", "why", "</think>", "ok"]).pushes, [
      [],
      [reasoning("why")],
      [],
      [text("ok")],
    ])
  })

  it("reads markers sent one character per delta", () => {
    const chunks = [..."<think>", "hm", ..."</think>", "Four."]
    const { pushes, finish } = run(chunks)
    assert.deepStrictEqual(
      pushes.filter((pieces) => pieces.length > 0),
      [[reasoning("hm")], [text("Four.")]],
    )
    assert.deepStrictEqual(pushes[7], [reasoning("hm")])
    assert.deepStrictEqual(finish, [])
  })

  it("lets out what can no longer become a marker", () => {
    assert.deepStrictEqual(run(["<thi", "<"]), {
      pushes: [[], [text("<thi")]],
      finish: [text("<")],
    })
    assert.deepStrictEqual(run(["a<", "b"]).pushes, [[text("a")], [text("<b")]])
    // Only the marker awaited is held back: `</` cannot start `<think>`, nor `<th` `</think>`.
    assert.deepStrictEqual(run(["a</"]).pushes, [[text("a</")]])
    assert.deepStrictEqual(run(["<think>x<th"]).pushes, [[reasoning("x<th")]])
  })

  it("keeps a partial marker left at the end as what it looked like", () => {
    assert.deepStrictEqual(run(["done<thi"]), { pushes: [[text("done")]], finish: [text("<thi")] })
    assert.deepStrictEqual(run(["<think>still thinking</thi"]), {
      pushes: [[reasoning("still thinking")]],
      finish: [reasoning("</thi")],
    })
    assert.deepStrictEqual(run(["<think>unclosed"]).finish, [])
  })

  it("takes a closing marker with no opening one for text (svir D23)", () => {
    assert.deepStrictEqual(split(["the plan</think>Four."]), [text("the plan</think>Four.")])
    assert.deepStrictEqual(split(["</", "think>ok"]), [text("</think>ok")])
  })

  it("takes an opening marker inside reasoning for reasoning, and opens again after a close", () => {
    assert.deepStrictEqual(split(["<think>a<think>b</think>c"]), [
      reasoning("a<think>b"),
      text("c"),
    ])
    assert.deepStrictEqual(split(["<think>a</think>b<think>c</think>d"]), [
      reasoning("a"),
      text("b"),
      reasoning("c"),
      text("d"),
    ])
  })

  it("never gives an empty piece", () => {
    assert.deepStrictEqual(run(["", "<think></think>", ""]), { pushes: [[], [], []], finish: [] })
  })

  it("holds back nothing of a character beyond ASCII next to a marker", () => {
    assert.deepStrictEqual(run(["café<", "think>été</think>!"]).pushes, [
      [text("café")],
      [reasoning("été"), text("!")],
    ])
    assert.deepStrictEqual(run(["😀<th", "ink>😀</", "think>😀"]).pushes, [
      [text("😀")],
      [reasoning("😀")],
      [text("😀")],
    ])
  })

  prop.prop([content, points], { seed: 2301, numRuns: 2_000 })(
    "gives the same text and reasoning however the content is cut",
    (whole, cuts) => {
      assert.deepStrictEqual(split(cutAt(codeUnits(whole), cuts)), split([whole]))
    },
  )

  prop.prop([content, points], { seed: 2302, numRuns: 2_000 })(
    "agrees with a whole-string reference splitter",
    (whole, cuts) => {
      assert.deepStrictEqual(split(cutAt(codeUnits(whole), cuts)), oracle(whole).pieces)
    },
  )

  prop.prop([content, points], { seed: 2303, numRuns: 2_000 })(
    "never gives an empty piece",
    (whole, cuts) => {
      for (const piece of allPieces(cutAt(codeUnits(whole), cuts)))
        assert.notStrictEqual(piece.text, "")
    },
  )

  const noMarkerStart = fc.array(
    fc.oneof(
      fc.constantFrom("think>", "/think>", "k>", "/", ">", "a", "é", "😀", " "),
      fc.string({ unit: "grapheme", maxLength: 8 }).map((s) => s.replaceAll("<", "")),
    ),
    { maxLength: 10 },
  )
  prop.prop([noMarkerStart], { seed: 2304, numRuns: 1_000 })(
    "passes text with no `<` through at once, unchanged",
    (chunks) => {
      const { pushes, finish } = run(chunks)
      assert.deepStrictEqual(
        pushes,
        chunks.map((chunk) => (chunk === "" ? [] : [text(chunk)])),
      )
      assert.deepStrictEqual(finish, [])
    },
  )

  prop.prop([content, points], { seed: 2305, numRuns: 2_000 })(
    "after every push, holds back only a possible start of the marker awaited",
    (whole, cuts) => {
      const splitter = makeThinkSplitter()
      const emitted: Array<ThinkPiece> = []
      let seen = ""
      for (const chunk of cutAt(codeUnits(whole), cuts)) {
        emitted.push(...splitter.push(chunk))
        seen += chunk
        // Some tail of what was seen, a proper prefix of the marker awaited after what comes
        // before it, is held back, and everything before it was given out.
        const holds = (held: number) => {
          const before = oracle(seen.slice(0, seen.length - held))
          const marker = before.inside ? "</think>" : "<think>"
          const tail = seen.slice(seen.length - held)
          const possible = held === 0 || (held < marker.length && marker.startsWith(tail))
          return possible && JSON.stringify(before.pieces) === JSON.stringify(merged(emitted))
        }
        assert.isTrue([0, 1, 2, 3, 4, 5, 6, 7].some(holds), `after ${JSON.stringify(seen)}`)
      }
    },
  )

  prop.prop([content, fc.array(fc.nat({ max: 60 }), { maxLength: 12 })], {
    seed: 2306,
    numRuns: 2_000,
  })("never cuts a surrogate pair when the deltas do not", (whole, cuts) => {
    const chunks = cutAt([...whole], cuts)
    for (const piece of allPieces(chunks))
      assert.isFalse(loneSurrogate.test(piece.text), piece.text)
  })
})
