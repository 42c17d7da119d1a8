import { Json } from "@svir/core"

/** One readable piece of content given as typed parts: text, reasoning or a refusal. */
export interface PartPiece {
  readonly kind: "text" | "reasoning" | "refusal"
  readonly text: string
}

/**
 * D59: `content` as an array of typed parts, the pieces it holds in order, or what could not be
 * read. Mistral's reasoning models send `{"type": "thinking", "thinking": [{"type": "text",
 * "text": …}]}` and `{"type": "text", "text": …}`; others send `reasoning` or `refusal` parts.
 * A part of another type (an image or audio the model made) is not dropped: the answer would
 * look complete without it, so it is what could not be read.
 */
export const readContentParts = (
  parts: ReadonlyArray<unknown>,
): ReadonlyArray<PartPiece> | string => {
  const pieces: Array<PartPiece> = []
  for (const part of parts) {
    if (typeof part === "string") {
      pieces.push({ kind: "text", text: part })
      continue
    }
    if (!Json.isObject(part)) return "a content part that is not an object"
    switch (part.type) {
      case "text": {
        if (typeof part.text !== "string") return "a text part whose text is not a string"
        pieces.push({ kind: "text", text: part.text })
        break
      }
      case "thinking":
      case "reasoning": {
        const text = reasoningText(part[part.type] ?? part.text)
        if (text === undefined) return `a ${part.type} part whose text cannot be read`
        pieces.push({ kind: "reasoning", text })
        break
      }
      case "refusal": {
        if (typeof part.refusal !== "string") return "a refusal part whose refusal is not a string"
        pieces.push({ kind: "refusal", text: part.refusal })
        break
      }
      default:
        return `a content part of type ${JSON.stringify(part.type)}, which this codec does not read`
    }
  }
  return pieces
}

/** A thinking part's text: a string, or text parts of its own (Mistral). */
const reasoningText = (value: unknown): string | undefined => {
  if (typeof value === "string") return value
  if (!Array.isArray(value)) return undefined
  let text = ""
  for (const inner of value) {
    if (typeof inner === "string") text += inner
    else if (Json.isObject(inner) && inner.type === "text" && typeof inner.text === "string") {
      text += inner.text
    } else return undefined
  }
  return text
}

/**
 * D59: the reasoning text of `reasoning_details` (OpenRouter, Snowflake Cortex), read only where
 * the delta or message has no `reasoning` of its own (OpenRouter sends both, the same text):
 * `reasoning.text` parts' `text` and `reasoning.summary` parts' `summary`, joined. An encrypted
 * part holds no text to read.
 */
export const reasoningDetailsText = (details: unknown): string => {
  if (!Array.isArray(details)) return ""
  let text = ""
  for (const detail of details) {
    if (!Json.isObject(detail)) continue
    if (detail.type === "reasoning.text" && typeof detail.text === "string") text += detail.text
    else if (detail.type === "reasoning.summary" && typeof detail.summary === "string") {
      text += detail.summary
    }
  }
  return text
}
