import { Text } from "@svir/core"

/**
 * A text cut at `limit` characters, never inside a two-unit character, with a note of how much was
 * left out.
 */
export const cut = (text: string, limit: number): string => {
  if (text.length <= limit) return text
  const end = Text.cutPoint(text, limit)
  return `${text.slice(0, end)}\n…[cut: ${text.length - end} more characters]`
}
