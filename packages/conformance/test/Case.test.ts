import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { SvirError } from "@svir/core"
import { Effect, Result, Schema } from "effect"
import * as fc from "fast-check"
import { Case } from "../src/index.js"
import { CaseFiles } from "../src/node.js"

const malformed = (name: string) =>
  fileURLToPath(new URL(`./cases/malformed/${name}`, import.meta.url))

const problemOf = (path: string) => Effect.flip(CaseFiles.readFile(path))

const withFolder = <A, E>(use: (dir: string) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "svir-cases-"))),
    use,
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true })),
  )

const snake = (kind: string) =>
  kind.replace(/[A-Z]/g, (c, i) => `${i === 0 ? "" : "_"}${c.toLowerCase()}`)

describe("Case", () => {
  it("ErrorKind is the snake_case of every core SvirError kind", () => {
    assert.deepStrictEqual([...Case.ErrorKind.literals], SvirError.kinds.map(snake))
  })

  it.effect("reads a file of one case and a file of several", () =>
    Effect.gen(function* () {
      const pass = fileURLToPath(new URL("./cases/pass", import.meta.url))
      const one = yield* CaseFiles.readFile(join(pass, "text.json"))
      assert.deepStrictEqual(
        one.map((loaded) => loaded.case.name),
        ["text-and-usage"],
      )
      const several = yield* CaseFiles.readFile(join(pass, "errors.json"))
      assert.isAbove(several.length, 1)
      assert.isTrue(several.every((loaded) => loaded.source === join(pass, "errors.json")))
    }),
  )

  it.effect("reports each malformed file with its path and what is wrong", () =>
    Effect.gen(function* () {
      const twoInputs = yield* problemOf(malformed("two-inputs.json"))
      assert.strictEqual(twoInputs.source, malformed("two-inputs.json"))
      assert.match(twoInputs.message, /exactly one input .* found sse, hex/)
      const noInput = yield* problemOf(malformed("no-input.json"))
      assert.match(noInput.message, /exactly one input .* found none/)
      const notJson = yield* problemOf(malformed("not-json.json"))
      assert.match(notJson.message, /^not JSON: /)
      const unknownKey = yield* problemOf(malformed("unknown-key.json"))
      assert.match(unknownKey.message, /excess property\n {2}at \["expect"\]\["ok"\]\["finsh"\]/)
      const badKind = yield* problemOf(malformed("bad-kind.json"))
      assert.match(badKind.message, /\[1\]\["expect"\]\["error"\]/)
      const missing = yield* problemOf(malformed("nowhere.json"))
      assert.match(missing.message, /^cannot read: /)
    }),
  )

  it.effect("reads a folder recursively in path order, and refuses a folder with no case", () =>
    withFolder((dir) =>
      Effect.gen(function* () {
        const write = (path: string, name: string) => {
          mkdirSync(join(dir, path, ".."), { recursive: true })
          writeFileSync(join(dir, path), JSON.stringify({ name, sse: "", expect: { ok: {} } }))
        }
        write("b.json", "b")
        write("a/z.json", "a/z")
        write("notes.txt", "not a case")
        const empty = join(dir, "empty")
        mkdirSync(empty)
        const loaded = yield* CaseFiles.readPath(dir)
        assert.deepStrictEqual(
          loaded.map((one) => one.case.name),
          ["a/z", "b"],
        )
        const error = yield* Effect.flip(CaseFiles.readPath(empty))
        assert.strictEqual(error.source, empty)
        assert.match(error.message, /no \.json case files/)
      }),
    ),
  )

  it.effect("checks case values too, naming them by position", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        CaseFiles.load([
          { name: "fine", sse: "", expect: { ok: {} } },
          { name: "", sse: "", expect: { ok: {} } },
        ]),
      )
      assert.strictEqual(error.source, "<value 1>")
      assert.match(error.message, /\["name"\]/)
    }),
  )

  it.effect("reads file: URLs, and refuses other URLs", () =>
    Effect.gen(function* () {
      const loaded = yield* CaseFiles.load([new URL("./cases/pass/text.json", import.meta.url)])
      assert.deepStrictEqual(
        loaded.map((one) => one.case.name),
        ["text-and-usage"],
      )
      const error = yield* Effect.flip(CaseFiles.load([new URL("http://127.0.0.1/cases.json")]))
      assert.strictEqual(error.message, "only file: URLs are read")
    }),
  )

  it("optionsFor sets the mode over the case's options", () => {
    const c = Schema.decodeUnknownSync(Case.Case)({
      name: "x",
      sse: "",
      options: { mode: "strict", maxCalls: 1 },
      expect: { ok: {} },
    })
    assert.deepStrictEqual(Case.optionsFor(c, "lenient"), { mode: "lenient", maxCalls: 1 })
  })

  const refused = (value: unknown) =>
    Effect.runSync(Effect.flip(Case.decode("inline", value))).message

  it("refuses the later fields where they have no meaning, saying why", () => {
    const base = { name: "x", expect: { ok: {} } }
    assert.include(
      refused({ ...base, sse: "", replace: [["a", "b"]] }),
      "replace goes with a recording input only",
    )
    assert.include(
      refused({ ...base, sse: "", cut_before: "a" }),
      "cut_before goes with a recording input only",
    )
    assert.include(
      refused({ ...base, json: {}, line_endings: ["crlf"] }),
      "line_endings has no meaning for a json input",
    )
    assert.include(refused({ ...base, json: {}, strides: [2] }), "strides has no meaning")
    assert.include(
      refused({ ...base, sse: "", expect: { ok: {}, visible_by_chunk: [true] } }),
      "visible_by_chunk goes with a chunks input only",
    )
    assert.include(
      refused({ ...base, sse: "", expect_lenient: { error: "protocol", visible_by_chunk: [] } }),
      "visible_by_chunk goes with a chunks input only",
    )
    assert.include(
      refused({ ...base, sse: "", line_endings: ["lf", "lf"] }),
      "each line ending once",
    )
    assert.include(refused({ ...base, sse: "", line_endings: ["cr"] }), '["line_endings"][0]')
    assert.include(refused({ ...base, sse: "", strides: [0] }), '["strides"][0]')
    assert.include(
      refused({ ...base, sse: "", departs: { decision: "D1" } }),
      '["departs"]["svir"]',
    )
    assert.include(refused({ ...base, sse: "", from: "" }), '["from"]')
    assert.include(
      refused({ ...base, sse: "", expect: { ok: { reasoning: [{ text: "a" }] } } }),
      '["reasoning"]',
    )
    assert.include(
      refused({ ...base, sse: "", expect: { error: "server", partial: { txt: "" } } }),
      '["partial"]["txt"]',
    )
  })

  it("reads the later fields as written", () => {
    const written = {
      name: "x",
      from: "svir decoder/x.json",
      departs: { decision: "openai-codec D16", svir: "a protocol error" },
      chunks: ["a", "b"],
      line_endings: ["crlf", "lf"],
      strides: [2, 7],
      expect: {
        error: "attachment",
        partial: { text: "a" },
        message: "m",
        visible_by_chunk: [true, false],
      },
      expect_lenient: { ok: { reasoning: [{ source: "think", text: "t" }] } },
    }
    const [read] = Effect.runSync(Case.decode("inline", written))
    assert.deepStrictEqual<unknown>(read?.case, written)
  })

  it("reads an encoder case by its request, and refuses attachments that do not fit", () => {
    const encoder = {
      name: "e",
      request: { model: "m", messages: [{ role: "user", parts: [{ image: "x" }] }] },
      attachments: { x: { media_type: "image/png", hex: "00" } },
      expect: { body: { model: "m" } },
    }
    const [read] = Effect.runSync(Case.decode("inline", [encoder]))
    assert.isTrue(read !== undefined && Case.isEncoderCase(read.case))
    assert.include(
      refused({ ...encoder, attachments: {} }),
      'no attachment x\n  at ["request"]["messages"][0]["parts"][0]["image"]',
    )
    assert.include(
      refused({ ...encoder, attachments: { x: { name: "x.txt", text: "" } } }),
      "attachment x is a file (name)",
    )
    assert.include(
      refused({ ...encoder, attachments: { x: { media_type: "image/png", hex: "00", text: "" } } }),
      "exactly one of hex and text",
    )
    assert.include(
      refused({
        ...encoder,
        attachments: { x: { media_type: "image/png", hex: "00", escaped_len: 3 } },
      }),
      "escaped_len is for a file",
    )
    assert.include(refused({ ...encoder, expect: { body: {}, error: "attachment" } }), "expect")
    assert.include(refused({ ...encoder, options: { lean: true, stride: 1 } }), '["stride"]')
    // In an array, each problem is given with the case's position.
    assert.include(
      refused([
        { name: "fine", sse: "", expect: { ok: {} } },
        { ...encoder, attachments: {} },
      ]),
      '[1]["request"]',
    )
  })

  const input = fc.oneof(
    fc.record({ sse: fc.string() }),
    fc.record({ chunks: fc.array(fc.string()) }),
    fc.record({ hex: fc.uint8Array().map((bytes) => Buffer.from(bytes).toString("hex")) }),
    fc.record({ json: fc.oneof(fc.string(), fc.dictionary(fc.string(), fc.jsonValue())) }),
  )
  const expectation = fc.oneof(
    fc.record({ error: fc.constantFrom(...Case.ErrorKind.literals) }),
    fc.record({
      ok: fc.record(
        {
          text: fc.string(),
          finish: fc.constantFrom(...Case.Finish.literals),
          calls: fc.array(
            fc.record({
              id: fc.string(),
              name: fc.string(),
              arguments: fc.oneof(fc.string(), fc.array(fc.string(), { minLength: 1 })),
            }),
          ),
          usage: fc.option(fc.record({ input: fc.nat(), output: fc.nat() }), { nil: null }),
        },
        { requiredKeys: [] },
      ),
    }),
  )
  const validCase = fc
    .tuple(fc.string({ minLength: 1 }), input, expectation)
    // A case file is JSON: what JSON cannot hold (-0) is not a case anyone can write.
    .map(([name, given, expect]) => JSON.parse(JSON.stringify({ name, ...given, expect })))

  it("every case written in the format is read back as written", () =>
    fc.assert(
      fc.property(validCase, (written) => {
        const read = Effect.runSync(
          Effect.result(Case.decode("generated", JSON.parse(JSON.stringify(written)))),
        )
        assert.isTrue(Result.isSuccess(read))
        if (Result.isSuccess(read)) assert.deepStrictEqual(read.success[0]?.case, written)
      }),
      { seed: 2023 },
    ))

  it("a key outside the format is reported by name, wherever it is", () =>
    fc.assert(
      fc.property(
        validCase,
        fc.stringMatching(/^x_[a-z]{1,8}$/),
        fc.boolean(),
        (written, key, nested) => {
          const bad =
            nested && "ok" in written.expect
              ? { ...written, expect: { ok: { ...written.expect.ok, [key]: 1 } } }
              : { ...written, [key]: 1 }
          const read = Effect.runSync(Effect.result(Case.decode("generated", bad)))
          assert.isTrue(Result.isFailure(read))
          if (Result.isFailure(read)) assert.include(read.failure.message, `["${key}"]`)
        },
      ),
      { seed: 2024 },
    ))
})
