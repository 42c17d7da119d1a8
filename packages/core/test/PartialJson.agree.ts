/**
 * The check that the tests of `PartialJson` share: a text pushed in pieces gives, after each
 * piece, what the old one-call reader gives for the text so far, and so does one `parse` call.
 */
import { assert } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { Json, PartialJson } from "../src/index.js"
import * as Reference from "./PartialJson.reference.js"

/** Where to cut a text: a few offsets, any, or none. */
export const cuts = fc.array(fc.nat(), { maxLength: 12 })

/**
 * Pushes `text` cut at `offsets` (taken modulo its length) and checks each value so far against
 * the old reader on the same prefix; when `changed` is false, the value is as before the push.
 */
export const agreesInPieces = (text: string, offsets: ReadonlyArray<number>): void => {
  const ends = [...new Set(offsets.map((offset) => offset % (text.length + 1)))]
    .sort((a, b) => a - b)
    .concat(text.length)
  const reader = PartialJson.reader()
  let start = 0
  let before: unknown
  for (const end of ends) {
    const shown = reader.push(text.slice(start, end))
    const prefix = text.slice(0, end)
    const expected = Reference.parse(prefix)
    assert.deepStrictEqual(shown, expected, JSON.stringify({ text, end }))
    // A whole text gives what the engine's JSON.parse gives, misread keys and all (core D47).
    const whole = Json.parse(prefix)
    assert.deepStrictEqual(
      PartialJson.parse(prefix),
      Result.isSuccess(whole) ? whole.success : expected,
      JSON.stringify({ prefix }),
    )
    if (!reader.changed) assert.deepStrictEqual(shown, before, JSON.stringify({ text, end }))
    before = expected
    start = end
  }
}

/** Pushes `text` one character at a time: the reader agrees with the old one on every prefix. */
export const agreesOnEveryPrefix = (text: string): void =>
  agreesInPieces(
    text,
    Array.from({ length: text.length }, (_, i) => i),
  )
