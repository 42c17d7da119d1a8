/**
 * Files by path (`Message.textFileAt`, `Message.imageAt`) read into the parts a codec can encode.
 * Codecs are pure, so a transport resolves a request's files before it encodes the request. Each
 * file is read once, whole, and the body is built from what was read (openai-codec D43, D44).
 */
import { Message, type Request, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"

/**
 * The most bytes a file may have when its part sets no `maxBytes`: 20 MiB, a bound on memory
 * (openai-codec D43). As text it is some five million tokens, more than any model's context, so
 * no text file that could be sent is refused; a wrong path (a disk image, a log) stays out of
 * memory.
 */
export const defaultMaxBytes = 20 * 1024 * 1024

/**
 * Reads the file at a path. `maxBytes` lets a reader stop after `maxBytes + 1` bytes: enough to
 * tell the file is too large without reading all of it. It may reject with a SvirError of kind
 * Attachment, which is kept; any other rejection becomes one.
 */
export type ReadFile = (path: string, maxBytes: number) => Promise<Uint8Array>

/** The media types of images, by extension. */
const imageTypes: { readonly [extension: string]: string } = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
}

const extensionOf = (path: string): string => {
  const name = path.split(/[\\/]/).at(-1) ?? path
  const dot = name.lastIndexOf(".")
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase()
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

const failure = (part: Message.FileAtPart, why: string, cause?: unknown): SvirError.SvirError =>
  SvirError.make(
    "Attachment",
    `the ${part.kind === "Image" ? "image" : "text file"} at ${part.path} ${why}`,
    cause === undefined ? { attachment: part.path } : { attachment: part.path, cause },
  )

/** The system's code of a failed read (`ENOENT`, `EACCES`), which holds nothing of the file. */
const codeOf = (cause: unknown): string =>
  typeof cause === "object" &&
  cause !== null &&
  "code" in cause &&
  typeof cause.code === "string" &&
  /^E[A-Z]+$/.test(cause.code)
    ? ` (${cause.code})`
    : ""

/** Reads one file and makes the part it stands for, or says why it cannot. */
const resolvePart = (
  part: Message.FileAtPart,
  read: ReadFile,
): Effect.Effect<Message.ImagePart | Message.FilePart, SvirError.SvirError> =>
  Effect.gen(function* () {
    const maxBytes = part.maxBytes ?? defaultMaxBytes
    if (!(Number.isSafeInteger(maxBytes) && maxBytes >= 0)) {
      return yield* failure(part, `has a maxBytes of ${maxBytes}, not a whole number from 0`)
    }
    let mediaType = part.mediaType
    if (part.kind === "Image" && mediaType === undefined) {
      mediaType = imageTypes[extensionOf(part.path)]
      if (mediaType === undefined) {
        return yield* failure(
          part,
          "has no media type: its extension is not png, jpg, jpeg, gif or webp; give mediaType",
        )
      }
    }
    const bytes = yield* Effect.tryPromise({
      try: () => read(part.path, maxBytes),
      catch: (cause) =>
        SvirError.isSvirError(cause) && cause.reason._tag === "Attachment"
          ? cause
          : failure(part, `could not be read${codeOf(cause)}`, cause),
    })
    if (bytes.length > maxBytes) {
      return yield* failure(part, `is larger than its limit of ${maxBytes} bytes (maxBytes)`)
    }
    if (part.kind === "Image") return Message.image(bytes, mediaType!)
    const text = yield* Effect.try({
      try: () => strictUtf8.decode(bytes),
      catch: () => failure(part, "is not UTF-8 text"),
    })
    if (part.escapedLength !== undefined) {
      const measured = Message.escapedLength(text)
      if (measured !== part.escapedLength) {
        return yield* failure(
          part,
          `is ${measured} bytes once escaped into a JSON string, not the ${part.escapedLength} declared (escapedLength)`,
        )
      }
    }
    return Message.file(part.name, mediaType ?? "text/plain", text)
  })

/** A request with other messages and every other field the same. */
const withMessages = (
  request: Request.Request,
  messages: ReadonlyArray<Message.Message>,
): Request.Request =>
  Object.assign(Object.create(Object.getPrototypeOf(request)), request, { messages })

/**
 * The request with every file by path read into an in-memory part: a text file into a `File`
 * part with its text, an image into an `Image` part with its bytes. Files are read one at a time,
 * in the order of the request. A request with no file by path is returned as it is. Every failure
 * is an Attachment error whose `attachment` is the path; its message names the file and never
 * holds its content: a file that cannot be read, larger than its `maxBytes` (20 MiB by default),
 * an image whose media type the extension does not give, a text file that is not UTF-8 or whose
 * escaped length is not the one declared.
 */
export const resolveAttachments = (
  request: Request.Request,
  read: ReadFile,
): Effect.Effect<Request.Request, SvirError.SvirError> =>
  request.messages.some(hasFiles) ? resolveFiles(request, read) : Effect.succeed(request)

const hasFiles = (message: Message.Message): boolean =>
  message._tag === "User" && message.parts.some((part) => part._tag === "FileAt")

const resolveFiles = (
  request: Request.Request,
  read: ReadFile,
): Effect.Effect<Request.Request, SvirError.SvirError> =>
  Effect.gen(function* () {
    const messages: Array<Message.Message> = []
    for (const message of request.messages) {
      if (!hasFiles(message) || message._tag !== "User") {
        messages.push(message)
        continue
      }
      const parts: Array<Message.Part> = []
      for (const part of message.parts) {
        parts.push(part._tag === "FileAt" ? yield* resolvePart(part, read) : part)
      }
      messages.push(Message.user(parts))
    }
    return withMessages(request, messages)
  })

/** Held in a variable so that bundlers for browsers leave the import alone. */
const fileSystemModule = "node:fs/promises"

/** The little of `node:fs/promises` read here, written out so the shipped types need no Node. */
interface FileSystem {
  readonly stat: (path: string) => Promise<FileStat>
  readonly open: (path: string, flags: number) => Promise<FileHandle>
  /** Absent from old runtimes, and `O_NONBLOCK` is absent on Windows, where no FIFO blocks an open. */
  readonly constants?: { readonly O_RDONLY?: number; readonly O_NONBLOCK?: number } | undefined
}

interface FileStat {
  readonly size: number
  readonly dev: number
  readonly ino: number
  readonly isFile: () => boolean
  readonly isDirectory: () => boolean
  readonly isFIFO: () => boolean
  readonly isSocket: () => boolean
  readonly isCharacterDevice: () => boolean
  readonly isBlockDevice: () => boolean
}

interface FileHandle {
  readonly stat: () => Promise<FileStat>
  readonly read: (
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ) => Promise<{ readonly bytesRead: number }>
  readonly close: () => Promise<void>
}

const noFileSystem = (path: string, cause: unknown): SvirError.SvirError =>
  SvirError.make(
    "Attachment",
    `the file at ${path} cannot be read: reading files needs a runtime with a file system (${fileSystemModule})`,
    { attachment: path, cause },
  )

const kindOf = (stat: FileStat): string =>
  stat.isDirectory()
    ? "a folder"
    : stat.isFIFO()
      ? "a FIFO"
      : stat.isSocket()
        ? "a socket"
        : stat.isCharacterDevice()
          ? "a character device"
          : stat.isBlockDevice()
            ? "a block device"
            : "something else"

const notRegular = (path: string, stat: FileStat): SvirError.SvirError =>
  SvirError.make(
    "Attachment",
    `the file at ${path} is ${kindOf(stat)}, not a regular file: only regular files are read`,
    { attachment: path },
  )

/**
 * Reads a file with `node:fs/promises` (Node, Bun, Deno), imported when first needed. Only a
 * regular file is read, or a symbolic link to one, and at most `maxBytes + 1` bytes of it. On a
 * runtime without a file system it rejects with an Attachment error that says so.
 *
 * Anything else (a FIFO, a socket, a device such as `/dev/zero`, a folder) is refused with an
 * Attachment error before it is opened: opening a FIFO waits for a writer in a thread of libuv's
 * pool, and four such waits stop every `fs` call, DNS lookup and async zlib or crypto call of the
 * process. The open is non-blocking, and the opened file must be the regular file that was
 * checked, so a path swapped for a FIFO in between cannot block either.
 */
export const readFromDisk: ReadFile = async (path, maxBytes) => {
  let fs: FileSystem
  try {
    fs = (await import(/* @vite-ignore */ fileSystemModule)) as FileSystem
  } catch (cause) {
    throw noFileSystem(path, cause)
  }
  const checked = await fs.stat(path)
  if (!checked.isFile()) throw notRegular(path, checked)
  const handle = await fs.open(
    path,
    (fs.constants?.O_RDONLY ?? 0) | (fs.constants?.O_NONBLOCK ?? 0),
  )
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) throw notRegular(path, stat)
    if (stat.dev !== checked.dev || stat.ino !== checked.ino) {
      throw SvirError.make("Attachment", `the file at ${path} was replaced while it was opened`, {
        attachment: path,
      })
    }
    // Read to the end, whatever the size said: the file may have grown since.
    const limit = maxBytes + 1
    let bytes = new Uint8Array(Math.min(limit, stat.size + 1))
    let filled = 0
    while (filled < limit) {
      if (filled === bytes.length) {
        const larger = new Uint8Array(Math.min(limit, bytes.length * 2))
        larger.set(bytes)
        bytes = larger
      }
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    return bytes.subarray(0, filled)
  } finally {
    await handle.close()
  }
}
