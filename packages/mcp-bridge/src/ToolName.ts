/**
 * The names a bridged tool is offered under, and the way back to the server's own names.
 *
 * @since 0.2.0
 * @module
 */

import { SvirError } from "@svir/core"
import * as Effect from "effect/Effect"

const validName = /^[a-zA-Z0-9_-]{1,64}$/
const validPrefix = /^[a-zA-Z0-9_-]{1,40}$/
const nameCharacter = /^[a-zA-Z0-9_-]$/
const combiningMark = /^\p{M}$/u
const combiningMarks = /\p{M}/gu

/**
 * The longest name a model is offered.
 *
 * @since 0.2.0
 * @category models
 */
export const maxLength = 64

/**
 * What separates a server's prefix from its tool's name: `files__read_file`.
 *
 * @since 0.2.0
 * @category models
 */
export const separator = "__"

/**
 * The name a tool is offered under: the prefix and the server's name joined by `__`. A name that
 * already fits `^[a-zA-Z0-9_-]{1,64}$` is kept as it is. Otherwise the name is written in ASCII as
 * far as it can be read (`café` as `cafe`, Greek and Cyrillic letters by small tables, the
 * ASCII part of a name in other scripts, `tool` when nothing is left), cut to leave room, and
 * `_` and eight hex digits of a hash of the whole original name are added. The name depends on
 * nothing but the server's name and the prefix, so it is the same on every listing, and two names
 * that read the same in ASCII stay apart. {@link offeredAll} names a whole list.
 *
 * @example
 * ```ts
 * import { ToolName } from "@svir/mcp-bridge"
 *
 * ToolName.offered("read_file", "files") // "files__read_file"
 * // Each of these ends with "_" and eight hex digits of a hash of the whole name.
 * ToolName.offered("read.file") // "read_file_2d6f0437"
 * ToolName.offered("résumé") // "resume_d42072ea"
 * ToolName.offered("поиск") // "poisk_ca9ed393"
 * ToolName.offered("名前") // "tool_ae08bf8f"
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const offered = (serverName: string, prefix?: string): string => {
  const full = joined(prefix, serverName)
  return validName.test(full) ? full : rewritten(serverName, prefix, hash(full))
}

/**
 * The names a server's tools are offered under, in the order of `serverNames`, all different when
 * the server's names are. Each is {@link offered}'s name unless another tool of the list already
 * has it: a server's name that is valid as it is keeps it, and among the others the one whose
 * server name sorts first keeps it, while the next gets its hash taken again with a counter. So
 * the names depend on which names the list holds, never on their order, and a tool's name changes
 * only when a tool whose name collides with it comes or goes (for rewritten names, a collision of
 * 32-bit hashes).
 *
 * @example
 * ```ts
 * import { ToolName } from "@svir/mcp-bridge"
 *
 * const serverNames = ["search", "café", "名前"]
 * const names = ToolName.offeredAll(serverNames, "docs")
 * names // ["docs__search", "docs__cafe_b2934541", "docs__tool_9c3e4746"]
 * // The way back from an offered name to the server's:
 * const serverName = new Map(names.map((name, i) => [name, serverNames[i]]))
 * serverName.get("docs__cafe_b2934541") // "café"
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const offeredAll = (
  serverNames: ReadonlyArray<string>,
  prefix?: string,
): ReadonlyArray<string> => {
  const names = serverNames.map((serverName) => offered(serverName, prefix))
  const asIs = names.map((name, i) => name === joined(prefix, serverNames[i]!))
  // Names kept as they are claim theirs first, in the order of the list: equal only when their
  // server names are, which sort by place. The rest follow in the order of their server names;
  // a listing whose names are all kept sorts nothing.
  const kept = serverNames.flatMap((_, i) => (asIs[i] ? [i] : []))
  const rest = serverNames
    .flatMap((_, i) => (asIs[i] ? [] : [i]))
    .sort((a, b) => compare(serverNames[a]!, serverNames[b]!) || a - b)
  const order = [...kept, ...rest]
  const taken = new Set<string>()
  for (const i of order) {
    const serverName = serverNames[i]!
    const full = joined(prefix, serverName)
    for (let round = 1; taken.has(names[i]!); round++) {
      names[i] = rewritten(serverName, prefix, hash(`${full}\u0000${round}`))
    }
    taken.add(names[i]!)
  }
  return names
}

/**
 * Succeeds with the prefix when it is 1 to 40 characters of `a-z A-Z 0-9 _ -`, or fails with a
 * Config error: a prefix is written by the user, so it is never rewritten.
 *
 * @since 0.2.0
 * @category validation
 */
export const validatePrefix = (prefix: string): Effect.Effect<string, SvirError.SvirError> =>
  validPrefix.test(prefix)
    ? Effect.succeed(prefix)
    : Effect.fail(
        SvirError.make(
          "Config",
          `the prefix ${JSON.stringify(prefix)} is not 1 to 40 characters of a-z, A-Z, 0-9, _ and -`,
        ),
      )

/** Code unit order, the same on every platform and locale. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

const joined = (prefix: string | undefined, name: string): string =>
  prefix === undefined ? name : `${prefix}${separator}${name}`

/** The readable ASCII form of the name behind the prefix, cut to leave room for `_<hash>`. */
const rewritten = (serverName: string, prefix: string | undefined, hashed: string): string => {
  const suffix = `_${hashed}`
  // The prefix is at most 40 characters, so at least 13 are left for the name itself.
  return `${joined(prefix, readable(serverName)).slice(0, maxLength - suffix.length)}${suffix}`
}

/**
 * The name in `a-z A-Z 0-9 _ -`: every character written in ASCII where it can be read, and each
 * run of the others (with the underscores beside it) one `_`, none at either end.
 */
const readable = (name: string): string => {
  // The parts of the name between characters that have no ASCII form.
  const parts = [""]
  for (const char of name.normalize("NFC")) {
    const form = ascii(char)
    if (form === undefined) parts.push("")
    else parts[parts.length - 1] += form
  }
  const last = parts.length - 1
  const kept = parts
    .map((part, i) => (i < last ? part.replace(/_+$/, "") : part))
    .map((part, i) => (i > 0 ? part.replace(/^_+/, "") : part))
    .filter((part) => part !== "")
  return kept.length === 0 ? "tool" : kept.join("_")
}

/** A character in ASCII, or `undefined` when it has no readable form. */
const ascii = (char: string): string | undefined => {
  if (nameCharacter.test(char)) return char
  const known = letters.get(char)
  if (known !== undefined) return known
  // A mark that did not combine with the letter before it adds nothing a reader needs.
  if (combiningMark.test(char)) return ""
  // Letters with diacritics, and compatibility forms: "é" is "e", "ﬁ" is "fi", "Ａ" is "A".
  const parts = char.normalize("NFKD").replace(combiningMarks, "")
  if (parts === char || parts === "") return undefined
  let text = ""
  for (const part of parts) {
    const known = nameCharacter.test(part) ? part : letters.get(part)
    if (known === undefined) return undefined
    text += known
  }
  return text
}

/**
 * Lower-case letters that Unicode does not decompose into ASCII, and their ASCII forms: Latin
 * letters of their own, Greek (ELOT 743) and Cyrillic (BGN/PCGN, with the Ukrainian, Belarusian
 * and South Slavic letters). Accented Greek and Cyrillic letters decompose into these.
 */
const lowerCase =
  "ß ss æ ae œ oe ø o đ d ð d þ th ł l ı i ħ h ŋ ng " +
  "α a β v γ g δ d ε e ζ z η i θ th ι i κ k λ l μ m ν n ξ x ο o π p ρ r σ s ς s τ t υ y " +
  "φ f χ ch ψ ps ω o " +
  "а a б b в v г g д d е e ё yo ж zh з z и i й y к k л l м m н n о o п p р r с s т t у u " +
  "ф f х kh ц ts ч ch ш sh щ shch ъ - ы y ь - э e ю yu я ya і i ї yi є ye ґ g ў u " +
  "ђ dj ј j љ lj њ nj ћ c џ dz ѓ gj ќ kj ѕ dz"

/** The letters of {@link lowerCase}, and their capitals ("Ж" is "Zh"); "-" stands for nothing. */
const letters: ReadonlyMap<string, string> = (() => {
  const words = lowerCase.split(" ")
  const table = new Map<string, string>()
  for (let i = 0; i < words.length; i += 2) {
    const letter = words[i]!
    const form = words[i + 1] === "-" ? "" : words[i + 1]!
    table.set(letter, form)
    const capital = letter.toUpperCase()
    if (capital !== letter && capital.length === 1) {
      table.set(capital, form.charAt(0).toUpperCase() + form.slice(1))
    }
  }
  return table
})()

/** 32-bit FNV-1a over the UTF-16 code units: small, stable across runs and platforms. */
const hash = (text: string): string => {
  let value = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    value ^= text.charCodeAt(i)
    value = Math.imul(value, 0x01000193)
  }
  return (value >>> 0).toString(16).padStart(8, "0")
}
