import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

/**
 * The recordings of the Messages wire, shipped with `@svir/conformance` in
 * `cases/anthropic/recordings` (provenance in its README), as the bytes a decoder gets.
 * A `.sse` file is a stream as the API sent it. A vercel/ai `.chunks.txt` file holds one event's
 * data a line; it is framed the way the API frames it (`event: <type>` then `data: <line>` and a
 * blank line) and, as vercel/ai's own tests replay it, with `data:` lines alone and a last
 * `data: [DONE]`.
 */
export const recordingsFolder = join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "conformance",
  "cases",
  "anthropic",
  "recordings",
)

export interface Recording {
  /** The file, below the recordings folder, and the framing for a chunks file. */
  readonly name: string
  readonly bytes: Uint8Array
}

const utf8 = new TextEncoder()

export const read = (path: string): string => readFileSync(join(recordingsFolder, path), "utf8")

/** A vercel/ai chunks file framed as the API frames a stream. */
export const apiFramed = (chunks: string): string =>
  chunks
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join("")

/** A vercel/ai chunks file framed as vercel/ai's tests replay it. */
export const vercelFramed = (chunks: string): string =>
  `${chunks
    .split("\n")
    .map((line) => `data: ${line}\n\n`)
    .join("")}data: [DONE]\n\n`

/** Every streamed recording: each `.sse` file, and each chunks file in both framings. */
export const streams = (): ReadonlyArray<Recording> => {
  const out: Array<Recording> = []
  for (const folder of ["docs", "sdk", "vercel"]) {
    for (const file of readdirSync(join(recordingsFolder, folder)).sort()) {
      const path = `${folder}/${file}`
      if (file.endsWith(".sse")) out.push({ name: path, bytes: utf8.encode(read(path)) })
      if (file.endsWith(".chunks.txt")) {
        out.push({ name: `${path} (API framing)`, bytes: utf8.encode(apiFramed(read(path))) })
        out.push({ name: `${path} (vercel framing)`, bytes: utf8.encode(vercelFramed(read(path))) })
      }
    }
  }
  return out
}

/** Every whole-answer recording (`.json`). */
export const bodies = (): ReadonlyArray<{ readonly name: string; readonly body: string }> => {
  const out: Array<{ readonly name: string; readonly body: string }> = []
  for (const file of readdirSync(join(recordingsFolder, "vercel")).sort()) {
    if (file.endsWith(".json")) out.push({ name: `vercel/${file}`, body: read(`vercel/${file}`) })
  }
  return out
}
