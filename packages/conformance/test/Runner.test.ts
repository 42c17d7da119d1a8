import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { type Codec, Completion, Event, SvirError } from "@svir/core"
import { Effect } from "effect"
import * as fc from "fast-check"
import { type Case, Runner } from "../src/index.js"
import { CaseFiles } from "../src/node.js"
import * as ToyCodec from "./toy/ToyCodec.js"

const casesDir = (name: string) => fileURLToPath(new URL(`./cases/${name}`, import.meta.url))

const failuresOf = (report: Runner.Report, name: string) =>
  report.results.filter((result) => result.case === name && !result.passed)

const textCase = (
  sse: string,
  expect: Case.Expectation,
  options = {},
): typeof Case.Case.Encoded => ({
  name: "generated",
  sse,
  options,
  expect,
})

describe("Runner.run", () => {
  it.effect("runs case values with no file read, and names the entry that reads recordings", () =>
    Effect.gen(function* () {
      const report = yield* Runner.run(ToyCodec.make, [
        textCase("text Hi\nend stop\n", { ok: { text: "Hi", finish: "stop" } }),
      ])
      assert.isAbove(report.passed, 0)
      assert.strictEqual(report.failed, 0)
      const unread = yield* Runner.run(ToyCodec.make, [
        { name: "on disk", recording: "toy.lines", expect: { ok: {} } },
      ])
      assert.isAbove(unread.failed, 0)
      assert.include(unread.results[0]!.diff.join(" "), "@svir/conformance/node")
    }),
  )

  it.effect("passes every check of cases the toy codec meets", () =>
    Effect.gen(function* () {
      const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("pass")])
      assert.strictEqual(
        report.failed,
        0,
        report.results
          .filter((r) => !r.passed)
          .map(Runner.formatFailure)
          .join("\n"),
      )
      assert.isAbove(report.passed, 0)
      assert.strictEqual(report.passed, report.results.length)
    }),
  )

  it.effect("gives one result per check, in the order of Runner.checks", () =>
    Effect.gen(function* () {
      const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("pass")])
      const [first] = report.results
      assert.isDefined(first)
      const text = report.results.filter((r) => r.case === "text-and-usage")
      assert.deepStrictEqual(
        text.map(({ mode, chunking }) => `${mode} ${chunking}`),
        [
          "strict 1-byte",
          "strict 3-byte",
          "strict 8192-byte",
          "strict whole",
          "strict agreement",
          "lenient 1-byte",
          "lenient 3-byte",
          "lenient 8192-byte",
          "lenient whole",
          "lenient agreement",
        ],
      )
      const calls = report.results.filter((r) => r.case === "two-calls").map((r) => r.chunking)
      assert.deepStrictEqual(calls, [
        "as-given",
        "1-byte",
        "3-byte",
        "8192-byte",
        "whole",
        "agreement",
      ])
      const body = report.results.filter((r) => r.case === "response-body").map((r) => r.chunking)
      assert.deepStrictEqual(body, ["response"])
    }),
  )

  it.effect("keeps only the checks of the modes asked for", () =>
    Effect.gen(function* () {
      const lenient = yield* CaseFiles.run(ToyCodec.make, [casesDir("pass")], {
        modes: ["lenient"],
      })
      assert.isAbove(lenient.results.length, 0)
      assert.isTrue(lenient.results.every((r) => r.mode === "lenient"))
      const both = yield* CaseFiles.run(ToyCodec.make, [casesDir("pass")])
      const strict = yield* CaseFiles.run(ToyCodec.make, [casesDir("pass")], { modes: ["strict"] })
      assert.strictEqual(strict.results.length + lenient.results.length, both.results.length)
    }),
  )

  it.effect("catches a wrong expectation, with a diff of expected and actual", () =>
    Effect.gen(function* () {
      const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("fail")])
      const wrong = failuresOf(report, "wrong-text")
      assert.deepStrictEqual(
        wrong.map((r) => r.chunking),
        ["1-byte", "3-byte", "8192-byte", "whole"],
      )
      for (const result of wrong) {
        assert.deepStrictEqual(result.diff, ['text: expected "Hallo", actual "Hello"'])
        assert.match(
          Runner.formatFailure(result),
          /^FAIL wrong-text \[strict, (1-byte|3-byte|8192-byte|whole)\] .*wrong\.json: text: expected "Hallo", actual "Hello"$/,
        )
      }
      const kind = failuresOf(report, "wrong-kind")[0]
      assert.match(kind?.diff[0] ?? "", /^expected error timeout, actual error truncated_stream/)
      const args = failuresOf(report, "wrong-args")[0]
      assert.deepStrictEqual(args?.diff, [
        'calls[0].id: expected any non-empty id, actual ""',
        'calls[0].arguments: expected any of ["{}","{\\"a\\": 1}"], actual "{\\"a\\":1}"',
      ])
    }),
  )

  it.effect("catches a codec whose outcome depends on the chunking", () =>
    Effect.gen(function* () {
      const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("fail")])
      const failed = failuresOf(report, "chunk-dependent").map((r) => r.chunking)
      assert.deepStrictEqual(failed, ["1-byte", "3-byte", "agreement"])
      const agreement = failuresOf(report, "chunk-dependent").find(
        (r) => r.chunking === "agreement",
      )
      assert.match(agreement?.diff[0] ?? "", /^1-byte vs whole: expected ok/)
    }),
  )

  it.effect(
    "catches calls released before an error, a missing Completed, and a throwing decoder",
    () =>
      Effect.gen(function* () {
        const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("fail")])
        const released = failuresOf(report, "released-on-error").filter(
          (r) => r.chunking !== "agreement",
        )
        assert.strictEqual(released.length, 4)
        assert.match(released[0]?.diff[0] ?? "", /calls released on error/)
        assert.match(
          failuresOf(report, "never-completed")[0]?.diff[0] ?? "",
          /neither a Completed event nor an error/,
        )
        assert.match(
          failuresOf(report, "throws")[0]?.diff[0] ?? "",
          /the decoder threw Error: toy codec bug/,
        )
      }),
  )

  it.effect("fails with the path and the problem of a malformed case file, running nothing", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        CaseFiles.run(ToyCodec.make, [casesDir("pass"), casesDir("malformed/two-inputs.json")]),
      )
      assert.strictEqual(error._tag, "CaseError")
      assert.match(error.source, /two-inputs\.json$/)
      assert.match(
        error.message,
        /exactly one input of sse, chunks, hex, json, recording; found sse, hex/,
      )
    }),
  )

  it.effect("feeds streamed cases in 1-byte, 3-byte and whole chunks through the decoder", () =>
    Effect.gen(function* () {
      const pushed: Array<Array<number>> = []
      const recording: Runner.MakeCodec = (options) => {
        const toy = ToyCodec.make(options)
        return {
          ...toy,
          decoder: () => {
            const sizes: Array<number> = []
            pushed.push(sizes)
            const inner = toy.decoder()
            return {
              ...inner,
              push: (bytes) => {
                sizes.push(bytes.length)
                return inner.push(bytes)
              },
            }
          },
        }
      }
      const sse = "text abcdefg\nend stop\n"
      const report = yield* CaseFiles.run(recording, [textCase(sse, { ok: { text: "abcdefg" } })])
      assert.strictEqual(report.failed, 0)
      const length = new TextEncoder().encode(sse).length
      assert.deepStrictEqual(pushed[0], Array(length).fill(1))
      assert.deepStrictEqual(pushed[1]?.slice(0, -1), Array(Math.floor(length / 3)).fill(3))
      assert.deepStrictEqual(pushed[2], [length])
    }),
  )

  it.effect("reports a codec that gives events after Completed, or two Completed events", () =>
    Effect.gen(function* () {
      const completion = Completion.make({ finish: "stop" })
      const withEvents =
        (events: ReadonlyArray<Event.Event>): Runner.MakeCodec =>
        (options) => ({
          ...ToyCodec.make(options),
          decoder: (): Codec.StreamDecoder => ({
            push: () => ({ events: [], error: undefined }),
            finish: () => ({ events, error: undefined }),
            done: () => false,
          }),
        })
      const after = yield* CaseFiles.run(
        withEvents([Event.completed(completion), Event.textDelta("x")]),
        [textCase("x", { ok: {} })],
      )
      assert.match(after.results[0]?.diff[0] ?? "", /a TextDelta event came after Completed/)
      const twice = yield* CaseFiles.run(
        withEvents([Event.completed(completion), Event.completed(completion)]),
        [textCase("x", { ok: {} })],
      )
      assert.match(twice.results[0]?.diff[0] ?? "", /2 Completed events/)
    }),
  )

  it.effect(
    "treats a factory that throws a SvirError as that error, and any other throw as a failure",
    () =>
      Effect.gen(function* () {
        const config: Runner.MakeCodec = () => {
          throw SvirError.make("Config", "no such option")
        }
        const expected = yield* CaseFiles.run(config, [textCase("x", { error: "config" })])
        assert.strictEqual(expected.failed, 0)
        const broken: Runner.MakeCodec = () => {
          throw new TypeError("bad")
        }
        const report = yield* CaseFiles.run(broken, [textCase("x", { ok: {} })])
        assert.match(report.results[0]?.diff[0] ?? "", /the codec factory threw TypeError: bad/)
      }),
  )

  it.effect("passes the case's options, with mode set, to the factory", () =>
    Effect.gen(function* () {
      const seen: Array<Case.CaseOptions> = []
      const spy: Runner.MakeCodec = (options) => {
        seen.push(options)
        return ToyCodec.make(options)
      }
      yield* CaseFiles.run(spy, [
        { ...textCase("end stop\n", { ok: {} }, { maxCalls: 2 }), expect_lenient: "same" },
      ])
      assert.deepStrictEqual(seen, [
        { maxCalls: 2, mode: "strict" },
        { maxCalls: 2, mode: "lenient" },
      ])
    }),
  )

  it.effect('lets made-up call ids differ between chunkings only where the case says "*"', () =>
    Effect.gen(function* () {
      const sse = "call - f {}\nend tool_calls\n"
      const wildcard = yield* CaseFiles.run(ToyCodec.make, [
        textCase(sse, { ok: { calls: [{ id: "*", name: "f" }] } }),
      ])
      assert.strictEqual(wildcard.failed, 0)
      const unchecked = yield* CaseFiles.run(ToyCodec.make, [
        textCase(sse, { ok: { finish: "tool_calls" } }),
      ])
      const agreement = unchecked.results.find((r) => r.chunking === "agreement")
      assert.isFalse(agreement?.passed)
      assert.match(agreement?.diff[0] ?? "", /^1-byte vs whole: calls\[0\]\.id: expected "made_/)
    }),
  )

  it("a codec that meets the contract passes at every chunking, whatever the text", () =>
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[^\n]{0,12}$/), { maxLength: 6 }), (pieces) => {
        const sse = `${pieces.map((piece) => `text ${piece}\n`).join("")}end stop\n`
        const report = Effect.runSync(
          CaseFiles.run(ToyCodec.make, [
            textCase(sse, { ok: { text: pieces.join(""), finish: "stop" } }),
          ]),
        )
        assert.strictEqual(report.failed, 0, report.results.map(Runner.formatFailure).join("\n"))
      }),
      { seed: 2025, numRuns: 50 },
    ))

  it("a codec whose outcome depends on the chunking is caught, whatever the text", () =>
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{2,12}$/), (word) => {
        const report = Effect.runSync(
          CaseFiles.run(ToyCodec.make, [
            textCase(
              `text ${word}\nend stop\n`,
              { ok: { finish: "stop" } },
              { bug: "chunk-boundary" },
            ),
          ]),
        )
        const failed = report.results.filter((r) => !r.passed).map((r) => r.chunking)
        assert.include(failed, "1-byte")
        assert.include(failed, "agreement")
      }),
      { seed: 2026, numRuns: 50 },
    ))
})

const resultsOf = (report: Runner.Report, name: string) =>
  report.results.filter((result) => result.case === name)

const named = (results: ReadonlyArray<Runner.Result>) =>
  results.map((result) => `${result.case} [${Runner.label(result)}]`)

describe("Runner.run: recordings, line endings and strides", () => {
  it.effect("reads a recording with replace, and feeds it with LF and CRLF at every stride", () =>
    Effect.gen(function* () {
      const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("pass/format.json")])
      const recording = resultsOf(report, "recording-both-endings")
      assert.isTrue(recording.every((r) => r.passed))
      assert.deepStrictEqual(named(recording.filter((r) => r.mode === "strict")), [
        "recording-both-endings [strict, lf, 1-byte]",
        "recording-both-endings [strict, lf, 3-byte]",
        "recording-both-endings [strict, lf, 8192-byte]",
        "recording-both-endings [strict, lf, whole]",
        "recording-both-endings [strict, crlf, 1-byte]",
        "recording-both-endings [strict, crlf, 3-byte]",
        "recording-both-endings [strict, crlf, 8192-byte]",
        "recording-both-endings [strict, crlf, whole]",
        "recording-both-endings [strict, agreement]",
      ])
      assert.deepStrictEqual(named(resultsOf(report, "crlf-only")), [
        "crlf-only [strict, crlf, 2-byte]",
        "crlf-only [strict, crlf, 5-byte]",
        "crlf-only [strict, crlf, whole]",
        "crlf-only [strict, agreement]",
      ])
      const cut = resultsOf(report, "recording-cut")
      assert.deepStrictEqual(
        cut.map((r) => r.chunking),
        ["1-byte", "3-byte", "8192-byte", "whole", "agreement"],
      )
      assert.isTrue(cut.every((r) => r.passed))
    }),
  )

  it.effect("turns every LF into CRLF, in the case's own strides", () =>
    Effect.gen(function* () {
      const pushed: Array<string> = []
      const recording: Runner.MakeCodec = (options) => {
        const toy = ToyCodec.make(options)
        return {
          ...toy,
          decoder: () => {
            const inner = toy.decoder()
            return {
              ...inner,
              push: (bytes) => {
                pushed.push(new TextDecoder().decode(bytes))
                return inner.push(bytes)
              },
            }
          },
        }
      }
      const report = yield* CaseFiles.run(recording, [
        {
          name: "crlf",
          sse: "text a\r\nend stop\n",
          line_endings: ["crlf"],
          strides: [4],
          expect: { ok: { text: "a\r" } },
        },
      ])
      assert.strictEqual(report.failed, 0, report.results.map(Runner.formatFailure).join("\n"))
      // A CR already before an LF stays, and gets another.
      assert.deepStrictEqual(pushed.slice(0, 5), ["text", " a\r\r", "\nend", " sto", "p\r\n"])
      assert.deepStrictEqual(pushed.slice(5), ["text a\r\r\nend stop\r\n"])
    }),
  )

  it.effect("names the line ending of a failed check, and the feedings that disagree", () =>
    Effect.gen(function* () {
      const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("fail/format.json")])
      const failed = failuresOf(report, "crlf-breaks")
      assert.deepStrictEqual(named(failed), [
        "crlf-breaks [strict, crlf, 1-byte]",
        "crlf-breaks [strict, crlf, whole]",
        "crlf-breaks [strict, agreement]",
      ])
      assert.match(
        Runner.formatFailure(failed[0]!),
        /^FAIL crlf-breaks \[strict, crlf, 1-byte\] .*format\.json: expected ok, actual error protocol/,
      )
      assert.deepStrictEqual(
        failed[2]?.diff.map((line) => line.split(":")[0]),
        ["crlf 1-byte vs lf whole", "crlf whole vs lf whole"],
      )
    }),
  )

  it.effect("reports a recording that does not hold the text a case changes or cuts at", () =>
    Effect.gen(function* () {
      const replace = yield* Effect.flip(
        CaseFiles.run(ToyCodec.make, [casesDir("malformed/recording-replace-missing.json")], {
          root: casesDir(""),
        }),
      )
      assert.strictEqual(
        replace.message,
        'replace-missing: replace: "Goodbye" does not occur in ../pass/recordings/toy.lines',
      )
      const cut = yield* Effect.flip(
        CaseFiles.run(ToyCodec.make, [casesDir("malformed/recording-cut-missing.json")], {
          root: casesDir(""),
        }),
      )
      assert.strictEqual(
        cut.message,
        'cut-missing: cut_before: "end length" does not occur in ../pass/recordings/toy.lines',
      )
      const missing = yield* Effect.flip(
        CaseFiles.run(ToyCodec.make, [casesDir("malformed/recording-missing.json")]),
      )
      assert.match(
        missing.message,
        /^no-such-recording: recording \.\.\/pass\/recordings\/nowhere\.lines: cannot read/,
      )
    }),
  )

  it.effect("fails the checks of a recording case that was loaded without its recording", () =>
    Effect.gen(function* () {
      const loaded = yield* CaseFiles.readFile(casesDir("pass/format.json"))
      const recordingCase = loaded.find((one) => one.case.name === "recording-cut")!
      const results = yield* Runner.runCase(ToyCodec.make, {
        source: "by hand",
        case: recordingCase.case,
      })
      assert.isTrue(results.filter((r) => r.chunking !== "agreement").every((r) => !r.passed))
      assert.match(results[0]?.diff[0] ?? "", /the recording was not read/)
    }),
  )
})

describe("Runner.run: reasoning, partial, message, visible_by_chunk", () => {
  it.effect("passes cases the toy codec meets", () =>
    Effect.gen(function* () {
      const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("pass/format.json")])
      assert.strictEqual(report.failed, 0, report.results.map(Runner.formatFailure).join("\n"))
      assert.isAbove(resultsOf(report, "visible-by-chunk").length, 0)
    }),
  )

  it.effect("says which reasoning source, partial text or message differs", () =>
    Effect.gen(function* () {
      const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("fail/format.json")])
      const firstDiff = (name: string) => failuresOf(report, name)[0]?.diff
      assert.deepStrictEqual(firstDiff("wrong-reasoning-source"), [
        'reasoning[0].source: expected "think", actual "reasoning"',
      ])
      assert.deepStrictEqual(firstDiff("wrong-reasoning-count"), [
        'reasoning: expected 1 source [{"source":"think","text":"ab"}], actual 2 [{"source":"think","text":"a"},{"source":"reasoning","text":"b"}]',
      ])
      assert.deepStrictEqual(firstDiff("wrong-partial"), [
        'partial.text: expected "Hi", actual "Hel"',
        'partial.reasoning: expected "y", actual "x"',
      ])
      assert.deepStrictEqual(firstDiff("wrong-message"), [
        'message: expected "idle", actual "busy now"',
      ])
      assert.deepStrictEqual(firstDiff("missing-message"), [
        'message: expected "busy", actual none',
      ])
    }),
  )

  it.effect("checks visible_by_chunk on the chunks as given only, one boolean per push", () =>
    Effect.gen(function* () {
      const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("fail/format.json")])
      const wrong = failuresOf(report, "wrong-visible")
      assert.deepStrictEqual(
        wrong.map((r) => r.chunking),
        ["as-given"],
      )
      assert.deepStrictEqual(wrong[0]?.diff, [
        "visible_by_chunk: expected [true,true,false], actual [true,false,false] (chunk 1)",
      ])
      assert.deepStrictEqual(failuresOf(report, "wrong-visible-length")[0]?.diff, [
        "visible_by_chunk: expected 2 pushes, actual 1 [true]",
      ])
    }),
  )

  it.effect("the feedings must agree on the partial and the server's message too", () =>
    Effect.gen(function* () {
      // A codec whose error message depends on the chunking: every push is its own message.
      let pushes = 0
      const flaky: Runner.MakeCodec = (options) => ({
        ...ToyCodec.make(options),
        decoder: () => {
          const inner = ToyCodec.make(options).decoder()
          return {
            ...inner,
            push: (bytes) => {
              pushes++
              return inner.push(bytes)
            },
            finish: () => {
              const step = inner.finish()
              return step.error === undefined
                ? step
                : { ...step, error: SvirError.make("Server", "x", { serverMessage: `${pushes}` }) }
            },
          }
        },
      })
      const report = yield* CaseFiles.run(flaky, [
        { name: "flaky", sse: "text a\n", expect: { error: "server" } },
      ])
      const agreement = report.results.find((r) => r.chunking === "agreement")
      assert.isFalse(agreement?.passed)
      assert.match(
        agreement?.diff[0] ?? "",
        /^1-byte vs whole: message: expected "\d+", actual "\d+"$/,
      )
    }),
  )
})

describe("Runner.run: encoder cases", () => {
  it.effect(
    "encodes the request of the notation, and compares the body whatever its key order",
    () =>
      Effect.gen(function* () {
        const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("pass/encoder.json")])
        assert.strictEqual(report.failed, 0, report.results.map(Runner.formatFailure).join("\n"))
        assert.deepStrictEqual(named(report.results), [
          "encode-everything [strict, encode]",
          "encode-lean [strict, encode]",
          "encode-context-overflow [strict, encode]",
          "encode-attachment-error [strict, encode]",
        ])
        const lenient = yield* CaseFiles.run(ToyCodec.make, [casesDir("pass/encoder.json")], {
          modes: ["lenient"],
        })
        assert.strictEqual(lenient.results.length, 0)
      }),
  )

  it.effect("says where the body differs, and which error came instead of the expected one", () =>
    Effect.gen(function* () {
      const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("fail/format.json")])
      assert.deepStrictEqual(failuresOf(report, "wrong-body")[0]?.diff, [
        'body.model: expected "n", actual "m"',
        'body.messages[0].parts: expected 1 items [{"text":"hello"}], actual 2 [{"text":"hi"},{"text":"there"}]',
        "body.max_tokens: expected 1, actual none",
        "body.temperature: expected none, actual 0.5",
      ])
      assert.match(
        failuresOf(report, "wrong-encode-kind")[0]?.diff[0] ?? "",
        /^expected error unsupported, actual a body \{"model":"m"/,
      )
    }),
  )

  it.effect("fails a codec whose body changes when the same request is encoded again", () =>
    Effect.gen(function* () {
      let calls = 0
      const unstable: Runner.MakeCodec = (options) => ({
        ...ToyCodec.make(options),
        encode: (request) => Effect.sync(() => ({ model: request.model, n: calls++ })),
      })
      const report = yield* CaseFiles.run(unstable, [
        {
          name: "unstable",
          request: { model: "m", messages: [] },
          expect: { body: { model: "m", n: 0 } },
        },
      ])
      assert.deepStrictEqual(report.results[0]?.diff, [
        'encoding the same request again: expected "{\\"model\\":\\"m\\",\\"n\\":0}", actual "{\\"model\\":\\"m\\",\\"n\\":1}"',
      ])
    }),
  )

  it.effect("does not run a case whose attachment is a file on disk, unless given a resolver", () =>
    Effect.gen(function* () {
      const report = yield* CaseFiles.run(ToyCodec.make, [casesDir("encoder-disk")])
      assert.deepStrictEqual([report.passed, report.failed, report.notRun], [0, 0, 1])
      assert.match(
        report.results[0]?.notRun ?? "",
        /^attachment notes declares what a file on disk holds/,
      )
      assert.match(
        Runner.formatNotRun(report.results[0]!),
        /^NOT RUN encode-declared-size \[strict, encode\] .*declared\.json: attachment notes/,
      )
      assert.strictEqual(Runner.formatCounts(report), "0 passed, 0 failed, 1 not run")
      const seen: Array<string> = []
      const resolved = yield* CaseFiles.run(ToyCodec.make, [casesDir("encoder-disk")], {
        attachments: (key, attachment, folder) => {
          seen.push(`${key} ${attachment.declared_size} ${folder}`)
          return Effect.fail(SvirError.make("Attachment", "the file changed", { attachment: key }))
        },
      })
      assert.deepStrictEqual([resolved.passed, resolved.failed, resolved.notRun], [1, 0, 0])
      assert.deepStrictEqual(seen, [`notes 5 ${casesDir("encoder-disk")}`])
    }),
  )
})

describe("Runner: chunkings agree", () => {
  const line = fc.oneof(
    fc.stringMatching(/^[^\n\r]{0,10}$/).map((text) => `text ${text}`),
    fc
      .tuple(
        fc.constantFrom("think", "reasoning", "reasoning_content"),
        fc.stringMatching(/^[^\n\r]{0,10}$/),
      )
      .map(([source, text]) => `think:${source} ${text}`),
  )

  it("every stride, line ending and the chunks as given agree on any answer", () =>
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 8 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 3 }),
        fc.subarray(["lf", "crlf"] as const, { minLength: 1 }),
        (lines, strides, lineEndings) => {
          const chunks = [...lines.map((l) => `${l}\n`), "end stop\n"]
          const report = Effect.runSync(
            CaseFiles.run(ToyCodec.make, [
              {
                name: "generated",
                chunks,
                strides,
                line_endings: lineEndings,
                expect: { ok: { finish: "stop" } },
                expect_lenient: "same",
              },
            ]),
          )
          assert.strictEqual(report.failed, 0, report.results.map(Runner.formatFailure).join("\n"))
          assert.strictEqual(
            report.results.length,
            2 * (lineEndings.length * (strides.length + 2) + 1),
          )
        },
      ),
      { seed: 2027, numRuns: 60 },
    ))
})
