/**
 * The parts a user turn and a tool result can both carry. `Message` exports them with their
 * documentation; they live here so that `Message` (whose tool turn holds a `ToolResult`) and
 * `ToolResult` (whose attachments are parts) do not import each other.
 */

export type ImagePart =
  | { readonly _tag: "Image"; readonly url: string }
  | { readonly _tag: "Image"; readonly data: Uint8Array; readonly mediaType: string }

export interface FilePart {
  readonly _tag: "File"
  readonly name: string
  readonly mediaType: string
  readonly data: string | Uint8Array
}

export interface FileAtPart {
  readonly _tag: "FileAt"
  readonly kind: "TextFile" | "Image"
  readonly path: string
  readonly name: string
  readonly mediaType: string | undefined
  readonly maxBytes: number | undefined
  readonly escapedLength: number | undefined
}
