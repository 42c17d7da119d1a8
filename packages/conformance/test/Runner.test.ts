import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { type Codec, Completion, Event } from "@svir/core"
import { Effect } from "effect"
import * as fc from "fast-check"
import { type Case, Runner } from "../src/index.js"
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
  it.effect("passes every check of cases the toy codec meets", () =>
    Effect.gen(function* () {
      const report = yield* Runner.run(ToyCodec.make, [casesDir("pass")])
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
      const report = yield* Runner.run(ToyCodec.make, [casesDir("pass")])
      const [first] = report.results
      assert.isDefined(first)
      const text = report.results.filter((r) => r.case === "text-and-usage")
      assert.deepStrictEqual(
        text.map(({ mode, chunking }) => `${mode} ${chunking}`),
        [
          "strict 1-byte",
          "strict 3-byte",
          "strict whole",
          "strict agreement",
          "lenient 1-byte",
          "lenient 3-byte",
          "lenient whole",
          "lenient agreement",
        ],
      )
      const calls = report.results.filter((r) => r.case === "two-calls").map((r) => r.chunking)
      assert.deepStrictEqual(calls, ["as-given", "1-byte", "3-byte", "whole", "agreement"])
      const body = report.results.filter((r) => r.case === "response-body").map((r) => r.chunking)
      assert.deepStrictEqual(body, ["response"])
    }),
  )

  it.effect("keeps only the checks of the modes asked for", () =>
    Effect.gen(function* () {
      const lenient = yield* Runner.run(ToyCodec.make, [casesDir("pass")], { modes: ["lenient"] })
      assert.isAbove(lenient.results.length, 0)
      assert.isTrue(lenient.results.every((r) => r.mode === "lenient"))
      const both = yield* Runner.run(ToyCodec.make, [casesDir("pass")])
      const strict = yield* Runner.run(ToyCodec.make, [casesDir("pass")], { modes: ["strict"] })
      assert.strictEqual(strict.results.length + lenient.results.length, both.results.length)
    }),
  )

  it.effect("catches a wrong expectation, with a diff of expected and actual", () =>
    Effect.gen(function* () {
      const report = yield* Runner.run(ToyCodec.make, [casesDir("fail")])
      const wrong = failuresOf(report, "wrong-text")
      assert.deepStrictEqual(
        wrong.map((r) => r.chunking),
        ["1-byte", "3-byte", "whole"],
      )
      for (const result of wrong) {
        assert.deepStrictEqual(result.diff, ['text: expected "Hallo", actual "Hello"'])
        assert.match(
          Runner.formatFailure(result),
          /^FAIL wrong-text \[strict, (1-byte|3-byte|whole)\] .*wrong\.json: text: expected "Hallo", actual "Hello"$/,
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
      const report = yield* Runner.run(ToyCodec.make, [casesDir("fail")])
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
        const report = yield* Runner.run(ToyCodec.make, [casesDir("fail")])
        const released = failuresOf(report, "released-on-error").filter(
          (r) => r.chunking !== "agreement",
        )
        assert.strictEqual(released.length, 3)
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
        Runner.run(ToyCodec.make, [casesDir("pass"), casesDir("malformed/two-inputs.json")]),
      )
      assert.strictEqual(error._tag, "CaseError")
      assert.match(error.source, /two-inputs\.json$/)
      assert.match(error.message, /exactly one input of sse, chunks, hex, json; found sse, hex/)
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
      const report = yield* Runner.run(recording, [textCase(sse, { ok: { text: "abcdefg" } })])
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
      const after = yield* Runner.run(
        withEvents([Event.completed(completion), Event.textDelta("x")]),
        [textCase("x", { ok: {} })],
      )
      assert.match(after.results[0]?.diff[0] ?? "", /a TextDelta event came after Completed/)
      const twice = yield* Runner.run(
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
        const { SvirError } = yield* Effect.promise(() => import("@svir/core"))
        const config: Runner.MakeCodec = () => {
          throw SvirError.make("Config", "no such option")
        }
        const expected = yield* Runner.run(config, [textCase("x", { error: "config" })])
        assert.strictEqual(expected.failed, 0)
        const broken: Runner.MakeCodec = () => {
          throw new TypeError("bad")
        }
        const report = yield* Runner.run(broken, [textCase("x", { ok: {} })])
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
      yield* Runner.run(spy, [
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
      const wildcard = yield* Runner.run(ToyCodec.make, [
        textCase(sse, { ok: { calls: [{ id: "*", name: "f" }] } }),
      ])
      assert.strictEqual(wildcard.failed, 0)
      const unchecked = yield* Runner.run(ToyCodec.make, [
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
          Runner.run(ToyCodec.make, [
            textCase(sse, { ok: { text: pieces.join(""), finish: "stop" } }),
          ]),
        )
        assert.strictEqual(report.failed, 0, report.results.map(Runner.formatFailure).join("\n"))
      }),
      { numRuns: 50 },
    ))

  it("a codec whose outcome depends on the chunking is caught, whatever the text", () =>
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{2,12}$/), (word) => {
        const report = Effect.runSync(
          Runner.run(ToyCodec.make, [
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
      { numRuns: 50 },
    ))
})
