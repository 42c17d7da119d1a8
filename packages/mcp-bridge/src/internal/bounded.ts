import type { JSONRPCMessage } from "@modelcontextprotocol/client"

/**
 * The JSON-RPC error code of the answer put in place of one larger than the bound on messages.
 * It lies in the range JSON-RPC leaves to implementations.
 */
export const answerTooLargeCode = -32_099

/** The error answer put in place of an answer to request `id` larger than `maxBytes`. */
export const tooLargeAnswer = (id: string | number, maxBytes: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  error: {
    code: answerTooLargeCode,
    message: `the answer was larger than ${maxBytes} bytes, the most this client reads`,
    data: { maxMessageBytes: maxBytes },
  },
})

/**
 * How messages are told apart: one a `line` (stdio), one an `event` ending with an empty line
 * (Server-Sent Events), or the `whole` input as one message (a JSON body).
 */
export type Framing = "line" | "event" | "whole"

/** A message read: its bytes, or, when it was too large, the id of the request it answers. */
export type Piece =
  | { readonly tooLarge: false; readonly bytes: Buffer }
  | { readonly tooLarge: true; readonly id: string | number | undefined }

const newline = 0x0a
const carriageReturn = 0x0d

/**
 * Splits a byte stream into messages of at most `maxBytes` (DECISIONS.md D2). A message that grows
 * past the bound is not kept: the rest of it is only scanned for its `id`, with a few hundred bytes
 * of memory, so that the request it answers can be failed.
 */
export class MessageReader {
  private pending: Array<Buffer> = []
  private pendingBytes = 0
  private skipping: IdScanner | undefined
  private lineHasText = false

  constructor(
    private readonly maxBytes: number,
    private readonly framing: Framing,
  ) {}

  push(chunk: Buffer): Array<Piece> {
    const pieces: Array<Piece> = []
    let start = 0
    while (start < chunk.length) {
      const newlineAt = this.framing === "whole" ? -1 : chunk.indexOf(newline, start)
      const end = newlineAt === -1 ? chunk.length : newlineAt + 1
      const piece = chunk.subarray(start, end)
      start = end
      this.take(piece)
      if (newlineAt === -1) {
        this.lineHasText ||= hasText(piece)
        continue
      }
      const endsMessage = this.framing === "line" || !(this.lineHasText || hasText(piece))
      this.lineHasText = false
      if (endsMessage) pieces.push(this.finish())
    }
    return pieces
  }

  /** The message left when the input ends, if any. */
  end(): Array<Piece> {
    return this.pendingBytes > 0 || this.skipping !== undefined ? [this.finish()] : []
  }

  private take(piece: Buffer): void {
    if (this.skipping !== undefined) {
      this.skipping.push(piece)
      return
    }
    if (this.pendingBytes + piece.length <= this.maxBytes) {
      this.pending.push(piece)
      this.pendingBytes += piece.length
      return
    }
    this.skipping = new IdScanner()
    for (const kept of this.pending) this.skipping.push(kept)
    this.skipping.push(piece)
    this.pending = []
    this.pendingBytes = 0
  }

  private finish(): Piece {
    const skipped = this.skipping
    this.skipping = undefined
    if (skipped !== undefined) return { tooLarge: true, id: skipped.id }
    // A message that came in one chunk, as most do, is a view of it rather than a copy.
    const bytes = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending)
    this.pending = []
    this.pendingBytes = 0
    return { tooLarge: false, bytes }
  }
}

/** Whether a piece of a line holds more than its line ending. */
const hasText = (piece: Buffer): boolean => {
  let length = piece.length
  if (length > 0 && piece[length - 1] === newline) length--
  if (length > 0 && piece[length - 1] === carriageReturn) length--
  return length > 0
}

const quote = 0x22
const backslash = 0x5c
const comma = 0x2c
const openers = new Set([0x7b, 0x5b])
const closers = new Set([0x7d, 0x5d])
const memberLimit = 200

/**
 * Finds the `id` member of a JSON object read in pieces: it keeps the text of the current member
 * of the outermost object, leaving out what nests deeper, up to a few hundred characters. Text
 * before the object (an event's `data:` field name) holds no brace and is passed over.
 */
class IdScanner {
  id: string | number | undefined
  private depth = 0
  private inString = false
  private escaped = false
  private member = ""

  push(bytes: Uint8Array): void {
    for (const byte of bytes) {
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (byte === backslash) this.escaped = true
        else if (byte === quote) this.inString = false
      } else if (byte === quote) {
        this.inString = true
      } else if (openers.has(byte)) {
        this.depth++
        continue
      } else if (closers.has(byte)) {
        if (this.depth === 1) this.endMember()
        this.depth--
        continue
      } else if (byte === comma && this.depth === 1) {
        this.endMember()
        continue
      }
      if (this.depth === 1 && this.member.length < memberLimit) {
        this.member += String.fromCharCode(byte)
      }
    }
  }

  private endMember(): void {
    const match = /^\s*"id"\s*:\s*(.*?)\s*$/s.exec(this.member)
    this.member = ""
    if (match === null || this.id !== undefined) return
    try {
      const id: unknown = JSON.parse(match[1]!)
      if (typeof id === "string" || typeof id === "number") this.id = id
    } catch {
      // Not a JSON-RPC id.
    }
  }
}
