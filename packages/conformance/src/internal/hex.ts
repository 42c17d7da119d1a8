/** Whether a text is pairs of hex digits (spaces and line breaks between them allowed). */
export const isHex = (text: string): boolean =>
  /^(?:[0-9a-fA-F]{2})*$/.test(text.replace(/\s+/g, ""))

/** The bytes a hex text writes. */
export const hexBytes = (hex: string): Uint8Array => {
  const digits = hex.replace(/\s+/g, "")
  return Uint8Array.from({ length: digits.length / 2 }, (_, i) =>
    Number.parseInt(digits.slice(2 * i, 2 * i + 2), 16),
  )
}
