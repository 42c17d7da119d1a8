import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Codec, Completion, Event } from "@svir/core"
import * as Decoding from "../../../../test/decoding.js"
import type { OpenAiCodec } from "../../src/index.js"

/**
 * Helpers for the property and differential tests; the conformance cases themselves run through
 * `@svir/conformance`. A case as the files write it (format: shared/reference/conformance-format.md).
 */
export interface Case {
  readonly name: string
  readonly why?: string
  readonly sse?: string
  readonly chunks?: ReadonlyArray<string>
  readonly hex?: string
  readonly json?: string | object
  readonly options?: { readonly mode?: "strict" | "lenient"; readonly [key: string]: unknown }
  readonly expect: Expectation
  readonly expect_lenient?: Expectation | "same"
}

export type Expectation =
  | { readonly ok: { readonly [key: string]: unknown } }
  | { readonly error: string }

/** The Chat Completions decoder cases, shipped with `@svir/conformance`. */
export const casesFolder = join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "conformance",
  "cases",
  "openai",
  "decoder",
)

export const loadCases = (): ReadonlyArray<Case> =>
  readdirSync(casesFolder)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => JSON.parse(readFileSync(join(casesFolder, file), "utf8")) as Case)

/** The input bytes of a streamed case, or `undefined` for a whole-response case. */
export const inputBytes = (c: Case): Uint8Array | undefined => {
  if (c.sse !== undefined) return new TextEncoder().encode(c.sse)
  if (c.chunks !== undefined) return new TextEncoder().encode(c.chunks.join(""))
  if (c.hex !== undefined) return Uint8Array.from(Buffer.from(c.hex, "hex"))
  return undefined
}

/** What a run gave: the events, the completion if the answer completed, the error kind if not. */
export interface Outcome {
  readonly events: ReadonlyArray<Event.Event>
  readonly completion: Completion.Completion | undefined
  readonly error: string | undefined
}

const snake = (kind: string): string => kind.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase()

/** Deterministic ids, so that runs at different chunkings can be compared whole. */
export const counterIds = (): (() => string) => {
  let n = 0
  return () => `gen${++n}`
}

export const optionsFor = (c: Case, mode: "strict" | "lenient"): OpenAiCodec.Options => ({
  ...c.options,
  mode,
  makeCallId: counterIds(),
})

/** Feeds chunks to a decoder and finishes it (root `test/decoding.ts`), the error named as cases name it. */
export const feed = (decoder: Codec.StreamDecoder, chunks: Iterable<Uint8Array>): Outcome => {
  const fed = Decoding.feed(decoder, chunks)
  return { ...fed, error: fed.error === undefined ? undefined : snake(fed.error.reason._tag) }
}

/** The modes a case runs in, each with its expectation. */
export const expectations = (
  c: Case,
): ReadonlyArray<readonly ["strict" | "lenient", Expectation]> => {
  const mode = c.options?.mode ?? "strict"
  const runs: Array<readonly ["strict" | "lenient", Expectation]> = [[mode, c.expect]]
  if (c.expect_lenient !== undefined) {
    runs.push(["lenient", c.expect_lenient === "same" ? c.expect : c.expect_lenient])
  }
  return runs
}

/** Cuts the bytes at the given points. */
export const cutAt = (bytes: Uint8Array, points: ReadonlyArray<number>): Array<Uint8Array> => {
  const sorted = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let start = 0
  for (const point of sorted) {
    chunks.push(bytes.subarray(start, point))
    start = point
  }
  chunks.push(bytes.subarray(start))
  return chunks
}

/** The UTF-8 bytes of a text in pieces of `size` bytes, or whole for 0. */
export const inPieces = (text: string, size: number): Array<Uint8Array> => {
  const bytes = new TextEncoder().encode(text)
  if (size === 0) return [bytes]
  const pieces: Array<Uint8Array> = []
  for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size))
  return pieces
}
