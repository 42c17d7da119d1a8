/**
 * A tool of the server's list that is not offered, and why: its schema is refused by the MCP SDK
 * or cannot be compiled, it nests too deep, it has no name or the name of an earlier tool, or it
 * requires task-based execution (DECISIONS.md D20).
 */
export interface SkippedTool {
  /** The server's name of the tool; `undefined` when the server gave no name that is a string. */
  readonly name: string | undefined
  /** Where the tool stands in the server's list, from 0, counted over all pages. */
  readonly index: number
  /** Why it is left out, for example `the MCP SDK refuses it: inputSchema.type: ...`. */
  readonly reason: string
}
