import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { serializeMessage } from "@modelcontextprotocol/client"
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio"
import { MessageReader, type Piece, tooLargeAnswer } from "./bounded.js"
import { makeDrainWait, makeTurnWriter } from "./turnWriter.js"

/** What the transport starts, and its bounds. */
export interface StdioParameters {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>> | undefined
  readonly cwd: string | undefined
  readonly maxMessageBytes: number
  readonly stopGraceMillis: number
  /** Told what the server writes to stderr, from its start. */
  readonly onStderr: (chunk: string) => void
}

/**
 * A client transport over a child process's stdin and stdout, like the SDK's
 * StdioClientTransport, with two differences (DECISIONS.md D1, D2): the server runs in a process
 * group of its own, and stopping it ends the whole group; a message larger than
 * `maxMessageBytes` is skipped, not held, and the request it answers gets an error answer, so one
 * huge answer neither fills memory nor closes the connection.
 */
export class GroupStdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage) => void) | undefined

  private child: ChildProcessWithoutNullStreams | undefined
  private readonly lines: MessageReader
  private write: ((text: string) => boolean) | undefined
  private drained: (() => Promise<void>) | undefined

  constructor(private readonly parameters: StdioParameters) {
    this.lines = new MessageReader(parameters.maxMessageBytes, "line")
  }

  /** The server's id, which is also its process group's id, once started. */
  get pid(): number | undefined {
    return this.child?.pid
  }

  /**
   * The server's stderr, once started. With `pid`, it marks a stdio transport to the SDK's
   * negotiation (D48): a server that does not answer `server/discover` in time is then taken for
   * an older one, where over HTTP it would be an outage.
   */
  get stderr(): NodeJS.ReadableStream | null {
    return this.child?.stderr ?? null
  }

  start(): Promise<void> {
    if (this.child !== undefined) return Promise.reject(new Error("the server was started already"))
    return new Promise((resolve, reject) => {
      const child = spawn(this.parameters.command, [...this.parameters.args], {
        env: { ...getDefaultEnvironment(), ...this.parameters.env },
        cwd: this.parameters.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        // A group of its own, so that stopping it reaches what it started (`sh -c`, `npx`).
        detached: true,
      })
      this.child = child
      this.write = makeTurnWriter(child.stdin)
      this.drained = makeDrainWait(child.stdin)
      child.on("error", (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.on("spawn", () => resolve())
      child.on("close", () => this.onclose?.())
      child.stdin.on("error", (error) => this.onerror?.(error))
      child.stdout.on("error", (error) => this.onerror?.(error))
      // Decoded across chunks: a character split between two reads is not two U+FFFD.
      child.stderr.setEncoding("utf8")
      child.stderr.on("data", (chunk: string) => this.parameters.onStderr(chunk))
      child.stdout.on("data", (chunk: Buffer) => {
        for (const line of this.lines.push(chunk)) this.receive(line)
      })
    })
  }

  private receive(line: Piece): void {
    try {
      if (!line.tooLarge) {
        // The SDK's Protocol checks every message against the JSON-RPC schemas as it dispatches
        // it, and reports one that fits none: checking more than the envelope here would do it
        // twice (D9).
        const message: unknown = JSON.parse(line.bytes.toString("utf8"))
        if (isEnvelope(message)) this.onmessage?.(message)
        else this.onerror?.(new Error("a line that is not a JSON-RPC 2.0 message was left out"))
      } else if (line.id !== undefined) {
        this.onmessage?.(tooLargeAnswer(line.id, this.parameters.maxMessageBytes))
      } else {
        const bound = this.parameters.maxMessageBytes
        this.onerror?.(new Error(`a message larger than ${bound} bytes was left out`))
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
    }
  }

  /** Writes the message; those sent in one turn of the event loop go out together (D32). */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    const { write, drained } = this
    if (stdin === undefined || write === undefined || drained === undefined || !stdin.writable) {
      return Promise.reject(new Error("Not connected"))
    }
    return write(serializeMessage(message)) ? Promise.resolve() : drained()
  }

  /**
   * Stops the server's whole process group: end of input (when `graceful`), then SIGTERM, then
   * SIGKILL, each after `stopGraceMillis` without the group ending; then waits for it to end.
   */
  async stop(graceful: boolean): Promise<void> {
    const child = this.child
    const group = child?.pid
    if (child === undefined || group === undefined) return
    const grace = this.parameters.stopGraceMillis
    child.stdin.end()
    if (graceful && (await groupEnds(group, grace))) return
    signalGroup(group, "SIGTERM")
    if (await groupEnds(group, grace)) return
    signalGroup(group, "SIGKILL")
    await groupEnds(group, grace)
  }

  close(): Promise<void> {
    return this.stop(true)
  }
}

/**
 * Whether a parsed line is a JSON-RPC 2.0 message as far as its envelope goes: an object of
 * `"jsonrpc": "2.0"` with a method or an id. The rest is the Protocol's to check (D9).
 */
const isEnvelope = (value: unknown): value is JSONRPCMessage =>
  typeof value === "object" &&
  value !== null &&
  "jsonrpc" in value &&
  value.jsonrpc === "2.0" &&
  ("method" in value || "id" in value)

const signalGroup = (group: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-group, signal)
  } catch {
    // The group has ended.
  }
}

const hasMembers = (group: number): boolean => {
  try {
    process.kill(-group, 0)
    return true
  } catch {
    return false
  }
}

/** Whether the group ends within `millis`, checked every 20 ms. */
const groupEnds = async (group: number, millis: number): Promise<boolean> => {
  const giveUpAt = Date.now() + millis
  while (hasMembers(group)) {
    if (Date.now() >= giveUpAt) return false
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return true
}
