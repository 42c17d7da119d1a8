/**
 * The turns of a conversation and the parts a user turn is made of.
 *
 * @since 0.2.0
 * @module
 */
import * as Result from "effect/Result"
import type * as Completion from "./Completion.js"
import type * as Parts from "./internal/parts.js"
import * as SvirError from "./SvirError.js"
import * as ToolCall from "./ToolCall.js"
import type * as ToolResult from "./ToolResult.js"

/**
 * A piece of text.
 *
 * @since 0.2.0
 * @category models
 */
export interface TextPart {
  readonly _tag: "Text"
  readonly text: string
}

/**
 * An image, by URL or as bytes with their media type.
 *
 * @since 0.2.0
 * @category models
 */
export type ImagePart = Parts.ImagePart

/**
 * A file: its name, media type and contents (text, or bytes). Which files a wire can carry is the
 * codec's to say; one it cannot carry is an Unsupported error, never dropped.
 *
 * @since 0.2.0
 * @category models
 */
export type FilePart = Parts.FilePart

/**
 * A file on disk, recorded by its path: a text file sent inside the message, or an image. Making
 * it does no I/O, and no codec reads it (codecs are pure): a transport that can read files turns it
 * into a {@link FilePart} or an {@link ImagePart} before encoding (`@svir/client` does), and a
 * codec given one that was not read fails with Unsupported, naming the path. The path must name a
 * regular file, or a symbolic link to one: `@svir/client` refuses a FIFO, a socket, a device or a
 * folder with an Attachment error, without opening it.
 *
 * - `name`: the name the model sees for a text file (default: the last segment of the path).
 * - `mediaType`: for an image, its type (default: from the extension: png, jpg or jpeg, gif, webp);
 *   for a text file, the type it is given once read (default `text/plain`).
 * - `maxBytes`: the most bytes the file may have when read (`@svir/client`'s default: 20 MiB).
 * - `escapedLength`: a text file only: its length in UTF-8 bytes once escaped into a JSON string,
 *   when the caller measured it earlier. The file read must have exactly that length, or the read
 *   fails with an Attachment error.
 *
 * @since 0.2.0
 * @category models
 */
export type FileAtPart = Parts.FileAtPart

/**
 * What a user turn is made of.
 *
 * @since 0.2.0
 * @category models
 */
export type Part = TextPart | ImagePart | FilePart | FileAtPart

/**
 * A user turn.
 *
 * @since 0.2.0
 * @category models
 */
export interface User {
  readonly _tag: "User"
  readonly parts: ReadonlyArray<Part>
}

/**
 * An assistant turn: its text, its reasoning (all of it, and by source), and the calls it made
 * with their ids.
 *
 * @since 0.2.0
 * @category models
 */
export interface Assistant {
  readonly _tag: "Assistant"
  readonly text: string
  readonly reasoning: string
  readonly reasoningBySource: ReadonlyArray<Completion.Reasoning>
  readonly calls: ReadonlyArray<ToolCall.ToolCall>
}

/**
 * The answer to one call of the assistant turn before it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Tool {
  readonly _tag: "Tool"
  readonly result: ToolResult.ToolResult
}

/**
 * A turn of the conversation. The system prompt is the request's own field.
 *
 * @since 0.2.0
 * @category models
 */
export type Message = User | Assistant | Tool

/**
 * A text part.
 *
 * @since 0.2.0
 * @category constructors
 */
export const text = (text: string): TextPart => ({ _tag: "Text", text })

/**
 * An image by URL (`https:` or `data:`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const imageUrl = (url: string): ImagePart => ({ _tag: "Image", url })

/**
 * An image from its bytes.
 *
 * @example
 * ```ts
 * import { Message } from "@svir/core"
 *
 * const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47])
 * Message.image(png, "image/png")
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const image = (data: Uint8Array, mediaType: string): ImagePart => ({
  _tag: "Image",
  data,
  mediaType,
})

/**
 * A file. A text file is given as a string.
 *
 * @example
 * ```ts
 * import { Message } from "@svir/core"
 *
 * Message.file("notes.md", "text/markdown", "# Notes\n")
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const file = (name: string, mediaType: string, data: string | Uint8Array): FilePart => ({
  _tag: "File",
  name,
  mediaType,
  data,
})

/**
 * Options of {@link textFileAt}: see {@link FileAtPart}.
 *
 * @since 0.2.0
 * @category models
 */
export interface TextFileAtOptions {
  readonly name?: string | undefined
  readonly mediaType?: string | undefined
  readonly maxBytes?: number | undefined
  readonly escapedLength?: number | undefined
}

/**
 * Options of {@link imageAt}: see {@link FileAtPart}.
 *
 * @since 0.2.0
 * @category models
 */
export interface ImageAtOptions {
  readonly name?: string | undefined
  readonly mediaType?: string | undefined
  readonly maxBytes?: number | undefined
}

/** The last segment of a path, with either separator. */
const baseName = (path: string): string => {
  const segments = path.split(/[\\/]/).filter((segment) => segment !== "")
  return segments.at(-1) ?? path
}

/**
 * A text file on disk, sent inside the message as text that names it. Records the path and reads
 * nothing: `@svir/client` reads it when the request is sent (see {@link FileAtPart}).
 *
 * @example
 * ```ts
 * import { Message, Request } from "@svir/core"
 *
 * Request.make("gpt-4o-mini").pipe(
 *   Request.user([Message.textFileAt("./notes/meeting.md"), Message.text("Summarize.")]),
 * )
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const textFileAt = (path: string, options?: TextFileAtOptions): FileAtPart => ({
  _tag: "FileAt",
  kind: "TextFile",
  path,
  name: options?.name ?? baseName(path),
  mediaType: options?.mediaType,
  maxBytes: options?.maxBytes,
  escapedLength: options?.escapedLength,
})

/**
 * An image on disk. Records the path and reads nothing: `@svir/client` reads it when the request
 * is sent, with the media type from the extension unless `mediaType` gives it.
 *
 * @example
 * ```ts
 * import { Message } from "@svir/core"
 *
 * Message.imageAt("./photos/receipt.jpg", { maxBytes: 5 * 1024 * 1024 })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const imageAt = (path: string, options?: ImageAtOptions): FileAtPart => ({
  _tag: "FileAt",
  kind: "Image",
  path,
  name: options?.name ?? baseName(path),
  mediaType: options?.mediaType,
  maxBytes: options?.maxBytes,
  escapedLength: undefined,
})

/**
 * The length of a text in UTF-8 bytes once escaped into a JSON string (without the quotes), as
 * `JSON.stringify` escapes it: what a text file's `escapedLength` declares (see
 * {@link FileAtPart}). An application that keeps files can measure it once, as a file arrives.
 *
 * @example
 * ```ts
 * import { Message } from "@svir/core"
 *
 * Message.escapedLength('say "hi"\n') // 12
 * ```
 *
 * @since 0.2.0
 * @category utils
 */
export const escapedLength = (text: string): number => {
  const escaped = JSON.stringify(text)
  let bytes = -2
  for (let i = 0; i < escaped.length; i++) {
    const code = escaped.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff) {
      // JSON.stringify escapes a lone surrogate, so a high one here starts a pair: 4 bytes.
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/**
 * A user turn from text or parts.
 *
 * @since 0.2.0
 * @category constructors
 */
export const user = (content: string | ReadonlyArray<Part>): User => ({
  _tag: "User",
  parts: typeof content === "string" ? [text(content)] : content,
})

/**
 * The assistant turn of a completion, with its calls and their ids.
 *
 * @since 0.2.0
 * @category constructors
 */
export const assistant = (completion: Completion.Completion): Assistant => ({
  _tag: "Assistant",
  text: completion.text,
  reasoning: completion.reasoning,
  reasoningBySource: completion.reasoningBySource,
  calls: completion.calls,
})

/**
 * The message that carries one result.
 *
 * @since 0.2.0
 * @category constructors
 */
export const toolResult = (result: ToolResult.ToolResult): Tool => ({ _tag: "Tool", result })

/**
 * The results that answer the calls of the assistant turn at `index`: the `Tool` messages right
 * after it, put in the order of its calls (D45), and the index of the first message after them.
 * Each call takes the first result not yet taken with its id, so calls that share an id (Kimi,
 * Gemini) are answered in order. A call with no result, or a result that answers no call, is
 * Unsupported: no wire takes either. Every codec sends a turn's results this way.
 *
 * @example
 * ```ts
 * import { Completion, Message, ToolCall, ToolResult } from "@svir/core"
 *
 * const turn = Message.assistant(
 *   Completion.make({
 *     calls: [ToolCall.make("a", "now"), ToolCall.make("b", "now")],
 *     finish: "tool_calls",
 *   }),
 * )
 * const messages = [
 *   turn,
 *   Message.toolResult(ToolResult.make("b", "later")),
 *   Message.toolResult(ToolResult.make("a", "now")),
 * ]
 * const answers = Message.answersAt(messages, 0)
 * // Result.succeed({ results: [the result of "a", the result of "b"], next: 3 })
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const answersAt = (
  messages: ReadonlyArray<Message>,
  index: number,
): Result.Result<
  { readonly results: ReadonlyArray<ToolResult.ToolResult>; readonly next: number },
  SvirError.SvirError
> => {
  const turn = messages[index]
  const calls = turn?._tag === "Assistant" ? turn.calls : []
  const given: Array<ToolResult.ToolResult> = []
  let next = index + 1
  for (let message = messages[next]; message?._tag === "Tool"; message = messages[++next]) {
    given.push(message.result)
  }
  const taken = new Array<boolean>(given.length).fill(false)
  const results: Array<ToolResult.ToolResult> = []
  for (const call of calls) {
    const found = given.findIndex((result, j) => !taken[j] && result.callId === call.id)
    if (found === -1) {
      return unsupported(
        `call ${call.id} (${ToolCall.shownName(call.name)}) has no result after the assistant turn that made it; every call needs one`,
      )
    }
    taken[found] = true
    results.push(given[found]!)
  }
  const extra = taken.indexOf(false)
  if (extra !== -1) {
    return unsupported(
      `the result for call ${given[extra]!.callId} answers no call of the assistant turn before it`,
    )
  }
  return Result.succeed({ results, next })
}

const unsupported = (message: string): Result.Result<never, SvirError.SvirError> =>
  Result.fail(SvirError.make("Unsupported", message))
