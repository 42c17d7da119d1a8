import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Demo from "../src/demo.js"

const recorder = () => {
  const printed = { text: "", notes: "" }
  const print: Demo.Printer = {
    text: (piece) => {
      printed.text += piece
    },
    note: (piece) => {
      printed.notes += piece
    },
  }
  return { printed, print }
}

describe("the demo", () => {
  it.live(
    "runs a multi-step loop with an MCP call and registry calls, and says it is scripted",
    () =>
      Effect.gen(function* () {
        const { printed, print } = recorder()
        const outcome = yield* Demo.demo({ baseUrl: undefined, model: "scripted" }, print)
        assert.strictEqual(outcome.turns, 3)
        assert.deepStrictEqual(outcome.calls, ["files__read_text_file", "lookup_order", "convert"])
        assert.include(printed.notes, "SCRIPTED server")
        // The notes come from the real filesystem server, the rest from the registry's handlers.
        assert.include(printed.notes, "← # To do | - Follow up on order 42.")
        assert.include(printed.notes, "← order 42 is shipped on 2026-11-28")
        assert.include(printed.notes, "← 20 EUR is about 21.60 USD")
        assert.include(printed.text, outcome.answer)
        // The spans, from OpenTelemetry's SDK: the model calls, the tool calls, the MCP request.
        assert.match(outcome.spans, /^chat scripted x3 \(in \d+ \/ out \d+ tokens\)/)
        for (const span of [
          "tools/call read_text_file x1",
          "execute_tool files__read_text_file x1",
          "execute_tool lookup_order x1",
          "execute_tool convert x1",
          "invoke_agent x1",
        ]) {
          assert.include(outcome.spans, span)
        }
        assert.include(printed.notes, `spans: ${outcome.spans}`)
      }),
  )

  it("reads the target from the command line before the environment", () => {
    const env = { OPENAI_BASE_URL: "http://127.0.0.1:1234/v1", SVIR_MODEL: "env-model" }
    assert.deepStrictEqual(Demo.targetFrom([], env), {
      baseUrl: "http://127.0.0.1:1234/v1",
      model: "env-model",
    })
    assert.deepStrictEqual(
      Demo.targetFrom(["--base-url", "http://127.0.0.1:11434/v1", "--model", "qwen3"], env),
      { baseUrl: "http://127.0.0.1:11434/v1", model: "qwen3" },
    )
    assert.deepStrictEqual(Demo.targetFrom([], {}), { baseUrl: undefined, model: "scripted" })
  })

  it("runs as a program and exits 0", async () => {
    const demo = new URL("../src/demo.ts", import.meta.url).pathname
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--conditions=@svir/source", demo],
      { env: { PATH: process.env.PATH ?? "" }, timeout: 60_000 },
    )
    assert.include(stdout, "(3 turns, 3 tool calls: files__read_text_file, lookup_order, convert)")
    assert.include(stdout, "spans: chat scripted x3")
  })
})
