import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

/**
 * The recordings of the Responses wire, shipped with `@svir/conformance` in
 * `cases/openai-responses/recordings` (provenance in its README), as the bytes a decoder gets.
 * A `.sse` file is a stream as the API sent it. A vercel/ai `.chunks.txt` file holds one event's
 * data a line; it is framed the way the API frames it (`event: <type>` then `data: <line>` and a
 * blank line) and, as vercel/ai's own tests replay it, with `data:` lines alone and a last
 * `data: [DONE]`. A `.json` file is a whole answer or an error body.
 */
export const recordingsFolder = join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "conformance",
  "cases",
  "openai-responses",
  "recordings",
)

export const folders = ["vercel", "prism"] as const

const utf8 = new TextEncoder()

/** A recording's text, by its path below the recordings folder (`vercel/azure-text.1.chunks.txt`). */
export const read = (path: string): string => readFileSync(join(recordingsFolder, path), "utf8")

/** Every recording's path, sorted. */
export const paths = (): ReadonlyArray<string> =>
  folders.flatMap((folder) =>
    readdirSync(join(recordingsFolder, folder))
      .sort()
      .map((file) => `${folder}/${file}`),
  )

/** The lines of a chunks file that hold an event. */
const lines = (chunks: string): ReadonlyArray<string> =>
  chunks.split("\n").filter((line) => line.trim() !== "")

/** A chunks file framed as the API frames a stream. */
export const apiFramed = (chunks: string): string =>
  lines(chunks)
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join("")

/** A chunks file framed as vercel/ai's tests replay it. */
export const vercelFramed = (chunks: string): string =>
  `${lines(chunks)
    .map((line) => `data: ${line}\n\n`)
    .join("")}data: [DONE]\n\n`

/** The data of every event of a streamed recording, parsed, in order. */
export const events = (path: string): ReadonlyArray<unknown> => {
  const text = read(path)
  if (path.endsWith(".chunks.txt")) return lines(text).map((line) => JSON.parse(line))
  const out: Array<unknown> = []
  for (const line of text.split("\n")) {
    if (line.startsWith("data: ")) out.push(JSON.parse(line.slice("data: ".length)))
  }
  return out
}

/**
 * A chunks file that holds several answers one after the other (vercel/ai keeps an agent loop's
 * steps in one file), cut after each `response.completed`: one chunks text per answer.
 */
export const answers = (chunks: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  let answer: Array<string> = []
  for (const line of lines(chunks)) {
    answer.push(line)
    if ((JSON.parse(line) as { type: string }).type === "response.completed") {
      out.push(answer.join("\n"))
      answer = []
    }
  }
  if (answer.length > 0) out.push(answer.join("\n"))
  return out
}

export interface Recording {
  /** The file, below the recordings folder, and the framing for a chunks file. */
  readonly name: string
  readonly bytes: Uint8Array
}

/** Every streamed recording: each `.sse` file, and each chunks file in both framings. */
export const streams = (): ReadonlyArray<Recording> => {
  const out: Array<Recording> = []
  for (const path of paths()) {
    if (path.endsWith(".sse")) out.push({ name: path, bytes: utf8.encode(read(path)) })
    if (path.endsWith(".chunks.txt")) {
      out.push({ name: `${path} (API framing)`, bytes: utf8.encode(apiFramed(read(path))) })
      out.push({ name: `${path} (vercel framing)`, bytes: utf8.encode(vercelFramed(read(path))) })
    }
  }
  return out
}

/** Every whole-answer recording and error body (`.json`). */
export const bodies = (): ReadonlyArray<{ readonly name: string; readonly body: string }> =>
  paths()
    .filter((path) => path.endsWith(".json"))
    .map((path) => ({ name: path, body: read(path) }))
