import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Redaction } from "../src/index.js"

/**
 * The characters of keys, tokens and client secrets. Characters that read as the start of an
 * escape (`%`, `&`, `\`) are left out here: a secret holding them is found in the forms of the
 * last tests, not with every character in a form of its own.
 */
const keyChars = [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+=:~!*'()"]
const secretOf = fc.string({ unit: fc.constantFrom(...keyChars), minLength: 8, maxLength: 40 })
const idOf = fc.string({ unit: fc.constantFrom(...keyChars), minLength: 1, maxLength: 20 })

const named: Readonly<Record<string, string>> = {
  "+": "plus",
  "/": "sol",
  "=": "equals",
  "'": "apos",
}

/** Every way a server may write one character of an echo. */
const charForms = (char: string): ReadonlyArray<string> => {
  const code = char.charCodeAt(0)
  const hex = code.toString(16)
  return [
    char,
    `\\u${hex.padStart(4, "0")}`,
    `\\\\\\u${hex.toUpperCase().padStart(4, "0")}`,
    ...(char === "/" ? ["\\/", "\\\\\\/"] : []),
    `%${hex.padStart(2, "0")}`,
    `%${hex.toUpperCase().padStart(2, "0")}`,
    `&#${code};`,
    `&#00${code};`,
    `&#x${hex};`,
    `&#X${hex.toUpperCase()};`,
    ...(named[char] === undefined ? [] : [`&${named[char]};`]),
  ]
}

/** A character as a form body writes it (the SDK's `client_secret=`): URLSearchParams. */
const formEncoded = (char: string): ReadonlyArray<string> => [
  new URLSearchParams([["", char]]).toString().slice(1),
]

/** What a reader or a server may leave between two characters of an echo. */
const lineBreaks = ["\n", "\r\n", "\ndata: ", "\ndata:", "\\n", "\\r\\n"]

/** A credential as the client or the bridge sends it: the text on the wire, and its forms. */
interface Sent {
  readonly name: string
  /** What goes on the wire, whose echo must not be readable. */
  readonly sent: (id: string, secret: string) => string
  /** How a server writes one character of it. */
  readonly forms: (char: string) => ReadonlyArray<string>
}

const sentForms: ReadonlyArray<Sent> = [
  { name: "the key (Authorization: Bearer, api-key)", sent: (_, s) => s, forms: charForms },
  { name: "the client_secret of a form body", sent: (_, s) => s, forms: formEncoded },
  {
    name: "Basic base64(id:secret), as the MCP SDK sends it",
    sent: (id, s) => btoa(`${id}:${s}`),
    forms: charForms,
  },
  {
    name: "Basic base64(id:secret), each form-encoded first (RFC 6749 2.3.1)",
    sent: (id, s) => {
      const form = (text: string) => new URLSearchParams([["", text]]).toString().slice(1)
      return btoa(`${form(id)}:${form(s)}`)
    },
    forms: charForms,
  },
  {
    name: "base64url(id:secret)",
    sent: (id, s) => btoa(`${id}:${s}`).replaceAll("+", "-").replaceAll("/", "_"),
    forms: charForms,
  },
]

/** The redaction the bridge makes for an OAuth client, and the client for its key. */
const redactionOf = (id: string, secret: string) =>
  Redaction.make([secret, ...Redaction.basicCredentials(id, secret)])

interface Piece {
  readonly lineBreak: string
  readonly form: string
}

/** The echo of `text`, each character in the form `choices` picks, some after a line break. */
const piecesOf = (
  text: string,
  forms: (char: string) => ReadonlyArray<string>,
  choices: ReadonlyArray<number>,
): ReadonlyArray<Piece> =>
  [...text].map((char, i) => {
    const choice = choices[i % choices.length]!
    const all = forms(char)
    const broken = i > 0 && Math.floor(choice / 64) % 4 === 0
    return {
      lineBreak: broken ? lineBreaks[Math.floor(choice / 256) % lineBreaks.length]! : "",
      form: all[choice % all.length]!,
    }
  })

const joined = (pieces: ReadonlyArray<Piece>): string =>
  pieces.map((piece) => piece.lineBreak + piece.form).join("")

/**
 * The text a person could read out of an echo: every form above undone, by a reading of its own
 * (repeated until nothing changes, so that it reads more than the redaction does).
 */
const readable = (text: string): string => {
  let before: string
  let after = text
  do {
    before = after
    after = after
      .replace(/(?:\r\n|\r|\n|\\+r\\+n|\\+n)(?:data: ?)?/g, "")
      .replace(/\\+u([0-9a-f]{4})/gi, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)))
      .replace(/\\+([^u])/g, "$1")
      .replace(/&#x([0-9a-f]+);?/gi, (_, hex) => String.fromCodePoint(Number.parseInt(hex, 16)))
      .replace(/&#([0-9]+);?/g, (_, code) => String.fromCodePoint(Number(code)))
      .replace(/&(plus|sol|equals|apos|amp);/gi, (_, name: string) => {
        const chars: Record<string, string> = { plus: "+", sol: "/", equals: "=", apos: "'" }
        return chars[name.toLowerCase()] ?? "&"
      })
      .replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
        try {
          return decodeURIComponent(run)
        } catch {
          return run
        }
      })
  } while (after !== before)
  return after
}

/** Text around an echo: anything, apart from it by a space. */
const around = fc.string({ maxLength: 30 })

describe("Redaction of every form a credential is sent and echoed in", () => {
  for (const form of sentForms) {
    it(`never shows ${form.name}, echoed in any form`, () => {
      fc.assert(
        fc.property(
          idOf,
          secretOf,
          fc.array(fc.nat(), { minLength: 1, maxLength: 80 }),
          fc.nat(2),
          around,
          around,
          (id, secret, choices, wrap, before, after) => {
            const sent = form.sent(id, secret)
            let echo = joined(piecesOf(sent, form.forms, choices))
            // A JSON text, and a JSON text inside a JSON text, as an error body quotes one.
            for (let i = 0; i < wrap; i++) echo = JSON.stringify(echo)
            const out = redactionOf(id, secret).text(`${before} ${echo} ${after}`)
            for (const shown of [out, readable(out)]) {
              assert.notInclude(shown, secret)
              assert.notInclude(shown, sent.replace(/=+$/, ""))
            }
            assert.include(out, Redaction.placeholder)
            assert.isFalse(redactionOf(id, secret).reveals(out), out)
          },
        ),
        { seed: 5, numRuns: 300 },
      )
    })

    it(`never shows a cut echo of ${form.name}, cut anywhere after its fourth character`, () => {
      fc.assert(
        fc.property(
          idOf,
          secretOf,
          fc.array(fc.nat(), { minLength: 1, maxLength: 80 }),
          fc.nat(),
          fc.nat(),
          fc.boolean(),
          around,
          (id, secret, choices, cutAt, partAt, ellipsis, before) => {
            // Cut in its padding, an echo shows the whole token, as above.
            const sent = form.sent(id, secret).replace(/=+$/, "")
            const pieces = piecesOf(sent, form.forms, choices)
            // Whole pieces up to a place after the fourth character, then part of the next form.
            const whole = Redaction.minSecretLength + (cutAt % (pieces.length - 4))
            const next = pieces[whole]!
            const part = next.form.slice(0, partAt % next.form.length)
            const echo = `${joined(pieces.slice(0, whole))}${next.lineBreak}${part}`
            const end = ellipsis ? "…" : ""
            const out = redactionOf(id, secret).text(`${before} ${echo}${end}`)
            assert.isTrue(out.endsWith(`${Redaction.placeholder}${end}`), out)
          },
        ),
        { seed: 6, numRuns: 300 },
      )
    })
  }

  it("changes no text that holds no secret, however near its escapes come", () => {
    fc.assert(
      fc.property(
        secretOf.filter((secret) => new Set(secret.slice(0, 4)).size === 4),
        fc.array(fc.nat(), { minLength: 1, maxLength: 200 }),
        (secret, picks) => {
          // Characters the secret does not hold, no digits (`&#` and a digit could write one of
          // its characters) and no `;`, each as is and in every escaped form; bare starts of
          // escapes; line breaks; and the secret's first three characters, which are not enough.
          const others = [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_./+=:~!*'()# "]
            .filter((char) => !secret.includes(char))
            .flatMap(charForms)
          const tokens = [...others, ..."\\%&", "&#", "&#x", ...lineBreaks, "…", secret.slice(0, 3)]
          const text = picks.map((pick) => tokens[pick % tokens.length]).join("")
          const redaction = redactionOf("client", secret)
          assert.strictEqual(redaction.text(text), text)
          assert.isFalse(redaction.reveals(text))
        },
      ),
      { seed: 7, numRuns: 300 },
    )
  })

  it("finds a secret that holds what reads as an escape, echoed as is or escaped whole", () => {
    for (const secret of ["pa%41ss-word", "a&amp;b-c&#43;d", "back\\slash\\u0041x", "two words+"]) {
      const redaction = Redaction.make([secret])
      const echoes = [
        secret,
        JSON.stringify(secret),
        JSON.stringify(JSON.stringify(secret)),
        encodeURIComponent(secret),
        new URLSearchParams([["", secret]]).toString().slice(1),
        [...secret].map((char) => `&#${char.charCodeAt(0)};`).join(""),
        [...secret]
          .map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)
          .join(""),
      ]
      for (const echo of echoes) {
        const out = redaction.text(`said: ${echo}.`)
        assert.notInclude(out, secret, echo)
        assert.include(out, Redaction.placeholder, echo)
      }
    }
  })

  it("finds the key an event stream's reader joined from two data lines", () => {
    const key = "sk-live/9f8e7d6c5b4a3210"
    const redaction = Redaction.make([key])
    for (const text of [
      `bad key ${key.slice(0, 9)}\n${key.slice(9)}`,
      `data: bad key ${key.slice(0, 9)}\ndata: ${key.slice(9)}\n\n`,
      JSON.stringify({ message: `bad key ${key.slice(0, 9)}\n${key.slice(9)}` }),
    ]) {
      assert.strictEqual(redaction.reveals(redaction.text(text)), false, text)
      assert.include(redaction.text(text), Redaction.placeholder, text)
    }
  })

  it("finds a key with + written &#43; and &#x2B; in an HTML page", () => {
    const key = "azure+Key0123456789abc"
    const redaction = Redaction.make([key])
    for (const text of [
      `<html><body><p>bad key azure&#43;Key0123456789abc</p></body></html>`,
      `<p>bad key azure&#x2B;Key0123456789abc</p>`,
      `<p>bad key azure&plus;Key0123456789abc</p>`,
    ]) {
      assert.strictEqual(redaction.text(text).includes("Key0123456789"), false, text)
    }
  })

  it("takes out the whole Basic credentials a token endpoint echoes", () => {
    const redaction = Redaction.make([
      "machine-secret-5b1d9e",
      ...Redaction.basicCredentials("svir-machine", "machine-secret-5b1d9e"),
    ])
    // The padding left after the placeholder shows nothing.
    const token = btoa("svir-machine:machine-secret-5b1d9e")
    assert.isTrue(token.endsWith("="))
    const out = redaction.text(`{"error":"invalid_client","you_sent":"Basic ${token}"}`)
    assert.strictEqual(
      out,
      `{"error":"invalid_client","you_sent":"Basic ${Redaction.placeholder}${token.replace(/^[^=]+/, "")}"}`,
    )
  })

  // A backtracking reading of these takes quadratic time or worse: 40 000 backslashes took 12 s
  // before, so 1 MB would take hours. Read in linear time, each takes milliseconds.
  it("reads a large text of near misses in linear time", () => {
    const key = "sk-test-4f9a/Zq+2=xyz"
    const redaction = Redaction.make([
      key,
      "tok_ABCDEF123456ghij",
      ...Redaction.basicCredentials("client-id", key),
      `eyJ${"a1B2".repeat(250)}`,
    ])
    const size = 1_000_000
    const texts = [
      "\\".repeat(size),
      "%".repeat(size),
      "&#".repeat(size / 2),
      "\n".repeat(size),
      `${key.slice(0, -1)} `.repeat(size / key.length),
      `${key.slice(0, 5)}\n`.repeat(size / 6),
      "sk-te\\u0073\n%73&#115;\\\\\\".repeat(size / 25),
      "a1B2".repeat(size / 4),
    ]
    for (const text of texts) {
      // An end that is no part of a secret, so the text is left as it is.
      assert.strictEqual(redaction.text(`${text}.`), `${text}.`)
    }
  })
})
